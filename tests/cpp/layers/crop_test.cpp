// Crop: the param form (offsets, out sizes, -233, offset2 measured from the end), the numpy-style
// starts/ends/axes form (negative values, -233, ncnn's end 0 = to the end, 2D/3D/4D axis order),
// the reference-blob form, each against slices taken by explicit loops; errors.
#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// in[c][d][h][w] sliced at offsets with extents (explicit loops).
std::vector<float> slice(const Mat& in, int c0, int nc, int d0, int nd, int h0, int nh, int w0, int nw) {
    Shape s = in.shape();
    std::vector<float> out;
    for (int q = c0; q < c0 + nc; q++)
        for (int z = d0; z < d0 + nd; z++)
            for (int y = h0; y < h0 + nh; y++)
                for (int x = w0; x < w0 + nw; x++)
                    out.push_back(in.data[(((size_t)q * s.d + z) * s.h + y) * s.w + x]);
    return out;
}

Mat crop1(ParamDict pd, const Mat& in) {
    Built b = build("Crop", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    EXPECT_TRUE(b->one_blob_only);
    return run1(*b.layer, {in});
}

ParamDict slice_params(std::vector<int> starts, std::vector<int> ends, std::vector<int> axes) {
    ParamDict pd;
    pd.set_ints(9, starts);
    pd.set_ints(10, ends);
    if (!axes.empty())
        pd.set_ints(11, axes);
    return pd;
}

}  // namespace

TEST(Crop, ParamForm) {
    Mat in = rand_mat(Shape::d3(5, 3, 8), 1);
    // yolov4-tiny's channel split: 2=coffset 3=outw 4=outh 5=outc
    Mat a = crop1(params({{2, 4}, {3, 5}, {4, 3}, {5, 4}}), in);
    EXPECT_EQ(a.shape(), Shape::d3(5, 3, 4));
    expect_near(slice(in, 4, 4, 0, 1, 0, 3, 0, 5), a, 0, 0);
    // offsets from both ends: w = 5 - 1 - 2, outw -233 = no cap; outh 1 caps 3 - 1
    Mat b = crop1(params({{0, 1}, {6, 2}, {3, -233}, {1, 1}, {4, 1}, {5, -233}}), in);
    EXPECT_EQ(b.shape(), Shape::d3(2, 1, 8));
    expect_near(slice(in, 0, 8, 0, 1, 1, 1, 1, 2), b, 0, 0);
    // coffset2 from the end of the channels
    Mat c = crop1(params({{8, 3}, {3, -233}, {4, -233}, {5, -233}}), in);
    expect_near(slice(in, 0, 5, 0, 1, 0, 3, 0, 5), c, 0, 0);
    // 1D and 2D
    Mat v = rand_mat(Shape::d1(9), 2);
    expect_near(slice(v, 0, 1, 0, 1, 0, 1, 2, 4), crop1(params({{0, 2}, {3, 4}}), v), 0, 0);
    Mat m = rand_mat(Shape::d2(6, 4), 3);
    expect_near(slice(m, 0, 1, 0, 1, 1, 2, 3, 3), crop1(params({{0, 3}, {1, 1}, {3, -233}, {4, 2}}), m), 0, 0);
    // 4D depth
    Mat t = rand_mat(Shape::d4(3, 2, 5, 2), 4);
    Mat td = crop1(params({{13, 1}, {14, 3}, {3, -233}, {4, -233}, {5, -233}}), t);
    EXPECT_EQ(td.shape(), Shape::d4(3, 2, 3, 2));
    expect_near(slice(t, 0, 2, 1, 3, 0, 2, 0, 3), td, 0, 0);
}

TEST(Crop, NumpySlices) {
    Mat in = rand_mat(Shape::d3(7, 5, 4), 5);
    // w from 1 to -1
    expect_near(slice(in, 0, 4, 0, 1, 0, 5, 1, 5), crop1(slice_params({1}, {-1}, {2}), in), 0, 0);
    // negative axis and start, end -233 = to the end
    expect_near(slice(in, 0, 4, 0, 1, 0, 5, 5, 2), crop1(slice_params({-2}, {-233}, {-1}), in), 0, 0);
    // ncnn reads end 0 as size + 0: to the end
    expect_near(slice(in, 0, 4, 0, 1, 2, 3, 0, 7), crop1(slice_params({2}, {0}, {1}), in), 0, 0);
    // no axes: one start/end per dim, outermost first (c, h, w); end past the size is clamped
    expect_near(slice(in, 1, 2, 0, 1, 0, 4, 3, 4), crop1(slice_params({1, 0, 3}, {3, 4, 100}, {}), in), 0, 0);
    // several axes at once
    expect_near(slice(in, 2, 2, 0, 1, 1, 1, 0, 7), crop1(slice_params({1, 2}, {2, 4}, {1, 0}), in), 0, 0);
    // 2D: axis 0 is h (vision_transformer's cls token: -23309=1,0 -23310=1,1 -23311=1,0)
    Mat m = rand_mat(Shape::d2(6, 5), 6);
    Mat cls = crop1(slice_params({0}, {1}, {0}), m);
    EXPECT_EQ(cls.shape(), Shape::d2(6, 1));
    expect_near(slice(m, 0, 1, 0, 1, 0, 1, 0, 6), cls, 0, 0);
    // 4D: axis 1 is d
    Mat t = rand_mat(Shape::d4(2, 3, 4, 2), 7);
    expect_near(slice(t, 0, 2, 1, 2, 0, 3, 0, 2), crop1(slice_params({1}, {3}, {1}), t), 0, 0);
}

