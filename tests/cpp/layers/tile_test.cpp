// Tile: axis/tiles on every axis, numpy-style repeats for every input/repeat length combination
// (with ncnn's way of growing a smaller input), identity sharing, errors. Expected values read
// the input at the output coordinates modulo the input extents.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

using V = std::vector<int>;

// The input's extents as ncnn nests them inside an out_dims-D tensor, outermost first: a missing
// outer axis is 1; a 3D [c,h,w] inside 4D is [c,1,h,w].
V promoted(const V& e, int out_dims) {
    if ((int)e.size() == out_dims)
        return e;
    if (e.size() == 3 && out_dims == 4)
        return {e[0], 1, e[1], e[2]};
    V p(out_dims - e.size(), 1);
    p.insert(p.end(), e.begin(), e.end());
    return p;
}

void check_tile(const ParamDict& pd, const V& in_shape, const V& want_shape) {
    Built b = build("Tile", pd);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::from_list(in_shape), 7);
    Mat out = run1(*b.layer, {in});
    ASSERT_EQ(out.shape().to_list(), want_shape);
    const V pe = promoted(in_shape, (int)want_shape.size());
    Mat view;
    ASSERT_TRUE(in.reshape(Shape::from_list(pe), view).is_ok());
    expect_near(expected_by_coord(want_shape,
                                  [&](const V& c) {
                                      V ic(c.size());
                                      for (size_t k = 0; k < c.size(); k++)
                                          ic[k] = c[k] % pe[k];
                                      return at(view, ic);
                                  }),
                out, 0, 0);
}

ParamDict reps(V r) {
    ParamDict pd;
    pd.set_ints(2, r);
    return pd;
}

}  // namespace

TEST(Tile, AxisAndTiles) {
    check_tile(params({{1, 3}}), {5}, {15});
    check_tile(params({{0, 0}, {1, 2}}), {3, 5}, {6, 5});
    check_tile(params({{0, 1}, {1, 2}}), {3, 5}, {3, 10});
    check_tile(params({{0, 0}, {1, 3}}), {2, 3, 5}, {6, 3, 5});
    check_tile(params({{0, 1}, {1, 2}}), {2, 3, 5}, {2, 6, 5});
    check_tile(params({{0, 2}, {1, 2}}), {2, 3, 5}, {2, 3, 10});
    check_tile(params({{0, 1}, {1, 3}}), {2, 2, 3, 5}, {2, 6, 3, 5});
    check_tile(params({{0, 3}, {1, 2}}), {2, 2, 3, 5}, {2, 2, 3, 10});
}

TEST(Tile, Repeats) {
    check_tile(reps({2}), {5}, {10});
    check_tile(reps({2, 3}), {5}, {2, 15});
    check_tile(reps({2, 1, 3}), {5}, {2, 1, 15});
    check_tile(reps({2, 2, 1, 3}), {5}, {2, 2, 1, 15});
    check_tile(reps({3}), {2, 5}, {2, 15});
    check_tile(reps({3, 2}), {2, 5}, {6, 10});
    check_tile(reps({2, 1, 1}), {2, 5}, {2, 2, 5});
    check_tile(reps({2, 3, 1, 1}), {2, 5}, {2, 3, 2, 5});
    check_tile(reps({2, 1, 3}), {2, 3, 5}, {4, 3, 15});
    check_tile(reps({2, 2}), {2, 3, 5}, {2, 6, 10});
    // 3D inside 4D: ncnn's [c*rc, rd, h*rh, w*rw]
    check_tile(reps({2, 3, 1, 1}), {2, 3, 5}, {4, 3, 3, 5});
    check_tile(reps({3, 1, 2}), {2, 2, 3, 5}, {2, 6, 3, 10});
    check_tile(reps({2, 2, 2, 2}), {2, 1, 3, 1}, {4, 2, 6, 2});
}

TEST(Tile, IdentitySharesAndErrors) {
    Mat in = rand_mat(Shape::d3(5, 3, 2), 1);
    for (const ParamDict& pd : {ParamDict(), reps({1, 1, 1})}) {
        Built b = build("Tile", pd);
        std::vector<Mat> tops(1);
        ASSERT_TRUE(b->forward({in}, tops, Option()).is_ok());
        EXPECT_EQ(tops[0].data, in.data);
    }
    std::vector<Mat> out;
    Built ax = build("Tile", params({{0, 3}, {1, 2}}));
    LT_EXPECT_ERROR(run(*ax.layer, {in}, out), ErrorCode::ShapeMismatch, "out of range");
    Built big = build("Tile", reps({1, 1, 1000000000}));
    LT_EXPECT_ERROR(run(*big.layer, {in}, out), ErrorCode::ShapeMismatch, "too large");
    LT_EXPECT_ERROR(create_layer("Tile", false)->load_param(params({{1, 0}})), ErrorCode::InvalidModel, "tiles");
    LT_EXPECT_ERROR(create_layer("Tile", false)->load_param(reps({2, 0})), ErrorCode::InvalidModel, "repeats");
    LT_EXPECT_ERROR(create_layer("Tile", false)->load_param(reps({1, 1, 1, 1, 1})), ErrorCode::InvalidModel, "at most 4");
}
