// InnerProduct against a plain matrix-vector product: ncnn's input forms (1D, 2D row-wise when
// h > 1, 2D with one row flattened, 3D flattened in c,h,w order), every fused activation, int8
// weight specs and error paths.
#include "layers/innerproduct.h"

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> matvec(const std::vector<float>& x, size_t rows, int n, const std::vector<float>& w,
                          const std::vector<float>& b, int O, int act, const std::vector<float>& ap) {
    std::vector<float> y;
    for (size_t r = 0; r < rows; r++)
        for (int o = 0; o < O; o++) {
            double s = b.empty() ? 0.0 : b[o];
            for (int i = 0; i < n; i++)
                s += (double)x[r * n + i] * w[(size_t)o * n + i];
            y.push_back(act_ref(act, (float)s, ap));
        }
    return y;
}

}  // namespace

TEST(InnerProduct, InputFormsAsNcnn) {
    const int O = 5;
    struct Case {
        Shape in;
        int num_input;
        Shape out;
        size_t rows;
    };
    const Case cases[] = {
        {Shape::d1(17), 17, Shape::d1(O), 1},
        {Shape::d2(7, 3), 7, Shape::d2(O, 3), 3},     // one product per row
        {Shape::d2(7, 1), 7, Shape::d1(O), 1},        // a single row is flattened (ncnn: h > 1 only)
        {Shape::d2(3, 5), 15, Shape::d1(O), 1},       // other widths are flattened
        {Shape::d3(3, 2, 5), 30, Shape::d1(O), 1},    // [c,h,w] flattened
        {Shape::d3(1, 1, 17), 17, Shape::d1(O), 1},   // after a global pooling
    };
    uint32_t seed = 800;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.in.str());
        ParamDict pd = params({{0, O}, {1, 1}, {2, O * c.num_input}});
        auto w = random_weights("InnerProduct", pd, ++seed);
        Built b = build("InnerProduct", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(c.in, ++seed);
        Mat out = run1(*b.layer, {in});
        EXPECT_EQ(out.shape(), c.out);
        expect_near(matvec(vec(in), c.rows, c.num_input, w[0], w[1], O, 0, {}), out);
    }
}

TEST(InnerProduct, EveryActivation) {
    for (int act = 0; act <= 6; act++) {
        SCOPED_TRACE(act);
        ParamDict pd = params({{0, 3}, {1, act % 2}, {2, 3 * 13}, {9, act}});
        auto ap = act_params_for(act);
        if (!ap.empty())
            pd.set_floats(10, ap);
        auto w = random_weights("InnerProduct", pd, 900 + act);
        Built b = build("InnerProduct", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(Shape::d2(13, 4), 950 + act, -3.f, 3.f);
        Mat out = run1(*b.layer, {in});
        expect_near(matvec(vec(in), 4, 13, w[0], act % 2 ? w[1] : std::vector<float>(), 3, act, ap), out);
    }
}

TEST(InnerProduct, WeightSpecsAndErrors) {
    auto l = create_layer("InnerProduct", false);
    ASSERT_TRUE(l->load_param(params({{0, 4}, {1, 1}, {2, 40}, {8, 1}})).is_ok());
    std::vector<WeightSpec> s;
    ASSERT_TRUE(l->weight_specs(s).is_ok());
    ASSERT_EQ(s.size(), 4u);
    EXPECT_TRUE(s[0].tagged);
    EXPECT_EQ(s[0].fan_in, 10);
    EXPECT_EQ(s[2].name, "weight_data_int8_scales");
    EXPECT_EQ(s[2].count, 4u);
    EXPECT_EQ(s[3].name, "bottom_blob_int8_scales");
    EXPECT_TRUE(build("InnerProduct", params({{0, 4}, {1, 1}, {2, 40}, {8, 1}})).st.is_ok());  // int8_test.cpp

    auto load = [](ParamDict pd) { return create_layer("InnerProduct", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 0}, {2, 10}})), ErrorCode::InvalidModel, "num_output");
    LT_EXPECT_ERROR(load(params({{0, 3}, {2, 10}})), ErrorCode::InvalidModel, "weight_data_size");
    Built b = build("InnerProduct", params({{0, 2}, {2, 12}}));
    ASSERT_TRUE(b.st.is_ok());
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d1(5), 1)}, out), ErrorCode::ShapeMismatch, "values");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "values");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(3, 2, 1, 2), 1)}, out), ErrorCode::ShapeMismatch, "1D, 2D or 3D");
}
