// Interp: hand-computed nearest indices (scale vs output size), bilinear half-pixel and
// align_corner weights, bicubic A=-0.75 coefficients with ncnn's edge folding; random 3D inputs
// against PyTorch-style formulas written from the definitions (bilinear with clamped source
// coordinates, bicubic with clamped taps, which equals ncnn's folding); 1D/2D/dynamic forms; errors.
#include <cmath>

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

Mat interp(ParamDict pd, const std::vector<Mat>& in) {
    Built b = build("Interp", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, in);
}

ParamDict sized(int type, int outw, int outh, int align = 0) {
    return params({{0, type}, {4, outw}, {3, outh}, {6, align}});
}

ParamDict scaled(int type, float hs, float ws) {
    ParamDict pd = params({{0, type}});
    pd.set_float(1, hs);
    pd.set_float(2, ws);
    return pd;
}

// Source coordinate for an output index (PyTorch conventions).
double src_coord(int dst, int in, int out, bool align) {
    if (align)
        return out > 1 ? dst * (double)(in - 1) / (out - 1) : 0.0;
    return (dst + 0.5) * in / out - 0.5;
}

double bilinear_ref(const float* p, int w, int h, double fy, double fx) {
    fy = std::max(fy, 0.0);
    fx = std::max(fx, 0.0);
    int y0 = std::min((int)fy, h - 1), x0 = std::min((int)fx, w - 1);
    int y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
    double ly = fy - y0, lx = fx - x0;
    if (y0 == h - 1)
        ly = 0;
    if (x0 == w - 1)
        lx = 0;
    return (1 - ly) * ((1 - lx) * p[y0 * w + x0] + lx * p[y0 * w + x1]) +
           ly * ((1 - lx) * p[y1 * w + x0] + lx * p[y1 * w + x1]);
}

double cubic_w(double x) {
    const double A = -0.75;
    x = std::fabs(x);
    if (x <= 1)
        return (A + 2) * x * x * x - (A + 3) * x * x + 1;
    if (x < 2)
        return A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
    return 0;
}

double bicubic_ref(const float* p, int w, int h, double fy, double fx) {
    int iy = (int)std::floor(fy), ix = (int)std::floor(fx);
    double s = 0;
    for (int a = -1; a <= 2; a++)
        for (int b = -1; b <= 2; b++) {
            int y = std::min(std::max(iy + a, 0), h - 1), x = std::min(std::max(ix + b, 0), w - 1);
            s += cubic_w(fy - (iy + a)) * cubic_w(fx - (ix + b)) * p[y * w + x];
        }
    return s;
}

}  // namespace

TEST(Interp, NearestIndices) {
    Mat sq = mat_of(Shape::d3(2, 2, 1), {1, 2, 3, 4});
    Mat up = interp(scaled(1, 2.f, 2.f), {sq});
    EXPECT_EQ(up.shape(), Shape::d3(4, 4, 1));
    expect_near({1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, up, 0, 0);
    // output size: source x = int(x * 3/5) -> 0 0 1 1 2; a 2D input resizes w only
    Mat row = mat_of(Shape::d2(3, 2), {1, 2, 3, 4, 5, 6});
    Mat r = interp(sized(1, 5, 7), {row});
    EXPECT_EQ(r.shape(), Shape::d2(5, 2));
    expect_near({1, 1, 2, 2, 3, 4, 4, 5, 5, 6}, r, 0, 0);
    // downscale 5 -> 2: x * 2.5 -> 0, 2
    expect_near({1, 3}, interp(sized(1, 2, 1), {mat_of(Shape::d2(5, 1), {1, 2, 3, 4, 5})}), 0, 0);
}

TEST(Interp, BilinearWeights) {
    Mat ab = mat_of(Shape::d2(2, 1), {1, 5});
    // half-pixel 2 -> 4: source x = -0.25 (clamped), 0.25, 0.75, 1.25 (clamped)
    expect_near({1, 2, 4, 5}, interp(sized(2, 4, 1), {ab}), 1e-6f, 1e-6f);
    // align_corner: source x = 0, 1/3, 2/3, 1
    expect_near({1, 1 + 4 / 3.f, 1 + 8 / 3.f, 5}, interp(sized(2, 4, 1, 1), {ab}), 1e-6f, 1e-6f);
}

TEST(Interp, BicubicCoefficientsAndEdgeFolding) {
    // align_corner 5 -> 9: source x = 0, .5, 1, ..., 4. At fraction .5 the A=-0.75 weights are
    // -0.09375, 0.59375, 0.59375, -0.09375; at x = .5 and 3.5 ncnn folds the tap outside the input
    // onto the edge sample.
    Mat x = mat_of(Shape::d2(5, 1), {1, 2, 4, 8, 16});
    Mat y = interp(sized(3, 9, 1, 1), {x});
    expect_near({1, 1.3125f, 2, 2.71875f, 4, 5.4375f, 8, 12.375f, 16}, y, 1e-6f, 1e-6f);
}

TEST(Interp, ThreeDAgainstDefinitions) {
    struct Case {
        int type, C, H, W, OH, OW, align;
    };
    const Case cases[] = {
        {2, 3, 4, 5, 8, 10, 0}, {2, 1, 5, 7, 3, 4, 0}, {2, 5, 3, 4, 7, 9, 1}, {2, 17, 2, 2, 5, 3, 0},
        {3, 3, 5, 6, 9, 13, 0}, {3, 2, 6, 5, 4, 3, 0}, {3, 1, 4, 4, 7, 9, 1}, {3, 3, 2, 3, 5, 6, 0},
    };
    uint32_t seed = 40;
    for (const Case& c : cases) {
        SCOPED_TRACE("type " + std::to_string(c.type) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) + " -> " +
                     std::to_string(c.OH) + "x" + std::to_string(c.OW) + " align " + std::to_string(c.align));
        Mat in = rand_mat(Shape::d3(c.W, c.H, c.C), ++seed);
        Mat out = interp(sized(c.type, c.OW, c.OH, c.align), {in});
        ASSERT_EQ(out.shape(), Shape::d3(c.OW, c.OH, c.C));
        std::vector<float> want;
        for (int q = 0; q < c.C; q++)
            for (int y = 0; y < c.OH; y++)
                for (int x = 0; x < c.OW; x++) {
                    double fy = src_coord(y, c.H, c.OH, c.align), fx = src_coord(x, c.W, c.OW, c.align);
                    const float* p = in.data + (size_t)q * c.H * c.W;
                    want.push_back((float)(c.type == 2 ? bilinear_ref(p, c.W, c.H, fy, fx)
                                                       : bicubic_ref(p, c.W, c.H, fy, fx)));
                }
        expect_near(want, out, 1e-5f, 1e-5f);
    }
    // nearest from scales: index = int(dst / scale)
    Mat in = rand_mat(Shape::d3(5, 3, 2), 50);
    Mat out = interp(scaled(1, 2.f, 1.5f), {in});
    ASSERT_EQ(out.shape(), Shape::d3(7, 6, 2));
    std::vector<float> want;
    for (int q = 0; q < 2; q++)
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 7; x++)
                want.push_back(in.data[(q * 3 + std::min((int)(y / 2.f), 2)) * 5 + std::min((int)(x / 1.5f), 4)]);
    expect_near(want, out, 0, 0);
}

