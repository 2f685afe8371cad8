// InstanceNorm: each channel normalized over its own values (3D, and 4D over the whole d*h*w),
// against mean/variance in double, with and without affine; errors.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> in_ref(const Mat& in, float eps, const std::vector<std::vector<float>>* w) {
    const Shape s = in.shape();
    const size_t per = (size_t)s.w * s.h * (s.dims == 4 ? s.d : 1);
    std::vector<float> out;
    for (int q = 0; q < s.c; q++) {
        const float* p = in.data + q * per;
        double m = 0, v = 0;
        for (size_t i = 0; i < per; i++)
            m += p[i];
        m /= per;
        for (size_t i = 0; i < per; i++)
            v += (p[i] - m) * (p[i] - m);
        v /= per;
        for (size_t i = 0; i < per; i++) {
            double y = (p[i] - m) / std::sqrt(v + eps);
            out.push_back((float)(w ? y * (*w)[0][q] + (*w)[1][q] : y));
        }
    }
    return out;
}

}  // namespace

TEST(InstanceNorm, HandValues) {
    // one channel [1,2]: mean 2, var 1 -> -1, 1 (eps 0)
    ParamDict pd = params({{0, 1}});
    pd.set_float(1, 0.f);
    Built b = build("InstanceNorm", pd, {{3.f}, {0.5f}});
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat out = run1(*b.layer, {mat_of(Shape::d3(2, 1, 1), {1.f, 3.f})});
    expect_same_floats({-2.5f, 3.5f}, vec(out));
}

TEST(InstanceNorm, ChannelsOf3DAnd4D) {
    uint32_t seed = 70;
    for (const Shape& s : {Shape::d3(7, 3, 1), Shape::d3(4, 5, 3), Shape::d3(1, 1, 5), Shape::d3(5, 2, 17),
                           Shape::d4(3, 2, 3, 5), Shape::d4(2, 2, 4, 1)}) {
        SCOPED_TRACE(s.str());
        ParamDict pd = params({{0, s.c}});
        pd.set_float(1, 1e-5f);
        auto w = random_weights("InstanceNorm", pd, ++seed);
        Built b = build("InstanceNorm", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(s, ++seed, -2.f, 3.f);
        expect_near(in_ref(in, 1e-5f, &w), run1(*b.layer, {in}), 1e-4f, 1e-4f);
        // without affine: no weights, the default eps 0.001, channels may be 0
        Built n = build("InstanceNorm", params({{0, 0}, {2, 0}}));
        ASSERT_TRUE(n.st.is_ok()) << n.st.message();
        EXPECT_TRUE(specs_of("InstanceNorm", params({{0, 0}, {2, 0}})).empty());
        expect_near(in_ref(in, 0.001f, nullptr), run1(*n.layer, {in}), 1e-4f, 1e-4f);
    }
}

TEST(InstanceNorm, SpecsAndErrors) {
    auto specs = specs_of("InstanceNorm", params({{0, 4}}));
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[0].name, "gamma_data");
    EXPECT_EQ(specs[1].name, "beta_data");
    EXPECT_EQ(specs[0].role, WeightRole::Gamma);
    EXPECT_EQ(specs[1].role, WeightRole::Beta);
    EXPECT_EQ(specs[0].count, 4u);
    EXPECT_FALSE(specs[0].tagged);
    LT_EXPECT_ERROR(create_layer("InstanceNorm", false)->load_param(ParamDict()), ErrorCode::InvalidModel, "channels");
    Built b = build("InstanceNorm", params({{0, 4}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(3, 3, 3), 1)}, out), ErrorCode::ShapeMismatch, "4 channels");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(3, 4), 1)}, out), ErrorCode::ShapeMismatch, "3D");
}
