// BatchNorm against (x - mean) / sqrt(var + eps) * slope + bias in double on every rank (ncnn's
// channel axis), ncnn's guard for sqrt(var + eps) == 0, weight specs (order, raw fp32, roles),
// errors.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> bn_ref(const Mat& in, const std::vector<std::vector<float>>& w, float eps) {
    const size_t per = test_channel_size(in.shape());
    std::vector<float> out;
    for (size_t i = 0; i < in.total_floats(); i++) {
        size_t q = i / per;
        double slope = w[0][q], mean = w[1][q], var = w[2][q], bias = w[3][q];
        out.push_back((float)((in.data[i] - mean) / std::sqrt(var + eps) * slope + bias));
    }
    return out;
}

}  // namespace

TEST(BatchNorm, HandValues) {
    // two channels of [2] values: slope 2/1, mean 1/0, var 4/1, bias 0.5/-1, eps 0
    Built b = build("BatchNorm", params({{0, 2}}), {{2.f, 1.f}, {1.f, 0.f}, {4.f, 1.f}, {0.5f, -1.f}});
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat out = run1(*b.layer, {mat_of(Shape::d3(2, 1, 2), {3.f, -1.f, 2.f, 0.f})});
    // (3-1)/2*2+0.5 = 2.5, (-1-1)/2*2+0.5 = -1.5, 2/1*1-1 = 1, 0-1 = -1
    expect_same_floats({2.5f, -1.5f, 1.f, -1.f}, vec(out));
}

TEST(BatchNorm, EveryRank) {
    uint32_t seed = 20;
    for (const Shape& s : odd_shapes()) {
        SCOPED_TRACE(s.str());
        ParamDict pd = params({{0, (int)test_channels(s)}});
        pd.set_float(1, 1e-3f);
        auto w = random_weights("BatchNorm", pd, ++seed);
        for (auto& v : w[2])
            v = std::fabs(v) + 0.1f;  // a variance
        Built b = build("BatchNorm", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(s, ++seed, -3.f, 3.f);
        expect_near(bn_ref(in, w, 1e-3f), run1(*b.layer, {in}), 1e-5f, 1e-5f);
    }
}

TEST(BatchNorm, ZeroVarianceGuard) {
    // var + eps == 0: ncnn divides by 0.0001 instead
    Built b = build("BatchNorm", params({{0, 1}}), {{1.f}, {0.5f}, {0.f}, {0.f}});
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat out = run1(*b.layer, {mat_of(Shape::d1(1), {0.75f})});
    EXPECT_NEAR(out.data[0], (0.75 - 0.5) / 0.0001, 1e-2);
}

TEST(BatchNorm, SpecsAndErrors) {
    auto specs = specs_of("BatchNorm", params({{0, 3}}));
    ASSERT_EQ(specs.size(), 4u);
    const char* names[] = {"slope_data", "mean_data", "var_data", "bias_data"};
    const WeightRole roles[] = {WeightRole::Gamma, WeightRole::Mean, WeightRole::Variance, WeightRole::Beta};
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(specs[i].name, names[i]);
        EXPECT_EQ(specs[i].count, 3u);
        EXPECT_FALSE(specs[i].tagged);
        EXPECT_EQ(specs[i].role, roles[i]);
    }
    LT_EXPECT_ERROR(create_layer("BatchNorm", false)->load_param(ParamDict()), ErrorCode::InvalidModel, "channels");
    Built b = build("BatchNorm", params({{0, 3}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(4, 4, 5), 1)}, out), ErrorCode::ShapeMismatch, "3 channels");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d1(4), 1)}, out), ErrorCode::ShapeMismatch, "[4]");
}
