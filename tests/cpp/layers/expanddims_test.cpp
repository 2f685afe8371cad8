// ExpandDims: every single axis of 1D-3D inputs (numpy's expand_dims shapes), negative axes, the
// legacy flags, ncnn's w+h on 1D, shared buffer, and the combinations ncnn would drop.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

using V = std::vector<int>;

V expand(const ParamDict& pd, const V& in_shape) {
    Built b = build("ExpandDims", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::from_list(in_shape), 3);
    Mat out = run1(*b.layer, {in});
    expect_near(vec(in), out, 0, 0);
    std::vector<Mat> tops(1);
    EXPECT_TRUE(b->forward({in}, tops, Option()).is_ok());
    EXPECT_EQ(tops[0].data, in.data);
    return out.shape().to_list();
}

ParamDict axes(V a) {
    ParamDict pd;
    pd.set_ints(3, a);
    return pd;
}

}  // namespace

TEST(ExpandDims, SingleAxesAsNumpy) {
    // numpy.expand_dims(x, a).shape, written out
    EXPECT_EQ(expand(axes({0}), {5}), V({1, 5}));
    EXPECT_EQ(expand(axes({1}), {5}), V({5, 1}));
    EXPECT_EQ(expand(axes({-1}), {5}), V({5, 1}));
    EXPECT_EQ(expand(axes({0}), {3, 5}), V({1, 3, 5}));
    EXPECT_EQ(expand(axes({1}), {3, 5}), V({3, 1, 5}));
    EXPECT_EQ(expand(axes({2}), {3, 5}), V({3, 5, 1}));
    EXPECT_EQ(expand(axes({-3}), {3, 5}), V({1, 3, 5}));
    EXPECT_EQ(expand(axes({0}), {2, 3, 5}), V({1, 2, 3, 5}));
    EXPECT_EQ(expand(axes({1}), {2, 3, 5}), V({2, 1, 3, 5}));
    EXPECT_EQ(expand(axes({2}), {2, 3, 5}), V({2, 3, 1, 5}));
    EXPECT_EQ(expand(axes({3}), {2, 3, 5}), V({2, 3, 5, 1}));
    EXPECT_EQ(expand(axes({-1}), {2, 3, 5}), V({2, 3, 5, 1}));
}

TEST(ExpandDims, FlagsAndNcnnsOneDCase) {
    EXPECT_EQ(expand(params({{0, 1}}), {5}), V({5, 1}));         // expand_w
    EXPECT_EQ(expand(params({{1, 1}}), {5}), V({1, 5}));         // expand_h
    EXPECT_EQ(expand(params({{0, 1}, {1, 1}}), {5}), V({1, 5, 1}));  // both: ncnn's [1,w,1]
    EXPECT_EQ(expand(axes({0, 1}), {5}), V({1, 5, 1}));
    EXPECT_EQ(expand(params({{2, 1}}), {3, 5}), V({1, 3, 5}));   // expand_c
    EXPECT_EQ(expand(params({{11, 1}}), {2, 3, 5}), V({2, 1, 3, 5}));  // expand_d
    EXPECT_EQ(expand(ParamDict(), {2, 3, 5}), V({2, 3, 5}));     // nothing asked
    EXPECT_EQ(expand(ParamDict(), {2, 2, 3, 5}), V({2, 2, 3, 5}));
}

TEST(ExpandDims, CombinationsNcnnWouldDropAreRefused) {
    std::vector<Mat> out;
    Built two = build("ExpandDims", axes({0, 1}));
    LT_EXPECT_ERROR(run(*two.layer, {rand_mat(Shape::d2(5, 3), 1)}, out), ErrorCode::Unsupported, "one axis at a time");
    Built d2 = build("ExpandDims", params({{11, 1}}));
    LT_EXPECT_ERROR(run(*d2.layer, {rand_mat(Shape::d2(5, 3), 1)}, out), ErrorCode::Unsupported, "by d");
    Built c1 = build("ExpandDims", params({{2, 1}}));
    LT_EXPECT_ERROR(run(*c1.layer, {rand_mat(Shape::d1(5), 1)}, out), ErrorCode::Unsupported, "by c");
    Built four = build("ExpandDims", axes({0}));
    LT_EXPECT_ERROR(run(*four.layer, {rand_mat(Shape::d4(2, 2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "cannot grow");
    Built far = build("ExpandDims", axes({3}));
    LT_EXPECT_ERROR(run(*far.layer, {rand_mat(Shape::d2(2, 2), 1)}, out), ErrorCode::ShapeMismatch, "out of range");
}
