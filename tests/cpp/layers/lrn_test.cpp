// LRN against Caffe's formulas evaluated in double: across channels (alpha / local_size, a window
// of channels q - local_size/2 .. q + local_size/2, which is local_size + 1 wide for even sizes as in
// ncnn) and within a channel (alpha / local_size^2 over a zero-padded window); errors.
#include <cmath>

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> lrn_ref(const Mat& in, int C, int H, int W, int region, int n, float alpha, float beta, float bias) {
    std::vector<float> out;
    auto at = [&](int q, int y, int x) -> double {
        if (q < 0 || q >= C || y < 0 || y >= H || x < 0 || x >= W)
            return 0;
        return in.data[((size_t)q * H + y) * W + x];
    };
    for (int q = 0; q < C; q++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double ss = 0, scale;
                if (region == 0) {
                    for (int c = q - n / 2; c <= q + n / 2; c++)
                        ss += at(c, y, x) * at(c, y, x);
                    scale = bias + alpha / n * ss;
                } else {
                    for (int i = y - n / 2; i < y - n / 2 + n; i++)
                        for (int j = x - n / 2; j < x - n / 2 + n; j++)
                            ss += at(q, i, j) * at(q, i, j);
                    scale = bias + alpha / (n * n) * ss;
                }
                out.push_back((float)(at(q, y, x) * std::pow(scale, -beta)));
            }
    return out;
}

}  // namespace

TEST(LRN, AcrossAndWithinChannels) {
    struct Case {
        int region, n, C, H, W;
        float alpha, beta, bias;
    };
    const Case cases[] = {
        {0, 5, 7, 3, 4, 1e-4f, 0.75f, 1.f},  // the zoo's googlenet/squeezenet-style LRN
        {0, 3, 1, 2, 5, 0.5f, 0.75f, 2.f}, {0, 4, 5, 2, 3, 0.3f, 0.6f, 1.f}, {0, 5, 17, 1, 1, 1.f, 0.75f, 1.f},
        {1, 3, 3, 5, 6, 0.4f, 0.75f, 1.f}, {1, 4, 2, 4, 4, 1.f, 0.5f, 1.5f}, {1, 1, 2, 3, 3, 1.f, 0.75f, 1.f},
    };
    uint32_t seed = 5;
    for (const Case& c : cases) {
        SCOPED_TRACE("region " + std::to_string(c.region) + " local_size " + std::to_string(c.n) + " C " +
                     std::to_string(c.C));
        ParamDict pd = params({{0, c.region}, {1, c.n}});
        pd.set_float(2, c.alpha);
        pd.set_float(3, c.beta);
        pd.set_float(4, c.bias);
        Built b = build("LRN", pd);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(Shape::d3(c.W, c.H, c.C), ++seed, -2.f, 2.f);
        expect_near(lrn_ref(in, c.C, c.H, c.W, c.region, c.n, c.alpha, c.beta, c.bias), run1(*b.layer, {in}), 1e-5f,
                    1e-6f);
    }
}

TEST(LRN, DefaultsAndErrors) {
    // defaults: across channels, local_size 5, alpha 1, beta 0.75, bias 1
    Built b = build("LRN", ParamDict());
    Mat in = rand_mat(Shape::d3(3, 2, 6), 9);
    expect_near(lrn_ref(in, 6, 2, 3, 0, 5, 1.f, 0.75f, 1.f), run1(*b.layer, {in}), 1e-5f, 1e-6f);
    auto load = [](ParamDict pd) { return create_layer("LRN", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 2}})), ErrorCode::InvalidModel, "region_type");
    LT_EXPECT_ERROR(load(params({{1, 0}})), ErrorCode::InvalidModel, "local_size");
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(2, 2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "input");
}
