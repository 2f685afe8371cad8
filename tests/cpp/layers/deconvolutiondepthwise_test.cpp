// DeconvolutionDepthWise against a scatter-form reference accumulated in double: depthwise, channel multiplier, general groups, SAME cuts,
// every fused activation; errors.
#include "layers/deconvolutiondepthwise.h"

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// out[o][y][x] = bias[o] + sum over the group's inputs c and taps with y = i*s + ki*d, x = j*s + kj*d
std::vector<float> grouped_full(const std::vector<float>& in, int C, int H, int W, const std::vector<float>& wt,
                                const std::vector<float>& bias, int O, int group, int k, int d, int s, int op, int act,
                                const std::vector<float>& ap, int& FH, int& FW) {
    FH = (H - 1) * s + d * (k - 1) + 1 + op;
    FW = (W - 1) * s + d * (k - 1) + 1 + op;
    std::vector<double> acc((size_t)O * FH * FW);
    const int icg = C / group, ocg = O / group;
    for (int o = 0; o < O; o++)
        for (size_t p = 0; p < (size_t)FH * FW; p++)
            acc[(size_t)o * FH * FW + p] = bias[o];
    // scatter in double: a different summation form from the layer's float loop
    for (int o = 0; o < O; o++) {
        int g = o / ocg;
        for (int c = 0; c < icg; c++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++)
                    for (int ki = 0; ki < k; ki++)
                        for (int kj = 0; kj < k; kj++)
                            acc[((size_t)o * FH + i * s + ki * d) * FW + j * s + kj * d] +=
                                (double)in[((size_t)(g * icg + c) * H + i) * W + j] *
                                wt[(((size_t)o * icg + c) * k + ki) * k + kj];
    }
    std::vector<float> out(acc.size());
    for (size_t i = 0; i < acc.size(); i++)
        out[i] = act_ref(act, (float)acc[i], ap);
    return out;
}

void check(int C, int H, int W, int O, int group, int k, int d, int s, int p4, int op, int ow, int oh, int ct, int cb,
           int cl, int cr, int act, uint32_t seed) {
    SCOPED_TRACE("C" + std::to_string(C) + " O" + std::to_string(O) + " group " + std::to_string(group) + " act " +
                 std::to_string(act) + " pad " + std::to_string(p4));
    ParamDict pd = params({{0, O}, {1, k}, {2, d}, {3, s}, {4, p4}, {5, 1}, {6, k * k * (C / group) * O}, {7, group},
                           {9, act}, {18, op}, {20, ow}, {21, oh}});
    auto ap = act_params_for(act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    auto w = random_weights("DeconvolutionDepthWise", pd, seed);
    Built b = build("DeconvolutionDepthWise", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d3(W, H, C), seed + 1);
    Mat out = run1(*b.layer, {in});
    int FH, FW;
    auto full = grouped_full(vec(in), C, H, W, w[0], w[1], O, group, k, d, s, op, act, ap, FH, FW);
    std::vector<float> want;
    for (int o = 0; o < O; o++)
        for (int y = ct; y < FH - cb; y++)
            for (int x = cl; x < FW - cr; x++)
                want.push_back(full[((size_t)o * FH + y) * FW + x]);
    ASSERT_EQ(out.shape(), Shape::d3(FW - cl - cr, FH - ct - cb, O));
    expect_near(want, out, 1e-5f, 2e-5f);
}

}  // namespace

TEST(DeconvolutionDepthWise, MatchesGroupedReference) {
    //     C  H  W  O grp k d s p4 op ow oh ct cb cl cr act
    check(1, 3, 5, 1, 1, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 600);
    check(3, 4, 3, 3, 3, 3, 1, 2, 1, 0, 0, 0, 1, 1, 1, 1, 1, 610);
    check(5, 3, 4, 5, 5, 4, 1, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 620);
    check(17, 3, 3, 17, 17, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 630);
    check(3, 3, 3, 6, 3, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 640);  // channel multiplier 2
    check(4, 3, 4, 6, 2, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 650);  // 2 groups, 2 in -> 3 out
    // full 7x7, output 6x6: SAME_UPPER cuts the end, SAME_LOWER the start
    check(4, 3, 3, 4, 4, 3, 1, 2, -233, 0, 6, 6, 0, 1, 0, 1, 0, 660);
    check(4, 3, 3, 4, 4, 3, 1, 2, -234, 0, 6, 6, 1, 0, 1, 0, 0, 670);
    for (int act = 0; act <= 6; act++)
        check(5, 3, 4, 5, 5, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, act, 700 + act);
}

TEST(DeconvolutionDepthWise, BadParamsAndShapesAreErrors) {
    auto load = [](ParamDict pd) { return create_layer("DeconvolutionDepthWise", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 6}, {1, 3}, {6, 54}, {7, 4}})), ErrorCode::InvalidModel, "multiple of group");
    LT_EXPECT_ERROR(load(params({{0, 6}, {1, 3}, {6, 27}, {7, 3}})), ErrorCode::InvalidModel, "weight_data_size");
    Built b = build("DeconvolutionDepthWise", params({{0, 4}, {1, 3}, {6, 36}, {7, 4}}));
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(3, 3, 2), 1)}, out), ErrorCode::ShapeMismatch, "channel");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(3, 3, 2, 4), 1)}, out), ErrorCode::ShapeMismatch, "input");
}
