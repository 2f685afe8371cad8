// ConvolutionDepthWise against the direct grouped convolution (layer_harness.h ConvRef): true
// depthwise (group == channels == num_output), channel multipliers, general groups, pads incl.
// SAME, pad_value, every fused activation; int8 weight specs; error paths.
#include "layers/convolutiondepthwise.h"

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct DwCase {
    int C, H, W, O, group, k, d, s;
    int pad;            // param 4 (all sides), may be -233/-234
    int pt, pb, pl, pr;  // resulting pads by hand
    int act;
    float pad_value;
};

void check_dw(const DwCase& c, uint32_t seed) {
    SCOPED_TRACE("C" + std::to_string(c.C) + " O" + std::to_string(c.O) + " group " + std::to_string(c.group) + " " +
                 std::to_string(c.H) + "x" + std::to_string(c.W) + " k" + std::to_string(c.k) + " d" +
                 std::to_string(c.d) + " s" + std::to_string(c.s) + " pad " + std::to_string(c.pad) + " act " +
                 std::to_string(c.act));
    const int wsize = c.k * c.k * (c.C / c.group) * c.O;
    ParamDict pd = params({{0, c.O}, {1, c.k}, {2, c.d}, {3, c.s}, {4, c.pad}, {5, 1}, {6, wsize}, {7, c.group},
                           {9, c.act}});
    auto ap = act_params_for(c.act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    if (c.pad_value != 0.f)
        pd.set_float(18, c.pad_value);
    auto w = random_weights("ConvolutionDepthWise", pd, seed);
    Built b = build("ConvolutionDepthWise", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d3(c.W, c.H, c.C), seed + 1);
    Mat out = run1(*b.layer, {in});
    ConvRef r(c.C, c.H, c.W, c.O, c.k, c.k);
    r.dh = r.dw = c.d;
    r.sh = r.sw = c.s;
    r.pt = c.pt, r.pb = c.pb, r.pl = c.pl, r.pr = c.pr;
    r.group = c.group;
    r.act = c.act;
    r.act_params = ap;
    r.pad_value = c.pad_value;
    auto want = r.run(vec(in), w[0], w[1]);
    ASSERT_EQ(out.shape(), Shape::d3(r.OW, r.OH, c.O));
    expect_near(want, out, 1e-5f, 2e-5f);
}

}  // namespace

TEST(ConvolutionDepthWise, MatchesDirectGroupedConvolution) {
    const DwCase cases[] = {
        // C   H  W   O  group k d s  pad   pt pb pl pr act pv
        {1, 5, 7, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0.f},
        {3, 9, 11, 3, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 0.f},
        {5, 8, 9, 5, 5, 5, 1, 1, 2, 2, 2, 2, 2, 2, 0.f},
        {17, 7, 6, 17, 17, 3, 2, 1, 2, 2, 2, 2, 2, 3, 0.f},
        // channel multiplier 2 (group == channels, num_output == 2 * channels)
        {3, 6, 7, 6, 3, 3, 1, 1, 0, 0, 0, 0, 0, 4, 0.f},
        // general groups: 4 channels -> 6 outputs in 2 groups
        {4, 7, 5, 6, 2, 3, 1, 2, 1, 1, 1, 1, 1, 5, 0.f},
        // 6 channels -> 3 outputs in 3 groups (2 inputs per output)
        {6, 5, 8, 3, 3, 3, 1, 1, 0, 0, 0, 0, 0, 6, 0.f},
        // SAME_UPPER w=9 k=3 s=2: total 3 + 8 - 9 = 2 -> 1/1; h=6: 3 + 4 - 6 = 1 -> 0/1
        {5, 6, 9, 5, 5, 3, 1, 2, -233, 0, 1, 1, 1, 1, 0.f},
        {5, 6, 9, 5, 5, 3, 1, 2, -234, 1, 0, 1, 1, 1, 0.f},
        // pad_value
        {3, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, -2.f},
    };
    uint32_t seed = 300;
    for (const DwCase& c : cases)
        check_dw(c, seed += 10);
    for (int act = 0; act <= 6; act++)
        check_dw({17, 6, 7, 17, 17, 3, 1, 2, 1, 1, 1, 1, 1, act, 0.f}, 400 + act);
}

TEST(ConvolutionDepthWise, Int8WeightSpecs) {
    auto specs = [](int term) {
        auto l = create_layer("ConvolutionDepthWise", false);
        EXPECT_TRUE(l->load_param(params({{0, 8}, {1, 3}, {5, 1}, {6, 72}, {7, 8}, {8, term}})).is_ok());
        std::vector<WeightSpec> s;
        EXPECT_TRUE(l->weight_specs(s).is_ok());
        return s;
    };
    auto s1 = specs(1);
    ASSERT_EQ(s1.size(), 4u);
    EXPECT_EQ(s1[2].name, "weight_data_int8_scales");
    EXPECT_EQ(s1[2].count, 8u);  // one per group
    EXPECT_EQ(s1[3].count, 1u);
    auto s2 = specs(2);
    ASSERT_EQ(s2.size(), 4u);
    EXPECT_EQ(s2[2].count, 1u);  // one shared weight scale
    auto s101 = specs(101);
    ASSERT_EQ(s101.size(), 5u);
    EXPECT_EQ(s101[4].name, "top_blob_int8_scales");
    auto s102 = specs(102);
    ASSERT_EQ(s102.size(), 5u);
    EXPECT_EQ(s102[2].count, 1u);
    Built b = build("ConvolutionDepthWise", params({{0, 8}, {1, 3}, {5, 1}, {6, 72}, {7, 8}, {8, 1}}));
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();  // int8 path: tests/cpp/layers/int8_test.cpp
}

TEST(ConvolutionDepthWise, BadParamsAndShapesAreErrors) {
    auto load = [](ParamDict pd) { return create_layer("ConvolutionDepthWise", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 6}, {1, 3}, {6, 54}, {7, 4}})), ErrorCode::InvalidModel, "multiple of group");
    LT_EXPECT_ERROR(load(params({{0, 6}, {1, 3}, {6, 54}, {7, 0}})), ErrorCode::InvalidModel, "group");
    LT_EXPECT_ERROR(load(params({{0, 6}, {1, 3}, {6, 55}, {7, 3}})), ErrorCode::InvalidModel, "weight_data_size");
    LT_EXPECT_ERROR(load(params({{0, 4}, {1, 3}, {6, 36}, {7, 4}, {4, -1}})), ErrorCode::InvalidModel, "pads");
    std::vector<WeightSpec> s;
    auto dyn = create_layer("ConvolutionDepthWise", false);
    ASSERT_TRUE(dyn->load_param(params({{0, 4}, {1, 3}, {7, 4}, {19, 1}})).is_ok());
    ASSERT_TRUE(dyn->weight_specs(s).is_ok());
    EXPECT_TRUE(s.empty());
    LT_EXPECT_ERROR(dyn->load_model({}), ErrorCode::Unsupported, "dynamic_weight");

    Built b = build("ConvolutionDepthWise", params({{0, 4}, {1, 3}, {6, 36}, {7, 4}}));
    ASSERT_TRUE(b.st.is_ok());
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(5, 5, 3), 1)}, out), ErrorCode::ShapeMismatch, "channel");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 5, 4), 1)}, out), ErrorCode::ShapeMismatch, "kernel extent");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(5, 5, 1, 4), 1)}, out), ErrorCode::ShapeMismatch, "input");
}
