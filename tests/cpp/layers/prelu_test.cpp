// PReLU: one shared slope, or one per channel on ncnn's channel axis (1D per element, 2D per row,
// 3D/4D per channel); weight spec; errors for num_slope 0 and a channel count that differs.
#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> prelu_ref(const Mat& in, const std::vector<float>& slopes) {
    const Shape s = in.shape();
    const size_t per = test_channel_size(s);
    std::vector<float> out;
    for (size_t i = 0; i < in.total_floats(); i++) {
        float x = in.data[i];
        float k = slopes.size() == 1 ? slopes[0] : slopes[i / per];
        out.push_back(x < 0 ? x * k : x);
    }
    return out;
}

}  // namespace

TEST(PReLU, HandValues) {
    // 2D [2,3]: one slope per row
    Built b = build("PReLU", params({{0, 2}}), {{0.5f, -2.f}});
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat out = run1(*b.layer, {mat_of(Shape::d2(3, 2), {-1.f, 0.f, 2.f, -3.f, 4.f, -0.5f})});
    expect_same_floats({-0.5f, 0.f, 2.f, 6.f, 4.f, 1.f}, vec(out));
}

TEST(PReLU, SharedAndPerChannelEveryRank) {
    uint32_t seed = 3;
    for (const Shape& s : odd_shapes()) {
        SCOPED_TRACE(s.str());
        for (int shared = 0; shared < 2; shared++) {
            const int n = shared ? 1 : (int)test_channels(s);
            ParamDict pd = params({{0, n}});
            auto w = random_weights("PReLU", pd, ++seed);
            Built b = build("PReLU", pd, w);
            ASSERT_TRUE(b.st.is_ok()) << b.st.message();
            Mat in = rand_mat(s, ++seed);
            expect_near(prelu_ref(in, w[0]), run1(*b.layer, {in}), 0.f, 0.f);
        }
    }
}

TEST(PReLU, SpecsAndErrors) {
    auto specs = specs_of("PReLU", params({{0, 5}}));
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(specs[0].name, "slope_data");
    EXPECT_EQ(specs[0].count, 5u);
    EXPECT_FALSE(specs[0].tagged);
    EXPECT_EQ(specs[0].role, WeightRole::Slope);

    LT_EXPECT_ERROR(create_layer("PReLU", false)->load_param(ParamDict()), ErrorCode::InvalidModel, "num_slope");
    LT_EXPECT_ERROR(create_layer("PReLU", false)->load_param(params({{0, -3}})), ErrorCode::InvalidModel, "num_slope");
    Built b = build("PReLU", params({{0, 4}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 3), 1)}, out), ErrorCode::ShapeMismatch, "[3,2,2]");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(4, 3), 1)}, out), ErrorCode::ShapeMismatch, "row");
}