TEST(Interp, OneDDynamicAndIdentity) {
    // 1D: each value becomes a filled channel
    Mat v = interp(sized(2, 3, 2), {mat_of(Shape::d1(2), {7, 9})});
    EXPECT_EQ(v.shape(), Shape::d3(3, 2, 2));
    expect_near({7, 7, 7, 7, 7, 7, 9, 9, 9, 9, 9, 9}, v, 0, 0);
    // dynamic target size: the second input's w and h
    ParamDict pd = params({{0, 2}, {5, 1}});
    Built b = build("Interp", pd);
    ASSERT_TRUE(b.st.is_ok());
    EXPECT_FALSE(b->one_blob_only);
    Mat in = rand_mat(Shape::d3(2, 2, 3), 60);
    Mat out = run1(*b.layer, {in, rand_mat(Shape::d3(5, 4, 1), 61)});
    EXPECT_EQ(out.shape(), Shape::d3(5, 4, 3));
    Mat ref = interp(sized(2, 5, 4), {in});
    expect_near(vec(ref), out, 0, 0);
    // same size: the input comes back
    Mat same = interp(sized(3, 2, 2), {in});
    expect_near(vec(in), same, 0, 0);
}

TEST(Interp, BadParamsAndShapesAreErrors) {
    LT_EXPECT_ERROR(create_layer("Interp", false)->load_param(params({{0, 4}})), ErrorCode::InvalidModel, "resize_type");
    std::vector<Mat> out;
    Built z = build("Interp", params({{3, 4}, {4, 4}}));  // resize_type 0: ncnn leaves the output unset
    LT_EXPECT_ERROR(run(*z.layer, {rand_mat(Shape::d3(2, 2, 1), 1)}, out), ErrorCode::Unsupported, "resize_type 0");
    Built b = build("Interp", sized(2, 4, 4));
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(2, 2, 2, 1), 1)}, out), ErrorCode::ShapeMismatch, "1D, 2D or 3D");
    Built c = build("Interp", sized(3, 4, 4));
    LT_EXPECT_ERROR(run(*c.layer, {rand_mat(Shape::d3(3, 1, 2), 1)}, out), ErrorCode::Unsupported, "bicubic");
    Built d = build("Interp", params({{0, 1}, {5, 1}}));
    LT_EXPECT_ERROR(run(*d.layer, {rand_mat(Shape::d3(3, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "reference");
    Built e = build("Interp", scaled(1, 0.1f, 0.1f));
    LT_EXPECT_ERROR(run(*e.layer, {rand_mat(Shape::d3(3, 3, 2), 1)}, out), ErrorCode::ShapeMismatch, "empty");
    ParamDict se = params({{0, 1}});
    se.set_string(9, "1,2");
    Built f = build("Interp", se);
    LT_EXPECT_ERROR(run(*f.layer, {rand_mat(Shape::d3(3, 3, 2), 1)}, out), ErrorCode::Unsupported, "expression");
}
