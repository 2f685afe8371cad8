// Convolution against a direct convolution written from the definition (layer_harness.h
// ConvRef), over odd channel counts, strides, dilations, explicit/asymmetric/SAME pads, pad_value
// and every fused activation; plus ncnn's 1D InnerProduct path, weight specs and error paths.
#include "layers/convolution.h"

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct ConvCase {
    int C, H, W, O, kh, kw, dh, dw, sh, sw;
    int p4, p15, p14, p16;  // ncnn pad params (left, right, top, bottom)
    int pt, pb, pl, pr;     // the resulting pads, computed by hand
    float pad_value;
    int bias;
    int act;
};

void check_conv(const ConvCase& c, uint32_t seed) {
    SCOPED_TRACE("C" + std::to_string(c.C) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) + " O" +
                 std::to_string(c.O) + " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " d" +
                 std::to_string(c.dh) + "," + std::to_string(c.dw) + " s" + std::to_string(c.sh) + "," +
                 std::to_string(c.sw) + " pads " + std::to_string(c.p4) + "," + std::to_string(c.p15) + "," +
                 std::to_string(c.p14) + "," + std::to_string(c.p16) + " act " + std::to_string(c.act));
    ParamDict pd = params({{0, c.O}, {1, c.kw}, {11, c.kh}, {2, c.dw}, {12, c.dh}, {3, c.sw}, {13, c.sh}, {4, c.p4},
                           {15, c.p15}, {14, c.p14}, {16, c.p16}, {5, c.bias}, {6, c.O * c.C * c.kh * c.kw},
                           {9, c.act}});
    if (c.pad_value != 0.f)
        pd.set_float(18, c.pad_value);
    auto ap = act_params_for(c.act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    auto w = random_weights("Convolution", pd, seed);
    Built b = build("Convolution", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d3(c.W, c.H, c.C), seed + 1);
    Mat out = run1(*b.layer, {in});

    ConvRef r{c.C, c.H, c.W, c.O, c.kh, c.kw};
    r.dh = c.dh, r.dw = c.dw, r.sh = c.sh, r.sw = c.sw;
    r.pt = c.pt, r.pb = c.pb, r.pl = c.pl, r.pr = c.pr;
    r.pad_value = c.pad_value;
    r.act = c.act;
    r.act_params = ap;
    auto want = r.run(vec(in), w[0], c.bias ? w[1] : std::vector<float>());
    ASSERT_EQ(out.shape(), Shape::d3(r.OW, r.OH, c.O));
    expect_near(want, out, 1e-5f, 2e-5f);
}

}  // namespace

TEST(Convolution, MatchesDirectConvolution) {
    const ConvCase cases[] = {
        // C  H   W   O  kh kw dh dw sh sw  p4 p15 p14 p16   pt pb pl pr  pv  bias act
        {1, 5, 7, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0.f, 0, 0},
        {3, 9, 13, 5, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 1, 1},
        {5, 7, 9, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0.f, 1, 2},
        {17, 6, 5, 4, 3, 3, 2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0.f, 1, 3},
        {3, 11, 10, 17, 3, 2, 1, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0.f, 1, 4},
        {4, 8, 6, 3, 1, 1, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0.f, 1, 5},
        {2, 7, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 0, 6},
        // asymmetric pads: 4=left 15=right 14=top 16=bottom
        {3, 6, 9, 2, 3, 3, 1, 1, 1, 1, 1, 2, 0, 3, 0, 3, 1, 2, 0.f, 1, 0},
        // pad_value (ncnn pads with it, e.g. from a fused Padding layer)
        {2, 5, 5, 3, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0.75f, 1, 0},
        // SAME_UPPER (-233): w=8 k=3 s=2 -> total 3 + 6 - 8 = 1 -> left 0 right 1; h=7 -> total 2 -> 1/1
        {3, 7, 8, 4, 3, 3, 1, 1, 2, 2, -233, -233, -233, -233, 1, 1, 0, 1, 0.f, 1, 1},
        // SAME_LOWER (-234): the odd pixel goes first: left 1 right 0
        {3, 7, 8, 4, 3, 3, 1, 1, 2, 2, -234, -234, -234, -234, 1, 1, 1, 0, 0.f, 1, 1},
        // SAME with dilation 2: extent 5, w=6 s=1 -> total 5 + 5 - 6 = 4 -> 2/2; h=5 s=1 -> 4 -> 2/2
        {2, 5, 6, 3, 3, 3, 2, 2, 1, 1, -233, -233, -233, -233, 2, 2, 2, 2, 0.f, 0, 0},
        // SAME 4x4 kernel stride 1: total 3 -> upper 1/2, lower 2/1
        {1, 5, 5, 2, 4, 4, 1, 1, 1, 1, -233, -233, -233, -233, 1, 2, 1, 2, 0.f, 1, 0},
        {1, 5, 5, 2, 4, 4, 1, 1, 1, 1, -234, -234, -234, -234, 2, 1, 2, 1, 0.f, 1, 0},
        // SAME with a kernel smaller than the stride: total 1 + 4 - 5 = 0 -> no padding
        {2, 5, 5, 2, 1, 1, 1, 1, 2, 2, -233, -233, -233, -233, 0, 0, 0, 0, 0.f, 1, 0},
    };
    uint32_t seed = 100;
    for (const ConvCase& c : cases)
        check_conv(c, seed += 10);
}

TEST(Convolution, EveryActivationWithStrideAndDilation) {
    for (int act = 0; act <= 6; act++)
        check_conv({5, 9, 11, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 1, act}, 200 + act);
}

