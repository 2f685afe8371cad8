// Eltwise: prod / sum / max over 1..5 inputs of every rank, sum with coeffs (ncnn's left-to-right
// accumulation), hand values, and errors (op type, mixed shapes, too few coeffs).
#include <algorithm>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Eltwise, HandValues) {
    Mat a = mat_of(Shape::d1(3), {1.f, -2.f, 3.f});
    Mat b = mat_of(Shape::d1(3), {4.f, 5.f, -6.f});
    Mat c = mat_of(Shape::d1(3), {0.5f, 2.f, 1.f});
    expect_same_floats({2.f, -20.f, -18.f}, vec(run1(*build("Eltwise", params({{0, 0}})).layer, {a, b, c})));
    expect_same_floats({5.5f, 5.f, -2.f}, vec(run1(*build("Eltwise", params({{0, 1}})).layer, {a, b, c})));
    expect_same_floats({4.f, 5.f, 3.f}, vec(run1(*build("Eltwise", params({{0, 2}})).layer, {a, b, c})));
    ParamDict pd = params({{0, 1}});
    pd.set_floats(1, {2.f, -1.f, 4.f});
    expect_same_floats({0.f, -1.f, 16.f}, vec(run1(*build("Eltwise", pd).layer, {a, b, c})));
    // the default op_type is prod
    expect_same_floats({4.f, -10.f, -18.f}, vec(run1(*build("Eltwise", ParamDict()).layer, {a, b})));
}

TEST(Eltwise, EveryOpManyInputs) {
    uint32_t seed = 1;
    for (int op = 0; op < 3; op++)
        for (int n = 1; n <= 5; n++)
            for (int coeffs = 0; coeffs < (op == 1 ? 2 : 1); coeffs++)
                for (const Shape& s : odd_shapes()) {
                    SCOPED_TRACE("op " + std::to_string(op) + " inputs " + std::to_string(n) + " on " + s.str());
                    ParamDict pd = params({{0, op}});
                    std::vector<float> cf;
                    for (int i = 0; i < n + 1; i++)  // one extra coeff: ignored, as in ncnn
                        cf.push_back(0.5f * (i + 1) * (i % 2 ? -1.f : 1.f));
                    if (coeffs)
                        pd.set_floats(1, cf);
                    std::vector<Mat> in;
                    for (int i = 0; i < n; i++)
                        in.push_back(rand_mat(s, ++seed, -2.f, 2.f));
                    std::vector<float> want(in[0].total_floats());
                    for (size_t k = 0; k < want.size(); k++) {
                        double acc = coeffs ? in[0].data[k] * (double)cf[0] : in[0].data[k];
                        for (int i = 1; i < n; i++) {
                            double x = in[i].data[k];
                            acc = op == 0 ? acc * x : op == 2 ? std::max(acc, x) : acc + (coeffs ? x * cf[i] : x);
                        }
                        want[k] = (float)acc;
                    }
                    Built b = build("Eltwise", pd);
                    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
                    expect_near(want, run1(*b.layer, in), 1e-5f, 1e-6f);
                }
}

TEST(Eltwise, Errors) {
    LT_EXPECT_ERROR(create_layer("Eltwise", false)->load_param(params({{0, 3}})), ErrorCode::InvalidModel, "op_type");
    LT_EXPECT_ERROR(create_layer("Eltwise", false)->load_param(params({{0, -1}})), ErrorCode::InvalidModel, "op_type");
    std::vector<Mat> out;
    Built sum = build("Eltwise", params({{0, 1}}));
    LT_EXPECT_ERROR(run(*sum.layer, {rand_mat(Shape::d3(2, 2, 3), 1), rand_mat(Shape::d3(2, 2, 4), 2)}, out),
                    ErrorCode::ShapeMismatch, "input 1 is [4,2,2]");
    // same element count, other rank: still an error
    LT_EXPECT_ERROR(run(*sum.layer, {rand_mat(Shape::d1(4), 1), rand_mat(Shape::d2(2, 2), 2)}, out),
                    ErrorCode::ShapeMismatch, "one shape");
    ParamDict pd = params({{0, 1}});
    pd.set_floats(1, {1.f, 2.f});
    Built weighted = build("Eltwise", pd);
    LT_EXPECT_ERROR(run(*weighted.layer, {rand_mat(Shape::d1(4), 1), rand_mat(Shape::d1(4), 2), rand_mat(Shape::d1(4), 3)},
                        out),
                    ErrorCode::ShapeMismatch, "2 coeffs");
    std::vector<Shape> tops(1);
    LT_EXPECT_ERROR(sum->infer_shape({}, tops), ErrorCode::ShapeMismatch, "at least one input");
}
