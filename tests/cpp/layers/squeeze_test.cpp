// Squeeze: the flags and the axes form for 1D-4D inputs, axes of extent > 1 kept (as ncnn),
// everything squeezed to [1], shared buffer, errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<int> squeeze(const ParamDict& pd, const std::vector<int>& in_shape) {
    Built b = build("Squeeze", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::from_list(in_shape), 3);
    Mat out = run1(*b.layer, {in});
    expect_near(vec(in), out, 0, 0);
    std::vector<Mat> tops(1);
    EXPECT_TRUE(b->forward({in}, tops, Option()).is_ok());
    EXPECT_EQ(tops[0].data, in.data);
    return out.shape().to_list();
}

ParamDict axes(std::vector<int> a) {
    ParamDict pd;
    pd.set_ints(3, a);
    return pd;
}

using V = std::vector<int>;

}  // namespace

TEST(Squeeze, Flags) {
    EXPECT_EQ(squeeze(params({{0, 1}}), {3, 1}), V({3}));          // w
    EXPECT_EQ(squeeze(params({{1, 1}}), {1, 5}), V({5}));          // h
    EXPECT_EQ(squeeze(params({{0, 1}, {1, 1}}), {1, 1}), V({1}));  // everything
    EXPECT_EQ(squeeze(params({{2, 1}}), {1, 4, 5}), V({4, 5}));    // c
    EXPECT_EQ(squeeze(params({{1, 1}, {2, 1}}), {1, 1, 5}), V({5}));
    EXPECT_EQ(squeeze(params({{0, 1}, {1, 1}}), {3, 1, 1}), V({3}));
    EXPECT_EQ(squeeze(params({{11, 1}}), {3, 1, 4, 5}), V({3, 4, 5}));  // d
    EXPECT_EQ(squeeze(params({{11, 1}, {2, 1}}), {1, 1, 4, 5}), V({4, 5}));
    EXPECT_EQ(squeeze(params({{0, 1}, {1, 1}, {11, 1}, {2, 1}}), {1, 1, 1, 1}), V({1}));
    // a flag on an extent other than 1 does nothing; d on 3D does not exist
    EXPECT_EQ(squeeze(params({{0, 1}}), {3, 2}), V({3, 2}));
    EXPECT_EQ(squeeze(params({{11, 1}}), {1, 4, 5}), V({1, 4, 5}));
}

TEST(Squeeze, Axes) {
    EXPECT_EQ(squeeze(axes({0}), {1, 4, 5}), V({4, 5}));
    EXPECT_EQ(squeeze(axes({-1}), {4, 5, 1}), V({4, 5}));
    EXPECT_EQ(squeeze(axes({1}), {4, 1, 5}), V({4, 5}));
    EXPECT_EQ(squeeze(axes({1, 2}), {4, 1, 1, 5}), V({4, 5}));
    EXPECT_EQ(squeeze(axes({0, 3}), {1, 3, 2, 1}), V({3, 2}));
    EXPECT_EQ(squeeze(axes({0}), {1}), V({1}));
    // the flags are ignored when axes are given; an axis of extent 4 stays (ncnn)
    ParamDict both = axes({0});
    both.set_int(0, 1);
    EXPECT_EQ(squeeze(both, {1, 3, 1}), V({3, 1}));
    EXPECT_EQ(squeeze(axes({1}), {1, 4, 5}), V({1, 4, 5}));
}

TEST(Squeeze, Errors) {
    std::vector<Mat> out;
    Built b = build("Squeeze", axes({2}));
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(3, 1), 1)}, out), ErrorCode::ShapeMismatch, "out of range");
    LT_EXPECT_ERROR(create_layer("Squeeze", false)->load_param(axes({0, 1, 2, 3, 0})), ErrorCode::InvalidModel, "at most 4");
    LT_EXPECT_ERROR(create_layer("Squeeze", false)->load_param(axes({7})), ErrorCode::InvalidModel, "outside");
}
