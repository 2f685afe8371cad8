// GroupNorm: groups of consecutive channels normalized together (ncnn's channel axis on every
// rank), against mean/variance in double; affine per channel; errors.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> gn_ref(const Mat& in, int group, float eps, const std::vector<std::vector<float>>* w) {
    const Shape s = in.shape();
    const size_t channels = test_channels(s), per = test_channel_size(s);
    const size_t cpg = channels / group, n = cpg * per;
    std::vector<float> out;
    for (int g = 0; g < group; g++) {
        const float* p = in.data + g * n;
        double m = 0, v = 0;
        for (size_t i = 0; i < n; i++)
            m += p[i];
        m /= n;
        for (size_t i = 0; i < n; i++)
            v += (p[i] - m) * (p[i] - m);
        v /= n;
        for (size_t i = 0; i < n; i++) {
            size_t q = g * cpg + i / per;
            double y = (p[i] - m) / std::sqrt(v + eps);
            out.push_back((float)(w ? y * (*w)[0][q] + (*w)[1][q] : y));
        }
    }
    return out;
}

}  // namespace

TEST(GroupNorm, HandValues) {
    // 1D [4], 2 groups of 2 channels: {1,3} -> {-1,1}, {0,4} -> {-1,1}; gamma 1,2,3,4 beta 0
    ParamDict pd = params({{0, 2}, {1, 4}});
    pd.set_float(2, 0.f);
    Built b = build("GroupNorm", pd, {{1.f, 2.f, 3.f, 4.f}, {0.f, 0.f, 0.f, 1.f}});
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    expect_same_floats({-1.f, 2.f, -3.f, 5.f}, vec(run1(*b.layer, {mat_of(Shape::d1(4), {1.f, 3.f, 0.f, 4.f})})));
}

TEST(GroupNorm, GroupsOnEveryRank) {
    uint32_t seed = 80;
    struct Case {
        Shape s;
        int group;
    };
    const Case cases[] = {{Shape::d1(6), 3},        {Shape::d2(5, 4), 2},       {Shape::d3(4, 3, 6), 1},
                          {Shape::d3(4, 3, 6), 3},  {Shape::d3(3, 2, 17), 17},  {Shape::d3(1, 1, 5), 5},
                          {Shape::d4(3, 2, 2, 4), 2}, {Shape::d4(2, 1, 3, 3), 1}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.s.str() + " group " + std::to_string(c.group));
        ParamDict pd = params({{0, c.group}, {1, (int)test_channels(c.s)}});
        pd.set_float(2, 1e-5f);
        auto w = random_weights("GroupNorm", pd, ++seed);
        Built b = build("GroupNorm", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(c.s, ++seed, -2.f, 2.f);
        expect_near(gn_ref(in, c.group, 1e-5f, &w), run1(*b.layer, {in}), 1e-4f, 1e-4f);
        pd.set_int(3, 0);
        Built n = build("GroupNorm", pd);
        ASSERT_TRUE(n.st.is_ok()) << n.st.message();
        expect_near(gn_ref(in, c.group, 1e-5f, nullptr), run1(*n.layer, {in}), 1e-4f, 1e-4f);
    }
}

TEST(GroupNorm, SpecsAndErrors) {
    auto specs = specs_of("GroupNorm", params({{0, 2}, {1, 4}}));
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[0].name, "gamma_data");
    EXPECT_EQ(specs[1].name, "beta_data");
    EXPECT_EQ(specs[1].count, 4u);
    EXPECT_TRUE(specs_of("GroupNorm", params({{0, 2}, {1, 4}, {3, 0}})).empty());
    auto load = [](ParamDict pd) { return create_layer("GroupNorm", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 3}, {1, 4}})), ErrorCode::InvalidModel, "multiple of group");
    LT_EXPECT_ERROR(load(params({{0, 0}, {1, 4}})), ErrorCode::InvalidModel, "group");
    LT_EXPECT_ERROR(load(params({{0, 1}})), ErrorCode::InvalidModel, "channels");
    Built b = build("GroupNorm", params({{0, 2}, {1, 4}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 6), 1)}, out), ErrorCode::ShapeMismatch, "4 channels");
}
