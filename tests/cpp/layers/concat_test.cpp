// Concat: every axis of 1D-4D inputs (negative axes too) against a reference that finds, for each
// output coordinate, the input holding it; odd sizes, one input, shape errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// Reference: output coordinate -> (input, coordinate) by walking the cumulative extents.
std::vector<float> concat_ref(const std::vector<Mat>& in, int axis, std::vector<int>& out_extents) {
    out_extents = in[0].shape().to_list();
    out_extents[axis] = 0;
    for (auto& m : in)
        out_extents[axis] += m.shape().to_list()[axis];
    return expected_by_coord(out_extents, [&](const std::vector<int>& c) {
        std::vector<int> cc = c;
        for (auto& m : in) {
            int n = m.shape().to_list()[axis];
            if (cc[axis] < n)
                return at(m, cc);
            cc[axis] -= n;
        }
        return NAN;
    });
}

Mat concat(int axis, const std::vector<Mat>& in) {
    ParamDict pd;
    pd.set_int(0, axis);
    Built b = build("Concat", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, in);
}

}  // namespace

TEST(Concat, EveryAxisOfEveryDims) {
    uint32_t seed = 1;
    for (int dims = 1; dims <= 4; dims++) {
        const std::vector<int> base = {3, 2, 5, 7};  // odd and uneven extents
        for (int axis = 0; axis < dims; axis++) {
            for (int neg = 0; neg < 2; neg++) {
                std::vector<Mat> in;
                for (int k : {1, 3, 2}) {
                    std::vector<int> e(base.begin(), base.begin() + dims);
                    e[axis] = k;
                    in.push_back(rand_mat(Shape::from_list(e), seed++));
                }
                SCOPED_TRACE("dims " + std::to_string(dims) + " axis " + std::to_string(neg ? axis - dims : axis));
                Mat out = concat(neg ? axis - dims : axis, in);
                std::vector<int> oe;
                std::vector<float> want = concat_ref(in, axis, oe);
                EXPECT_EQ(out.shape().to_list(), oe);
                expect_near(want, out, 0, 0);
            }
        }
    }
}

TEST(Concat, ZooChannelConcatAndSingleInput) {
    // squeezenet fire2: [64,56,56] + [64,56,56] -> [128,56,56] (smaller here)
    Mat a = rand_mat(Shape::d3(5, 4, 3), 1), b = rand_mat(Shape::d3(5, 4, 2), 2);
    Mat out = concat(0, {a, b});
    EXPECT_EQ(out.shape(), Shape::d3(5, 4, 5));
    std::vector<float> want = vec(a);
    for (float v : vec(b))
        want.push_back(v);
    expect_near(want, out, 0, 0);
    // one input: shared, not copied
    Built one = build("Concat", ParamDict());
    std::vector<Mat> tops(1);
    ASSERT_TRUE(one->forward({a}, tops, Option()).is_ok());
    EXPECT_EQ(tops[0].data, a.data);
}

TEST(Concat, ErrorsNameTheShapes) {
    std::vector<Mat> out;
    Built b = build("Concat", params({{0, 1}}));
    ASSERT_TRUE(b.st.is_ok());
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(4, 3, 2), 1), rand_mat(Shape::d3(5, 3, 2), 2)}, out),
                    ErrorCode::ShapeMismatch, "[2,3,5]");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(4, 3, 2), 1), rand_mat(Shape::d2(4, 3), 2)}, out),
                    ErrorCode::ShapeMismatch, "same dims");
    // 1D inputs are joined whatever the axis (ncnn)
    Mat v = rand_mat(Shape::d1(4), 1), u = rand_mat(Shape::d1(3), 2);
    Mat vu = run1(*b.layer, {v, u});
    std::vector<float> want = vec(v);
    for (float x : vec(u))
        want.push_back(x);
    expect_near(want, vu, 0, 0);
    Built n = build("Concat", params({{0, -3}}));
    LT_EXPECT_ERROR(run(*n.layer, {rand_mat(Shape::d2(4, 3), 1)}, out), ErrorCode::ShapeMismatch, "out of range");
    LT_EXPECT_ERROR(create_layer("Concat", false)->load_param(params({{0, 4}})), ErrorCode::InvalidModel, "axis");
}
