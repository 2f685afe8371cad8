// Reshape: -1 inference, 0 = keep by name, 1D-4D targets (d, and d ignored without c as in ncnn),
// the zoo's two reshapes, the shared buffer, the permute flag (channel-last reshape) against
// explicit loops, and errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

ParamDict rp(int w, int h = -233, int c = -233, int d = -233, int permute = 0) {
    ParamDict pd;
    pd.set_int(0, w);
    if (h != -233)
        pd.set_int(1, h);
    if (c != -233)
        pd.set_int(2, c);
    if (d != -233)
        pd.set_int(11, d);
    if (permute)
        pd.set_int(3, permute);
    return pd;
}

Mat reshape(const ParamDict& pd, const Mat& in) {
    Built b = build("Reshape", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, {in});
}

}  // namespace

TEST(Reshape, ZooCasesShareTheBuffer) {
    // vision_transformer: [768,12,12] 0=-1 1=768 -> [768,144] (smaller here: [6,3,4] -> [6,12])
    Mat in = rand_mat(Shape::d3(4, 3, 6), 1);
    Built b = build("Reshape", rp(-1, 6));
    std::vector<Mat> tops(1);
    ASSERT_TRUE(b->forward({in}, tops, Option()).is_ok());
    EXPECT_EQ(tops[0].shape(), Shape::d2(12, 6));
    EXPECT_EQ(tops[0].data, in.data);  // a view, not a copy
    expect_near(vec(in), tops[0], 0, 0);
    // mobilenet_ssd: [40257] 0=21 1=-1 -> [1917,21]
    Mat conf = rand_mat(Shape::d1(21 * 5), 2);
    EXPECT_EQ(reshape(rp(21, -1), conf).shape(), Shape::d2(21, 5));
}

TEST(Reshape, KeepInferAndDims) {
    Mat in = rand_mat(Shape::d3(5, 6, 4), 3);  // [c=4,h=6,w=5], 120 values
    // 0 keeps the input's extent of the same name: w 5, c 4 -> h = 120 / 20
    EXPECT_EQ(reshape(rp(0, -1, 4), in).shape(), Shape::d3(5, 6, 4));
    EXPECT_EQ(reshape(rp(0, -1, 2), in).shape(), Shape::d3(5, 12, 2));
    EXPECT_EQ(reshape(rp(-1), in).shape(), Shape::d1(120));
    EXPECT_EQ(reshape(rp(10, -1, 2, 3), in).shape(), Shape::d4(10, 2, 3, 2));
    EXPECT_EQ(reshape(rp(5, 4, -1, 2), in).shape(), Shape::d4(5, 4, 2, 3));
    // d without c: ncnn's chain makes it 2D and ignores d
    EXPECT_EQ(reshape(rp(6, -1, -233, 7), in).shape(), Shape::d2(6, 20));
    // 4D input, 0 keeps d
    Mat t = rand_mat(Shape::d4(3, 2, 5, 2), 4);
    Mat o = reshape(rp(0, 0, -1, 0), t);
    EXPECT_EQ(o.shape(), Shape::d4(3, 2, 5, 2));
    expect_near(vec(t), o, 0, 0);
}

TEST(Reshape, PermuteReadsChannelLast) {
    // 3D [c=2,h=3,w=4]: the channel-last sequence is in(y,x,q) with q innermost
    Mat in = rand_mat(Shape::d3(4, 3, 2), 5);
    std::vector<float> hwc;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            for (int q = 0; q < 2; q++)
                hwc.push_back(at(in, {q, y, x}));
    // to 1D: the sequence itself
    expect_near(hwc, reshape(rp(24, -233, -233, -233, 1), in), 0, 0);
    // to 3D [c=3,h=2,w=4]: output(q,y,x) = sequence[(y*4 + x)*3 + q]
    Mat o3 = reshape(rp(4, 2, 3, -233, 1), in);
    EXPECT_EQ(o3.shape(), Shape::d3(4, 2, 3));
    expect_near(expected_by_coord({3, 2, 4}, [&](const std::vector<int>& c) { return hwc[(c[1] * 4 + c[2]) * 3 + c[0]]; }),
                o3, 0, 0);
    // to 2D [h=6,w=4]: the sequence read column by column, output(y,x) = sequence[x*6 + y]
    Mat o2 = reshape(rp(4, 6, -233, -233, 1), in);
    expect_near(expected_by_coord({6, 4}, [&](const std::vector<int>& c) { return hwc[c[1] * 6 + c[0]]; }), o2, 0, 0);
    // 2D input [h=2,w=6] -> [h=3,w=4]: the input is read column by column too
    Mat m = rand_mat(Shape::d2(6, 2), 6);
    std::vector<float> cols;
    for (int x = 0; x < 6; x++)
        for (int y = 0; y < 2; y++)
            cols.push_back(at(m, {y, x}));
    Mat p2 = reshape(rp(4, 3, -233, -233, 1), m);
    expect_near(expected_by_coord({3, 4}, [&](const std::vector<int>& c) { return cols[c[1] * 3 + c[0]]; }), p2, 0, 0);
    // ncnn skips the permutation when the outermost extent stays: a plain reshape
    expect_near(vec(in), reshape(rp(6, 2, 2, -233, 1), in), 0, 0);
    expect_near(vec(m), reshape(rp(6, 2, -233, -233, 1), m), 0, 0);
}

TEST(Reshape, Errors) {
    std::vector<Mat> out;
    Mat in = rand_mat(Shape::d3(5, 6, 4), 3);
    Built grow = build("Reshape", rp(7, 7));
    LT_EXPECT_ERROR(run(*grow.layer, {in}, out), ErrorCode::ShapeMismatch, "changes the element count");
    Built indiv = build("Reshape", rp(7, -1));
    LT_EXPECT_ERROR(run(*indiv.layer, {in}, out), ErrorCode::ShapeMismatch, "cannot infer");
    auto l = create_layer("Reshape", false);
    LT_EXPECT_ERROR(l->load_param(rp(-1, -1)), ErrorCode::InvalidModel, "only one");
    LT_EXPECT_ERROR(l->load_param(ParamDict()), ErrorCode::InvalidModel, "at least w");
    LT_EXPECT_ERROR(l->load_param(rp(4, -5)), ErrorCode::InvalidModel, "h (param 1)");
    LT_EXPECT_ERROR(l->load_param(rp(4, 2, 3, 2, 1)), ErrorCode::Unsupported, "permute");
    ParamDict expr = rp(4);
    expr.set_string(6, "[size(@0,0),-1]");
    LT_EXPECT_ERROR(l->load_param(expr), ErrorCode::Unsupported, "param 6");
    Built p4 = build("Reshape", rp(-1, -233, -233, -233, 1));
    LT_EXPECT_ERROR(run(*p4.layer, {rand_mat(Shape::d4(2, 2, 2, 2), 1)}, out), ErrorCode::Unsupported, "4D input");
}
