// Scale: per-channel scale (and bias) from weights on every rank; the two-input form
// (scale_data_size -233) with scales from a [c] vector or a [c,1,1] blob; specs; errors.
#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> scale_ref(const Mat& in, const std::vector<float>& s, const std::vector<float>* bias) {
    const size_t per = test_channel_size(in.shape());
    std::vector<float> out;
    for (size_t i = 0; i < in.total_floats(); i++) {
        size_t q = i / per;
        out.push_back(bias ? in.data[i] * s[q] + (*bias)[q] : in.data[i] * s[q]);
    }
    return out;
}

}  // namespace

TEST(Scale, HandValues) {
    Built b = build("Scale", params({{0, 2}, {1, 1}}), {{2.f, -1.f}, {0.5f, 10.f}});
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    // 2D [2,2]: per row
    Mat out = run1(*b.layer, {mat_of(Shape::d2(2, 2), {1.f, 2.f, 3.f, 4.f})});
    expect_same_floats({2.5f, 4.5f, 7.f, 6.f}, vec(out));
}

TEST(Scale, WeightsEveryRank) {
    uint32_t seed = 40;
    for (const Shape& s : odd_shapes()) {
        for (int bias = 0; bias < 2; bias++) {
            SCOPED_TRACE(s.str() + (bias ? " with bias" : ""));
            ParamDict pd = params({{0, (int)test_channels(s)}, {1, bias}});
            auto w = random_weights("Scale", pd, ++seed);
            ASSERT_EQ(w.size(), bias ? 2u : 1u);
            Built b = build("Scale", pd, w);
            ASSERT_TRUE(b.st.is_ok()) << b.st.message();
            Mat in = rand_mat(s, ++seed);
            expect_near(scale_ref(in, w[0], bias ? &w[1] : nullptr), run1(*b.layer, {in}), 0.f, 0.f);
        }
    }
}

TEST(Scale, TwoInputForm) {
    Built b = build("Scale", params({{0, -233}}));
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    EXPECT_FALSE(b->one_blob_only);
    EXPECT_EQ(b->expected_bottoms(), 2);
    EXPECT_TRUE(specs_of("Scale", params({{0, -233}})).empty());
    uint32_t seed = 60;
    for (const Shape& s : odd_shapes()) {
        SCOPED_TRACE(s.str());
        const int c = (int)test_channels(s);
        for (const Shape& ss : {Shape::d1(c), Shape::d3(1, 1, c)}) {
            Mat in = rand_mat(s, ++seed);
            Mat sc = rand_mat(ss, ++seed);
            expect_near(scale_ref(in, vec(sc), nullptr), run1(*b.layer, {in, sc}), 0.f, 0.f);
        }
    }
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 3), 1), rand_mat(Shape::d1(4), 2)}, out),
                    ErrorCode::ShapeMismatch, "scale input [4]");
}

TEST(Scale, SpecsAndErrors) {
    auto specs = specs_of("Scale", params({{0, 6}, {1, 1}}));
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[0].name, "scale_data");
    EXPECT_EQ(specs[1].name, "bias_data");
    for (auto& sp : specs) {
        EXPECT_EQ(sp.count, 6u);
        EXPECT_FALSE(sp.tagged);
    }
    EXPECT_EQ(specs[0].role, WeightRole::Gamma);
    EXPECT_EQ(specs[1].role, WeightRole::Bias);
    EXPECT_EQ(specs_of("Scale", params({{0, 6}})).size(), 1u);

    LT_EXPECT_ERROR(create_layer("Scale", false)->load_param(ParamDict()), ErrorCode::InvalidModel, "scale_data_size");
    LT_EXPECT_ERROR(create_layer("Scale", false)->load_param(params({{0, -233}, {1, 1}})), ErrorCode::InvalidModel,
                    "bias_term");
    Built b = build("Scale", params({{0, 3}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(2, 2, 2, 4), 1)}, out), ErrorCode::ShapeMismatch, "3 scales");
}
