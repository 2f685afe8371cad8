// Padding: hand-computed constant/replicate/reflect cases, front/behind channel (3D) and depth (4D)
// padding with per-channel values, and a random sweep against an index-list reference built by
// concatenation (reflect = [a..1] + [0..n-1] + [n-2..]); errors.
#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// Source index per output position along one axis; -1 = the constant.
std::vector<int> axis_index(int n, int before, int after, int type) {
    std::vector<int> idx;
    for (int i = before; i >= 1; i--)
        idx.push_back(type == 0 ? -1 : type == 1 ? 0 : i);
    for (int i = 0; i < n; i++)
        idx.push_back(i);
    for (int i = 1; i <= after; i++)
        idx.push_back(type == 0 ? -1 : type == 1 ? n - 1 : n - 1 - i);
    return idx;
}

Mat pad(ParamDict pd, const Mat& in, std::vector<std::vector<float>> w = {}) {
    Built b = build("Padding", pd, w);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, {in});
}

}  // namespace

TEST(Padding, HandComputed) {
    Mat v = mat_of(Shape::d1(4), {1, 2, 3, 4});
    expect_near({3, 2, 1, 2, 3, 4, 3}, pad(params({{2, 2}, {3, 1}, {4, 2}}), v), 0, 0);
    expect_near({1, 1, 1, 2, 3, 4, 4}, pad(params({{2, 2}, {3, 1}, {4, 1}}), v), 0, 0);
    ParamDict c = params({{2, 1}, {3, 2}, {0, 5}});  // top/bottom do nothing to a 1D blob
    c.set_float(5, -1.f);
    Mat cv = pad(c, v);
    EXPECT_EQ(cv.shape(), Shape::d1(7));
    expect_near({-1, 1, 2, 3, 4, -1, -1}, cv, 0, 0);

    Mat m = mat_of(Shape::d2(3, 2), {1, 2, 3, 4, 5, 6});
    Mat r = pad(params({{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 2}}), m);
    EXPECT_EQ(r.shape(), Shape::d2(5, 4));
    expect_near({5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2}, r, 0, 0);

    // 3D: one channel in front, two behind, each padded channel and border with its own value
    Mat t = mat_of(Shape::d3(1, 1, 2), {7, 8});
    ParamDict pc = params({{2, 1}, {6, 5}, {7, 1}, {8, 2}});
    Mat tp = pad(pc, t, {{10, 11, 12, 13, 14}});
    EXPECT_EQ(tp.shape(), Shape::d3(2, 1, 5));
    expect_near({10, 10, 11, 7, 12, 8, 13, 13, 14, 14}, tp, 0, 0);
    // replicate and reflect along channels
    Mat c3 = mat_of(Shape::d3(1, 1, 3), {1, 2, 3});
    expect_near({1, 1, 2, 3, 3, 3}, pad(params({{7, 1}, {8, 2}, {4, 1}}), c3), 0, 0);
    expect_near({2, 1, 2, 3, 2, 1}, pad(params({{7, 1}, {8, 2}, {4, 2}}), c3), 0, 0);

    // 4D: front/behind pad depth; per-channel values index channels
    Mat d4 = mat_of(Shape::d4(1, 1, 2, 2), {1, 2, 3, 4});
    Mat dp = pad(params({{7, 1}, {6, 2}}), d4, {{-1, -2}});
    EXPECT_EQ(dp.shape(), Shape::d4(1, 1, 3, 2));
    expect_near({-1, 1, 2, -2, 3, 4}, dp, 0, 0);
}

TEST(Padding, RandomSweepAgainstIndexLists) {
    uint32_t seed = 30;
    for (int type = 0; type <= 2; type++)
        for (int dims = 1; dims <= 4; dims++) {
            SCOPED_TRACE("type " + std::to_string(type) + " dims " + std::to_string(dims));
            const int W = 5, H = 4, D = 3, C = 3;
            const int top = 1, bottom = 2, left = 2, right = 3, front = 1, behind = 2;
            Shape s = dims == 1 ? Shape::d1(W) : dims == 2 ? Shape::d2(W, H) : dims == 3 ? Shape::d3(W, H, C)
                                                                                        : Shape::d4(W, H, D, C);
            ParamDict pd = params({{0, top}, {1, bottom}, {2, left}, {3, right}, {4, type}, {7, front}, {8, behind}});
            pd.set_float(5, 0.5f);
            Mat in = rand_mat(s, ++seed);
            Mat out = pad(pd, in);
            auto iw = axis_index(W, left, right, type);
            auto ih = dims >= 2 ? axis_index(H, top, bottom, type) : std::vector<int>{0};
            auto id = dims == 4 ? axis_index(D, front, behind, type) : std::vector<int>{0};
            auto ic = dims == 3 ? axis_index(C, front, behind, type) : dims == 4 ? axis_index(C, 0, 0, 0) : std::vector<int>{0};
            const int h = dims >= 2 ? H : 1, d = dims == 4 ? D : 1;
            std::vector<float> want;
            for (int q : ic)
                for (int z : id)
                    for (int y : ih)
                        for (int x : iw)
                            want.push_back(q < 0 || z < 0 || y < 0 || x < 0
                                               ? 0.5f
                                               : in.data[(((size_t)q * d + z) * h + y) * W + x]);
            expect_near(want, out, 0, 0);
        }
}

TEST(Padding, ZeroPadsReturnTheInput) {
    Built b = build("Padding", ParamDict());
    Mat in = rand_mat(Shape::d3(3, 2, 2), 3);
    Mat out = run1(*b.layer, {in});
    expect_near(vec(in), out, 0, 0);
}

TEST(Padding, BadParamsAndShapesAreErrors) {
    auto load = [](ParamDict pd) { return create_layer("Padding", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{4, 3}})), ErrorCode::InvalidModel, "type");
    LT_EXPECT_ERROR(load(params({{0, -1}})), ErrorCode::InvalidModel, "pads");
    LT_EXPECT_ERROR(load(params({{7, -2}})), ErrorCode::InvalidModel, "front");
    std::vector<Mat> out;
    Built r = build("Padding", params({{2, 3}, {4, 2}}));
    LT_EXPECT_ERROR(run(*r.layer, {rand_mat(Shape::d2(3, 2), 1)}, out), ErrorCode::ShapeMismatch, "reflect");
    Built pc = build("Padding", params({{7, 1}, {6, 3}}));
    ASSERT_TRUE(pc.st.is_ok());
    LT_EXPECT_ERROR(run(*pc.layer, {rand_mat(Shape::d3(2, 2, 3), 1)}, out), ErrorCode::ShapeMismatch,
                    "per_channel_pad_data");
    auto dyn = create_layer("Padding", false);
    ASSERT_TRUE(dyn->load_param(params({{0, -233}, {1, -233}, {2, -233}, {3, -233}})).is_ok());
    EXPECT_FALSE(dyn->one_blob_only);
    std::vector<Shape> tops;
    LT_EXPECT_ERROR(dyn->infer_shape({Shape::d2(3, 3), Shape::d1(6)}, tops), ErrorCode::Unsupported, "second input");
}