TEST(Convolution, OneDInputWithOneByOneKernelIsInnerProduct) {
    // ncnn: a 1D blob of num_input values with a 1x1 kernel runs as InnerProduct -> 1D output
    const int n = 17, O = 5;
    ParamDict pd = params({{0, O}, {1, 1}, {5, 1}, {6, O * n}, {9, 1}});
    auto w = random_weights("Convolution", pd, 3);
    Built b = build("Convolution", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d1(n), 4);
    Mat out = run1(*b.layer, {in});
    ASSERT_EQ(out.shape(), Shape::d1(O));
    std::vector<float> want(O);
    for (int o = 0; o < O; o++) {
        double s = w[1][o];
        for (int i = 0; i < n; i++)
            s += (double)in.data[i] * w[0][(size_t)o * n + i];
        want[o] = s > 0 ? (float)s : 0.f;
    }
    expect_near(want, out);
}

TEST(Convolution, TwoDAndOneDInputsAreOneChannel) {
    // [h,w] is one channel; [w] (when not the InnerProduct case) is one row of one channel
    ParamDict pd = params({{0, 3}, {1, 3}, {11, 1}, {5, 1}, {6, 3 * 3}});
    auto w = random_weights("Convolution", pd, 5);
    Built b = build("Convolution", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in1 = rand_mat(Shape::d1(7), 6);
    Mat out1 = run1(*b.layer, {in1});
    ConvRef r{1, 1, 7, 3, 1, 3};
    expect_near(r.run(vec(in1), w[0], w[1]), out1);
    EXPECT_EQ(out1.shape(), Shape::d3(5, 1, 3));

    Mat in2 = rand_mat(Shape::d2(6, 4), 7);
    Mat out2 = run1(*b.layer, {in2});
    ConvRef r2{1, 4, 6, 3, 1, 3};
    expect_near(r2.run(vec(in2), w[0], w[1]), out2);
}

TEST(Convolution, WeightSpecsFollowNcnnOrder) {
    ParamDict pd = params({{0, 4}, {1, 3}, {5, 1}, {6, 4 * 2 * 9}, {8, 101}});
    auto l = create_layer("Convolution", false);
    ASSERT_TRUE(l->load_param(pd).is_ok());
    std::vector<WeightSpec> s;
    ASSERT_TRUE(l->weight_specs(s).is_ok());
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s[0].name, "weight_data");
    EXPECT_TRUE(s[0].tagged);
    EXPECT_EQ(s[0].count, 72u);
    EXPECT_EQ(s[0].fan_in, 18);
    EXPECT_EQ(s[1].name, "bias_data");
    EXPECT_FALSE(s[1].tagged);
    EXPECT_EQ(s[2].name, "weight_data_int8_scales");
    EXPECT_EQ(s[2].count, 4u);
    EXPECT_EQ(s[3].count, 1u);
    EXPECT_EQ(s[4].name, "top_blob_int8_scales");
    // int8 layers load (their int8 path: tests/cpp/layers/int8_test.cpp)
    Built b = build("Convolution", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    pd.set_int(8, 1);
    ASSERT_TRUE(l->load_param(pd).is_ok());
    ASSERT_TRUE(l->weight_specs(s).is_ok());
    EXPECT_EQ(s.size(), 4u);
}

TEST(Convolution, DynamicWeightIsReadButNotRun) {
    ParamDict pd = params({{0, 4}, {1, 3}, {19, 1}});
    auto l = create_layer("Convolution", false);
    ASSERT_TRUE(l->load_param(pd).is_ok());
    EXPECT_FALSE(l->one_blob_only);
    std::vector<WeightSpec> s;
    ASSERT_TRUE(l->weight_specs(s).is_ok());
    EXPECT_TRUE(s.empty());
    LT_EXPECT_ERROR(l->load_model({}), ErrorCode::Unsupported, "dynamic_weight");
    std::vector<Shape> tops;
    LT_EXPECT_ERROR(l->infer_shape({Shape::d3(5, 5, 2)}, tops), ErrorCode::Unsupported, "dynamic_weight");
}

TEST(Convolution, BadParamsAndShapesAreErrors) {
    auto load = [](ParamDict pd) { return create_layer("Convolution", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 0}, {1, 3}, {6, 9}})), ErrorCode::InvalidModel, "num_output");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 0}, {6, 9}})), ErrorCode::InvalidModel, "kernel");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 3}, {3, 0}, {6, 9}})), ErrorCode::InvalidModel, "stride");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 3}, {2, -1}, {6, 9}})), ErrorCode::InvalidModel, "dilation");
    LT_EXPECT_ERROR(load(params({{0, 2}, {1, 3}, {6, 10}})), ErrorCode::InvalidModel, "weight_data_size");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 3}, {6, 9}, {4, -233}, {15, 1}})), ErrorCode::InvalidModel, "SAME");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 3}, {6, 9}, {9, 7}})), ErrorCode::InvalidModel, "activation_type");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 3}, {6, 9}, {9, 2}})), ErrorCode::InvalidModel, "activation_params");
    LT_EXPECT_ERROR(load(params({{0, 1}, {1, 65536}, {2, 65536}, {6, 65536}})), ErrorCode::InvalidModel, "extent");

    Built b = build("Convolution", params({{0, 2}, {1, 3}, {6, 2 * 3 * 9}}));
    ASSERT_TRUE(b.st.is_ok());
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(5, 5, 4), 1)}, out), ErrorCode::ShapeMismatch, "channel");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 5, 3), 1)}, out), ErrorCode::ShapeMismatch, "kernel extent");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(5, 5, 2, 3), 1)}, out), ErrorCode::ShapeMismatch, "[c,h,w]");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d1(5), 1)}, out), ErrorCode::ShapeMismatch, "channel");
}
