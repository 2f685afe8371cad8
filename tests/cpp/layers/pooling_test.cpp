// Pooling: hand-computed ncnn cases (full-mode tail, count_include_pad, the SAME-mode average that
// counts its zero border, adaptive windows), and a random sweep against window loops written from
// the definition (odd channel counts, strides, pads, both pad modes); global/1D/2D inputs; errors.
#include "layers/pooling.h"

#include <cfloat>

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

Mat iota(const Shape& s) {
    Mat m = rand_mat(s, 1);
    for (size_t i = 0; i < m.total_floats(); i++)
        m.data[i] = (float)(i + 1);
    return m;
}

Mat pool(ParamDict pd, const Mat& in) {
    Built b = build("Pooling", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, {in});
}

}  // namespace

TEST(Pooling, HandComputedMaxAndAverage) {
    Mat in = iota(Shape::d3(4, 4, 1));  // rows 1..4, 5..8, 9..12, 13..16
    // max 2x2 stride 2
    Mat m = pool(params({{0, 0}, {1, 2}, {2, 2}}), in);
    EXPECT_EQ(m.shape(), Shape::d3(2, 2, 1));
    expect_near({6, 8, 14, 16}, m, 0, 0);
    // avg 3x3 stride 2 pad 1, full mode: padded 6 -> (6 - 3) % 2 = 1 -> one tail column/row -> 3x3 out;
    // without count_include_pad each window averages its cells inside the input
    Mat a = pool(params({{0, 1}, {1, 3}, {2, 2}, {3, 1}}), in);
    EXPECT_EQ(a.shape(), Shape::d3(3, 3, 1));
    expect_near({3.5f, 5, 6, 9.5f, 11, 12, 13.5f, 15, 16}, a);
    // with count_include_pad: divide by 9 (the tail counts too)
    Mat ai = pool(params({{0, 1}, {1, 3}, {2, 2}, {3, 1}, {6, 1}}), in);
    expect_near({14 / 9.f, 30 / 9.f, 12 / 9.f, 57 / 9.f, 11, 4, 3, 5, 16 / 9.f}, ai);
    // valid mode: no tail -> 2x2
    Mat av = pool(params({{0, 1}, {1, 3}, {2, 2}, {3, 1}, {5, 1}}), in);
    EXPECT_EQ(av.shape(), Shape::d3(2, 2, 1));
    expect_near({3.5f, 5, 9.5f, 11}, av);
    // max with pad 1 (border is -FLT_MAX)
    Mat mp = pool(params({{0, 0}, {1, 3}, {2, 2}, {3, 1}}), in);
    expect_near({6, 8, 8, 14, 16, 16, 14, 16, 16}, mp, 0, 0);
}

TEST(Pooling, SameModesCountTheirBorderInAverages) {
    Mat row = iota(Shape::d3(4, 1, 1));  // 1 2 3 4
    // SAME k3 s1: total 3 + 3 - 4 = 2 -> 1/1; ncnn excludes only the pad params (0), so the zeros count
    Mat a = pool(params({{0, 1}, {1, 3}, {11, 1}, {2, 1}, {5, 2}}), row);
    expect_near({1, 2, 3, 7 / 3.f}, a);
    Mat row5 = iota(Shape::d3(5, 1, 1));
    // k2 s2: total 2 + 4 - 5 = 1; SAME_UPPER pads the end, SAME_LOWER the start
    Mat up = pool(params({{0, 1}, {1, 2}, {11, 1}, {2, 2}, {12, 1}, {5, 2}}), row5);
    expect_near({1.5f, 3.5f, 2.5f}, up);
    Mat lo = pool(params({{0, 1}, {1, 2}, {11, 1}, {2, 2}, {12, 1}, {5, 3}}), row5);
    expect_near({0.5f, 2.5f, 4.5f}, lo);
    Mat mlo = pool(params({{0, 0}, {1, 2}, {11, 1}, {2, 2}, {12, 1}, {5, 3}}), row5);
    expect_near({1, 3, 5}, mlo, 0, 0);
}

TEST(Pooling, AdaptiveWindows) {
    // w 5 -> 3: [floor(5j/3), ceil(5(j+1)/3)) = [0,2) [1,4) [3,5)
    Mat row5 = iota(Shape::d3(5, 1, 1));
    Mat a = pool(params({{0, 1}, {7, 1}, {8, 3}, {18, 1}}), row5);
    EXPECT_EQ(a.shape(), Shape::d3(3, 1, 1));
    expect_near({1.5f, 3, 4.5f}, a);
    Mat m = pool(params({{0, 0}, {7, 1}, {8, 3}, {18, 1}}), row5);
    expect_near({2, 4, 5}, m, 0, 0);
    // 2D: 4x4 -> 3x2 (h windows [0,2) [1,3) [2,4); w windows [0,2) [2,4))
    Mat sq = iota(Shape::d3(4, 4, 2));
    Mat a2 = pool(params({{0, 1}, {7, 1}, {8, 2}, {18, 3}}), sq);
    EXPECT_EQ(a2.shape(), Shape::d3(2, 3, 2));
    expect_near({3.5f, 5.5f, 7.5f, 9.5f, 11.5f, 13.5f, 19.5f, 21.5f, 23.5f, 25.5f, 27.5f, 29.5f}, a2);
}

