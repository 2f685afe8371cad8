// Slice: slices with -233 (the rest, even shares), the indices form, every axis of 1D-4D inputs
// (negative too), parts that leave a remainder; each part against coordinate-wise copies; errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

ParamDict slice_params(std::vector<int> slices, int axis, std::vector<int> indices = {}) {
    ParamDict pd;
    if (!slices.empty())
        pd.set_ints(0, slices);
    pd.set_int(1, axis);
    if (!indices.empty())
        pd.set_ints(2, indices);
    return pd;
}

// Runs Slice with `ntops` tops and checks each against the input window [start, start + size).
void check_slice(const ParamDict& pd, const Mat& in, int axis, const std::vector<int>& want_sizes) {
    Built b = build("Slice", pd);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Mat> out;
    Status st = run(*b.layer, {in}, out, want_sizes.size());
    ASSERT_TRUE(st.is_ok()) << st.message();
    std::vector<int> e = in.shape().to_list();
    int start = 0;
    for (size_t i = 0; i < want_sizes.size(); i++) {
        std::vector<int> oe = e;
        oe[axis] = want_sizes[i];
        EXPECT_EQ(out[i].shape().to_list(), oe) << "top " << i;
        expect_near(expected_by_coord(oe,
                                      [&](const std::vector<int>& c) {
                                          std::vector<int> cc = c;
                                          cc[axis] += start;
                                          return at(in, cc);
                                      }),
                    out[i], 0, 0);
        start += want_sizes[i];
    }
}

}  // namespace

TEST(Slice, ShufflenetHalves) {
    // shufflenet_v2: -23300=2,116,-233 on [232,14,14]; here [10,3,5] -> 4 and the rest
    Mat in = rand_mat(Shape::d3(5, 3, 10), 1);
    check_slice(slice_params({4, -233}, 0), in, 0, {4, 6});
}

TEST(Slice, EqualSharesOfTheRest) {
    Mat v = rand_mat(Shape::d1(9), 2);
    check_slice(slice_params({-233, -233, -233}, 0), v, 0, {3, 3, 3});
    // (7 - 0) / 2 = 3, then the remaining 4
    check_slice(slice_params({-233, -233}, 0), rand_mat(Shape::d1(7), 3), 0, {3, 4});
    // 2 first, then (9 - 2) / 2 = 3 and 4
    check_slice(slice_params({2, -233, -233}, 0), v, 0, {2, 3, 4});
}

TEST(Slice, EveryAxisOfEveryDims) {
    uint32_t seed = 10;
    const std::vector<int> base = {5, 7, 6, 9};
    for (int dims = 1; dims <= 4; dims++)
        for (int axis = 0; axis < dims; axis++) {
            std::vector<int> e(base.begin() + (4 - dims), base.end());
            Mat in = rand_mat(Shape::from_list(e), seed++);
            const int n = e[axis];
            SCOPED_TRACE("dims " + std::to_string(dims) + " axis " + std::to_string(axis));
            check_slice(slice_params({1, -233}, axis), in, axis, {1, n - 1});
            check_slice(slice_params({2, 1, -233}, axis - dims), in, axis, {2, 1, n - 3});
        }
}

TEST(Slice, IndicesForm) {
    Mat in = rand_mat(Shape::d2(10, 3), 4);
    // ends at 2 and at 10 - 3 = 7, the last top takes the rest
    check_slice(slice_params({}, 1, {2, -3}), in, 1, {2, 5, 3});
    // indices win over slices; 4D along d
    Mat t = rand_mat(Shape::d4(2, 3, 5, 2), 5);
    check_slice(slice_params({1, 1}, 1, {3}), t, 1, {3, 2});
}

TEST(Slice, PartsNeedNotCoverTheAxis) {
    // ncnn leaves what is after the last part out
    check_slice(slice_params({2, 3}, 0), rand_mat(Shape::d1(10), 6), 0, {2, 3});
}

TEST(Slice, Errors) {
    std::vector<Mat> out;
    Mat in = rand_mat(Shape::d3(4, 3, 6), 1);
    Built over = build("Slice", slice_params({4, 4}, 0));
    LT_EXPECT_ERROR(run(*over.layer, {in}, out, 2), ErrorCode::ShapeMismatch, "outside axis 0");
    Built few = build("Slice", slice_params({2}, 0));
    LT_EXPECT_ERROR(run(*few.layer, {in}, out, 2), ErrorCode::ShapeMismatch, "only 1 slices");
    Built back = build("Slice", slice_params({}, 0, {4, 2}));
    LT_EXPECT_ERROR(run(*back.layer, {in}, out, 3), ErrorCode::ShapeMismatch, "empty");
    Built axis = build("Slice", slice_params({1, -233}, 3));
    LT_EXPECT_ERROR(run(*axis.layer, {in}, out, 2), ErrorCode::ShapeMismatch, "out of range");
    Built share = build("Slice", slice_params({-233, -233, -233, -233}, 2));
    LT_EXPECT_ERROR(run(*share.layer, {rand_mat(Shape::d3(3, 2, 2), 1)}, out, 4), ErrorCode::ShapeMismatch, "empty");
    auto l = create_layer("Slice", false);
    LT_EXPECT_ERROR(l->load_param(ParamDict()), ErrorCode::InvalidModel, "slices (param 0)");
    LT_EXPECT_ERROR(l->load_param(slice_params({2, 0}, 0)), ErrorCode::InvalidModel, "positive or -233");
    LT_EXPECT_ERROR(l->load_param(slice_params({2, -1}, 0)), ErrorCode::InvalidModel, "positive or -233");
}