TEST(Crop, ReferenceBlobForm) {
    Built b = build("Crop", params({{0, 1}, {1, 2}, {2, 1}}));
    ASSERT_TRUE(b.st.is_ok());
    EXPECT_FALSE(b->one_blob_only);
    Mat in = rand_mat(Shape::d3(6, 5, 4), 8);
    Mat out = run1(*b.layer, {in, rand_mat(Shape::d3(3, 2, 2), 9)});
    EXPECT_EQ(out.shape(), Shape::d3(3, 2, 2));
    expect_near(slice(in, 1, 2, 0, 1, 2, 2, 1, 3), out, 0, 0);
    // a 2D reference keeps the input's channel count (ncnn: outc = channels, from coffset), so
    // with coffset 1 it would reach past the last channel
    std::vector<Mat> tops;
    LT_EXPECT_ERROR(run(*b.layer, {in, rand_mat(Shape::d2(4, 3), 9)}, tops), ErrorCode::ShapeMismatch, "outside");
    Built b0 = build("Crop", params({{0, 1}, {1, 2}}));
    Mat out2 = run1(*b0.layer, {in, rand_mat(Shape::d2(4, 3), 9)});
    expect_near(slice(in, 0, 4, 0, 1, 2, 3, 1, 4), out2, 0, 0);
}

TEST(Crop, BadParamsAndShapesAreErrors) {
    std::vector<Mat> out;
    Mat in = rand_mat(Shape::d3(5, 4, 3), 1);
    // woffset only: outw stays 0, an empty crop (ncnn fails on it too)
    Built e = build("Crop", params({{0, 1}, {6, 1}}));
    LT_EXPECT_ERROR(run(*e.layer, {in}, out), ErrorCode::ShapeMismatch, "empty or outside");
    // outw caps the extent left after the offset: w 5 - woffset 4 = 1 < 3
    expect_near(slice(in, 0, 3, 0, 1, 0, 4, 4, 1), crop1(params({{0, 4}, {3, 3}, {4, -233}, {5, -233}}), in), 0, 0);
    Built o = build("Crop", params({{0, 6}, {3, 3}, {4, -233}, {5, -233}}));
    LT_EXPECT_ERROR(run(*o.layer, {in}, out), ErrorCode::ShapeMismatch, "empty or outside");
    Built s = build("Crop", slice_params({7}, {9}, {2}));
    LT_EXPECT_ERROR(run(*s.layer, {in}, out), ErrorCode::ShapeMismatch, "outside");
    Built ax = build("Crop", slice_params({0}, {1}, {3}));
    LT_EXPECT_ERROR(run(*ax.layer, {in}, out), ErrorCode::ShapeMismatch, "axis");
    Built nx = build("Crop", slice_params({0}, {1}, {}));
    LT_EXPECT_ERROR(run(*nx.layer, {in}, out), ErrorCode::ShapeMismatch, "fewer values");
    LT_EXPECT_ERROR(create_layer("Crop", false)->load_param(slice_params({0}, {1}, {0, 1})), ErrorCode::InvalidModel,
                    "one value per axis");
    Built r = build("Crop", ParamDict());
    LT_EXPECT_ERROR(run(*r.layer, {in}, out), ErrorCode::ShapeMismatch, "reference");
    LT_EXPECT_ERROR(run(*r.layer, {in, rand_mat(Shape::d3(6, 4, 3), 1)}, out), ErrorCode::ShapeMismatch, "outside");
}

// A crop of whole channels is a view of its input (no copy). An in-place layer after it (ReLU) must
// not write through into the blob the other branch still reads: the other branch sees the input
// unchanged and the cropped branch its own rectified channels, optimized and reference layers alike.
TEST(Crop, ChannelViewUnderAnInPlaceConsumer) {
    const Graph g = test::graph_from_text("7767517\n5 6\n"
                                          "Input in 0 1 data 0=5 1=4 2=6\n"
                                          "Split sp 1 2 data d0 d1\n"
                                          "Crop cc 1 1 d0 c 2=2 3=5 4=4 5=3\n"
                                          "ReLU r 1 1 c rc\n"
                                          "BinaryOp mul 1 1 d1 o 0=2 1=1 2=1.0\n");
    std::vector<float> x(5 * 4 * 6);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = (i % 3 == 0 ? -1.f : 1.f) * (0.25f + (float)i);  // a third negative, in every channel
    for (bool optimized : {true, false}) {
        SCOPED_TRACE(optimized ? "optimized" : "reference");
        auto out = test::run_graph(g, {{"data", test::make_mat({6, 4, 5}, x)}}, {"rc", "o"}, optimized);
        ASSERT_EQ(out.count("rc"), 1u);
        ASSERT_EQ(out.count("o"), 1u);
        EXPECT_EQ(test::to_vector(out["o"]), x);
        std::vector<float> want;
        for (size_t i = 2 * 20; i < 5 * 20; i++)
            want.push_back(x[i] > 0.f ? x[i] : 0.f);
        EXPECT_EQ(test::to_vector(out["rc"]), want);
    }
}