TEST(Pooling, GlobalPooling) {
    Mat in = rand_mat(Shape::d3(7, 5, 17), 5);
    Mat mx = pool(params({{0, 0}, {4, 1}}), in);
    Mat av = pool(params({{0, 1}, {4, 1}}), in);
    ASSERT_EQ(mx.shape(), Shape::d1(17));
    std::vector<float> wm, wa;
    for (int q = 0; q < 17; q++) {
        float m = -FLT_MAX;
        double s = 0;
        for (int i = 0; i < 35; i++) {
            m = std::max(m, in.data[q * 35 + i]);
            s += in.data[q * 35 + i];
        }
        wm.push_back(m);
        wa.push_back((float)(s / 35));
    }
    expect_near(wm, mx, 0, 0);
    expect_near(wa, av);
    // a 2D input is one channel -> [1]
    Mat g2 = pool(params({{0, 1}, {4, 1}}), mat_of(Shape::d2(2, 2), {1, 2, 3, 4}));
    EXPECT_EQ(g2.shape(), Shape::d1(1));
    expect_near({2.5f}, g2);
}

TEST(Pooling, RandomSweepAgainstWindowLoops) {
    struct Case {
        int C, H, W, k, s, pl, pr, pt, pb, mode, type, include;
    };
    const Case cases[] = {
        {1, 7, 9, 3, 2, 0, 0, 0, 0, 0, 0, 0}, {3, 8, 7, 3, 2, 1, 1, 1, 1, 0, 1, 0}, {5, 9, 9, 2, 2, 0, 0, 0, 0, 0, 1, 0},
        {17, 6, 5, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {3, 10, 11, 3, 3, 1, 2, 0, 1, 0, 1, 1}, {4, 5, 13, 5, 2, 2, 2, 2, 2, 1, 0, 0},
        {2, 9, 6, 3, 2, 0, 1, 1, 0, 0, 1, 0}, {2, 9, 6, 3, 2, 0, 1, 1, 0, 1, 1, 0}, {6, 7, 7, 2, 1, 0, 0, 0, 0, 0, 0, 0},
    };
    uint32_t seed = 20;
    for (const Case& c : cases) {
        SCOPED_TRACE("C" + std::to_string(c.C) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) + " k" +
                     std::to_string(c.k) + " s" + std::to_string(c.s) + " mode " + std::to_string(c.mode) + " type " +
                     std::to_string(c.type) + " include " + std::to_string(c.include));
        ParamDict pd = params({{0, c.type}, {1, c.k}, {2, c.s}, {3, c.pl}, {14, c.pr}, {13, c.pt}, {15, c.pb},
                               {5, c.mode}, {6, c.include}});
        Mat in = rand_mat(Shape::d3(c.W, c.H, c.C), ++seed);
        Mat out = pool(pd, in);
        // full mode rounds the window count up, valid mode down
        auto count = [&](int n, int a, int b) {
            int span = n + a + b - c.k;
            return (c.mode == 0 ? (span + c.s - 1) / c.s : span / c.s) + 1;
        };
        const int OH = count(c.H, c.pt, c.pb), OW = count(c.W, c.pl, c.pr);
        ASSERT_EQ(out.shape(), Shape::d3(OW, OH, c.C));
        std::vector<float> want;
        for (int q = 0; q < c.C; q++)
            for (int y = 0; y < OH; y++)
                for (int x = 0; x < OW; x++) {
                    float m = -FLT_MAX;
                    double s = 0;
                    int n = 0;
                    for (int i = y * c.s - c.pt; i < y * c.s - c.pt + c.k; i++)
                        for (int j = x * c.s - c.pl; j < x * c.s - c.pl + c.k; j++) {
                            if (i < 0 || i >= c.H || j < 0 || j >= c.W)
                                continue;
                            float v = in.data[((size_t)q * c.H + i) * c.W + j];
                            m = std::max(m, v);
                            s += v;
                            n++;
                        }
                    want.push_back(c.type == 0 ? m : (float)(s / (c.include ? c.k * c.k : n)));
                }
        expect_near(want, out);
    }
}

TEST(Pooling, OneAndTwoDInputs) {
    // [w]: one row of one channel -> [1, 1, out_w]
    Mat r = pool(params({{0, 0}, {1, 2}, {11, 1}, {2, 2}, {12, 1}}), mat_of(Shape::d1(5), {3, 1, 4, 1, 5}));
    EXPECT_EQ(r.shape(), Shape::d3(3, 1, 1));
    expect_near({3, 4, 5}, r, 0, 0);  // full mode: tail makes the last window [5, pad]
    // [h,w]: one channel -> [1, oh, ow]
    Mat t = pool(params({{0, 1}, {1, 2}, {2, 2}}), iota(Shape::d2(4, 2)));
    EXPECT_EQ(t.shape(), Shape::d3(2, 1, 1));
    expect_near({3.5f, 5.5f}, t);
}

TEST(Pooling, BadParamsAndShapesAreErrors) {
    auto load = [](ParamDict pd) { return create_layer("Pooling", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 2}, {1, 2}})), ErrorCode::InvalidModel, "pooling_type");
    LT_EXPECT_ERROR(load(params({{1, 2}, {5, 4}})), ErrorCode::InvalidModel, "pad_mode");
    LT_EXPECT_ERROR(load(params({{1, 0}})), ErrorCode::InvalidModel, "kernel");
    LT_EXPECT_ERROR(load(params({{1, 2}, {2, 0}})), ErrorCode::InvalidModel, "stride");
    LT_EXPECT_ERROR(load(params({{1, 2}, {3, -1}})), ErrorCode::InvalidModel, "pads");
    LT_EXPECT_ERROR(load(params({{7, 1}, {8, 0}})), ErrorCode::InvalidModel, "adaptive");
    EXPECT_TRUE(load(params({{4, 1}})).is_ok());  // global pooling needs no kernel
    Built b = build("Pooling", params({{1, 3}, {5, 1}}));
    ASSERT_TRUE(b.st.is_ok());
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 5, 3), 1)}, out), ErrorCode::ShapeMismatch, "smaller");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(5, 5, 2, 3), 1)}, out), ErrorCode::ShapeMismatch, "input");
}
