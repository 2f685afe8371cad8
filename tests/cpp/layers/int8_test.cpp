// int8 paths of Convolution, ConvolutionDepthWise and InnerProduct (layers/int8_layers.h) against a
// straightforward scalar reference written from ncnn's forward_int8 (quantize, pad the codes, sum
// in int32, scale_in = 1 / (bottom_scale * weight_scale), + bias, activation, requantize with
// round-half-away float2int8) plus the two places where ncnn's x86 build, the oracle's, computes
// differently (fused bias in Convolution's epilogue, rcpps in the depthwise one). Odd sizes
// (1, 3, 5, 17 channels), stride, pad, dilation, groups; int8 blobs between layers; errors.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/int8.h"
#include "layers/layer.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

namespace {

// ncnn float2int8 (src/layer/convolution.cpp): (int)round(v), clamped to [-127, 127]
int ref_f2i(float v) {
    int i = (int)std::round(v);
    return i > 127 ? 127 : (i < -127 ? -127 : i);
}

struct ConvCase {
    int inch, outch, group, w, h, k, stride, dilation, pad;
    int scale_term;  // 1, 2, 101, 102
    bool bias;
    int act;  // 0 or 1 (ReLU)
};

struct Weights8 {
    std::vector<int8_t> codes;
    std::vector<float> bias, wscales;
    float bscale, tscale;
};

Weights8 make_weights(const ConvCase& c, int n_weights, int n_wscales, uint32_t seed) {
    Rng rng(seed);
    Weights8 w;
    for (int i = 0; i < n_weights; i++)
        w.codes.push_back((int8_t)((int)(rng.uniform01() * 255.f) - 127));
    for (int i = 0; i < c.outch; i++)
        w.bias.push_back(rng.uniform01() * 2.f - 1.f);
    for (int i = 0; i < n_wscales; i++)
        w.wscales.push_back(40.f + rng.uniform01() * 100.f);
    if (n_wscales > 1)
        w.wscales[n_wscales / 2] = 0.f;  // an all-zero channel: ncnn's scale_in 0
    w.bscale = 30.f + rng.uniform01() * 40.f;
    w.tscale = 0.5f + rng.uniform01();
    return w;
}

std::vector<WeightArray> arrays(const Weights8& w, bool bias, bool top) {
    std::vector<WeightArray> a;
    WeightArray wd;
    wd.storage = WeightStorage::Int8;
    wd.tag = kTagInt8;
    wd.i8 = w.codes;
    a.push_back(wd);
    if (bias)
        a.push_back(WeightArray::untagged(w.bias));
    a.push_back(WeightArray::untagged(w.wscales));
    a.push_back(WeightArray::untagged({w.bscale}));
    if (top)
        a.push_back(WeightArray::untagged({w.tscale}));
    return a;
}

// The reference: ncnn ConvolutionDepthWise::forward_int8's grouped loop (Convolution is group 1).
std::vector<float> ref_conv(const ConvCase& c, const Weights8& wt, const std::vector<float>& x, bool x_codes,
                            bool depthwise_layer, int& out_w, int& out_h) {
    const int pw = c.w + 2 * c.pad, ph = c.h + 2 * c.pad;
    const int ext = c.dilation * (c.k - 1) + 1;
    out_w = (pw - ext) / c.stride + 1;
    out_h = (ph - ext) / c.stride + 1;
    std::vector<int> codes((size_t)c.inch * pw * ph, 0);
    for (int q = 0; q < c.inch; q++)
        for (int y = 0; y < c.h; y++)
            for (int xx = 0; xx < c.w; xx++) {
                float v = x[((size_t)q * c.h + y) * c.w + xx];
                codes[((size_t)q * ph + y + c.pad) * pw + xx + c.pad] = x_codes ? (int)v : ref_f2i(v * wt.bscale);
            }
    const int ig = c.inch / c.group, og = c.outch / c.group;
    const bool pure_dw = depthwise_layer && c.group == c.inch && c.group == c.outch;
    std::vector<float> out((size_t)c.outch * out_w * out_h);
    for (int p = 0; p < c.outch; p++) {
        const int g = p / og;
        // weight scale: per output channel (Convolution), per group (ConvolutionDepthWise 1/101),
        // one for all (2/102)
        float ws = !depthwise_layer ? wt.wscales[p] : (wt.wscales.size() == 1 ? wt.wscales[0] : wt.wscales[g]);
        float scale_in;
        if (ws == 0.f)
            scale_in = 0.f;
        else if (pure_dw && c.group % 8 == 0)
            scale_in = kernels::x86_rcp(wt.bscale * ws);  // x86 elempack-8 depthwise: _mm_rcp_ps
        else
            scale_in = 1.f / (wt.bscale * ws);
        for (int i = 0; i < out_h; i++)
            for (int j = 0; j < out_w; j++) {
                int sum = 0;
                for (int q = 0; q < ig; q++)
                    for (int ky = 0; ky < c.k; ky++)
                        for (int kx = 0; kx < c.k; kx++) {
                            int v = codes[((size_t)(g * ig + q) * ph + i * c.stride + ky * c.dilation) * pw +
                                          j * c.stride + kx * c.dilation];
                            int k = wt.codes[(((size_t)p * ig + q) * c.k + ky) * c.k + kx];
                            sum += v * k;
                        }
                float b = c.bias ? wt.bias[p] : 0.f;
                float v = pure_dw ? (float)sum * scale_in + b : std::fma((float)sum, scale_in, b);
                if (c.act == 1)
                    v = std::max(v, 0.f);
                out[((size_t)p * out_h + i) * out_w + j] = c.scale_term > 100 ? (float)ref_f2i(v * wt.tscale) : v;
            }
    }
    return out;
}

// An int8 blob (one byte a value) holding the codes `v`.
Mat int8_mat(const Shape& s, const std::vector<float>& v) {
    Mat m;
    EXPECT_TRUE(m.create_int8(s).is_ok());
    for (size_t i = 0; i < v.size(); i++)
        m.int8_data()[i] = (int8_t)v[i];
    return m;
}

// A tensor's values as floats (an int8 blob's codes).
std::vector<float> values(const Mat& m) {
    if (!m.int8)
        return test::to_vector(m);
    std::vector<float> r(m.total());
    for (size_t i = 0; i < r.size(); i++)
        r[i] = (float)m.int8_data()[i];
    return r;
}

ParamDict conv_params(const ConvCase& c, bool dw) {
    ParamDict pd;
    pd.set_int(0, c.outch);
    pd.set_int(1, c.k);
    pd.set_int(2, c.dilation);
    pd.set_int(3, c.stride);
    pd.set_int(4, c.pad);
    pd.set_int(5, c.bias ? 1 : 0);
    pd.set_int(6, c.inch / c.group * c.outch * c.k * c.k);
    if (dw)
        pd.set_int(7, c.group);
    pd.set_int(8, c.scale_term);
    pd.set_int(9, c.act);
    return pd;
}

void check_conv(const ConvCase& c, bool dw, bool optimized, bool x_codes, uint32_t seed) {
    SCOPED_TRACE(::testing::Message() << (dw ? "ConvolutionDepthWise" : "Convolution") << " inch " << c.inch
                                      << " outch " << c.outch << " group " << c.group << " " << c.w << "x" << c.h
                                      << " k" << c.k << " s" << c.stride << " d" << c.dilation << " p" << c.pad
                                      << " term " << c.scale_term << (optimized ? " optimized" : "")
                                      << (x_codes ? " int8 input" : ""));
    const int n_weights = c.inch / c.group * c.outch * c.k * c.k;
    const int n_wscales = !dw ? c.outch : ((c.scale_term % 100) == 1 ? c.group : 1);
    Weights8 wt = make_weights(c, n_weights, n_wscales, seed);
    auto layer = create_layer(dw ? "ConvolutionDepthWise" : "Convolution", optimized);
    ASSERT_TRUE(layer->load_param(conv_params(c, dw)).is_ok());
    std::vector<WeightSpec> specs;
    ASSERT_TRUE(layer->weight_specs(specs).is_ok());
    auto w = arrays(wt, c.bias, c.scale_term > 100);
    ASSERT_EQ(specs.size(), w.size());
    Status st = layer->load_model(w);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_TRUE(layer->create_pipeline(Option()).is_ok());
    EXPECT_TRUE(layer->takes_int8());

    Rng rng(seed + 1);
    std::vector<float> x((size_t)c.inch * c.w * c.h);
    for (auto& v : x)
        v = x_codes ? (float)((int)(rng.uniform01() * 255.f) - 127) : rng.uniform01() * 4.f - 2.f;
    Mat in = x_codes ? int8_mat(Shape::d3(c.w, c.h, c.inch), x) : test::make_mat({c.inch, c.h, c.w}, x);
    Mat out;
    st = layer->forward(in, out, Option());
    ASSERT_TRUE(st.is_ok()) << st.message();
    int ow, oh;
    std::vector<float> ref = ref_conv(c, wt, x, x_codes, dw, ow, oh);
    ASSERT_EQ(out.shape(), Shape::d3(ow, oh, c.outch));
    EXPECT_EQ(out.int8, c.scale_term > 100);
    std::vector<float> got = values(out);
    size_t bad = 0;
    for (size_t i = 0; i < ref.size(); i++)
        if (!(got[i] == ref[i]) && bad++ < 5)
            ADD_FAILURE() << "element " << i << ": " << got[i] << " vs reference " << ref[i];
    EXPECT_EQ(bad, 0u);
}

}  // namespace

TEST(Int8, Float2Int8RoundsHalfAwayFromZeroAndClamps) {
    EXPECT_EQ(kernels::float2int8(0.5f), 1);
    EXPECT_EQ(kernels::float2int8(-0.5f), -1);
    EXPECT_EQ(kernels::float2int8(1.5f), 2);
    EXPECT_EQ(kernels::float2int8(2.5f), 3);  // ties to even would give 2
    EXPECT_EQ(kernels::float2int8(-2.5f), -3);
    EXPECT_EQ(kernels::float2int8(0.49999997f), 0);
    EXPECT_EQ(kernels::float2int8(126.5f), 127);
    EXPECT_EQ(kernels::float2int8(1e9f), 127);
    EXPECT_EQ(kernels::float2int8(-128.f), -127);  // never -128
    EXPECT_EQ(kernels::float2int8(-INFINITY), -127);
    EXPECT_EQ(kernels::float2int8(NAN), 0);
}

TEST(Int8, X86RcpIsA12BitReciprocalThatScalesWithTheExponent) {
    Rng rng(3);
    for (int i = 0; i < 20000; i++) {
        float x = std::ldexp(1.f + rng.uniform01(), (int)(rng.uniform01() * 200.f) - 100);
        float r = kernels::x86_rcp(x);
        EXPECT_LE(std::fabs(r * x - 1.f), 1.5f / 4096.f) << x;
        EXPECT_EQ(kernels::x86_rcp(x * 4.f), r / 4.f) << x;
        EXPECT_EQ(kernels::x86_rcp(-x), -r) << x;
    }
    EXPECT_EQ(kernels::x86_rcp(1.f), 0.999755859375f);  // 0x3f7ff000, the table's first entry
    EXPECT_EQ(kernels::x86_rcp(0.f), INFINITY);           // outside the table: 1 / x
}

TEST(Int8, ConvolutionOddSizesMatchTheReference) {
    const ConvCase cases[] = {
        {1, 1, 1, 5, 5, 3, 1, 1, 1, 2, true, 1},      {3, 5, 1, 7, 6, 3, 2, 1, 1, 102, true, 1},
        {5, 3, 1, 9, 9, 3, 1, 2, 2, 101, false, 0},   {17, 17, 1, 5, 7, 1, 1, 1, 0, 2, true, 0},
        {3, 17, 1, 11, 4, 5, 2, 1, 2, 102, false, 1}, {17, 5, 1, 3, 3, 3, 1, 1, 1, 1, true, 1},
        // 3x3 stride 1, 16+ channels each way and 1024+ in product: Winograd F(4x4, 3x3) (the
        // weights' sums are far below its bound), tiles past the edges; then sums |w| of about
        // 460 * 9 * 64, past F(4,3)'s bound (kernels/int8_wino43.h) and within F(2,3)'s
        {20, 52, 1, 13, 11, 3, 1, 1, 1, 102, true, 1}, {16, 64, 1, 9, 10, 3, 1, 1, 0, 1, true, 0},
        {460, 16, 1, 7, 5, 3, 1, 1, 1, 2, false, 1},
    };
    uint32_t seed = 10;
    for (const auto& c : cases)
        for (bool opt : {false, true})
            for (bool codes : {false, true})
                check_conv(c, false, opt, codes, seed++);
}

TEST(Int8, ConvolutionDepthWiseOddSizesAndGroupsMatchTheReference) {
    const ConvCase cases[] = {
        {1, 1, 1, 5, 5, 3, 1, 1, 1, 101, true, 1},     {3, 3, 3, 7, 6, 3, 2, 1, 1, 101, true, 1},
        {5, 5, 5, 9, 9, 3, 1, 2, 2, 2, false, 0},      {17, 17, 17, 5, 7, 3, 1, 1, 1, 102, true, 1},
        {16, 16, 16, 7, 5, 3, 2, 1, 1, 101, true, 1},  {16, 16, 16, 6, 6, 3, 1, 1, 1, 1, true, 0},
        {6, 9, 3, 7, 7, 3, 1, 1, 1, 101, true, 1},     {6, 3, 3, 5, 8, 3, 2, 1, 0, 2, false, 0},
        {10, 5, 5, 4, 4, 1, 1, 1, 0, 102, true, 1},
        // no border (pad 0): an int8 input's planes are read in place, the last one from a copy
        // with the kernel's slack; 3x3 at strides 1 and 2, and 5x5
        {7, 7, 7, 9, 8, 3, 1, 1, 0, 101, true, 1},     {9, 9, 9, 11, 7, 3, 2, 1, 0, 102, false, 1},
        {4, 4, 4, 12, 9, 5, 1, 1, 0, 101, true, 0},
    };
    uint32_t seed = 100;
    for (const auto& c : cases)
        for (bool opt : {false, true})
            for (bool codes : {false, true})
                check_conv(c, true, opt, codes, seed++);
}

TEST(Int8, InnerProductMatchesTheReference) {
    for (int n : {1, 3, 5, 17}) {
        for (int outch : {1, 3, 17}) {
            for (bool opt : {false, true}) {
                ConvCase c{n, outch, 1, 1, 1, 1, 1, 1, 0, 2, true, 1};
                Weights8 wt = make_weights(c, n * outch, outch, (uint32_t)(n * 31 + outch));
                ParamDict pd;
                pd.set_int(0, outch);
                pd.set_int(1, 1);
                pd.set_int(2, n * outch);
                pd.set_int(8, 2);
                pd.set_int(9, 1);
                auto layer = create_layer("InnerProduct", opt);
                ASSERT_TRUE(layer->load_param(pd).is_ok());
                ASSERT_TRUE(layer->load_model(arrays(wt, true, false)).is_ok());
                ASSERT_TRUE(layer->create_pipeline(Option()).is_ok());
                Rng rng(7);
                std::vector<float> x(n);
                for (auto& v : x)
                    v = rng.uniform01() * 2.f - 1.f;
                Mat in = test::make_mat({n}, x), out;
                ASSERT_TRUE(layer->forward(in, out, Option()).is_ok());
                ASSERT_EQ(out.shape(), Shape::d1(outch));
                EXPECT_FALSE(out.int8);
                for (int p = 0; p < outch; p++) {
                    int sum = 0;
                    for (int i = 0; i < n; i++)
                        sum += ref_f2i(x[i] * wt.bscale) * wt.codes[(size_t)p * n + i];
                    float si = wt.wscales[p] == 0.f ? 0.f : 1.f / (wt.bscale * wt.wscales[p]);
                    float v = (float)sum * si + wt.bias[p];  // ncnn x86 InnerProduct: multiply, then add
                    EXPECT_EQ(out.data[p], std::max(v, 0.f)) << "n " << n << " p " << p;
                }
            }
        }
    }
}

TEST(Int8, Fp32WeightsAreQuantizedAtLoad) {
    // ncnn load_model: fp32 weights of an int8 layer become float2int8(w * weight_scale[row])
    ConvCase c{2, 2, 1, 3, 3, 1, 1, 1, 0, 2, false, 0};
    Weights8 wt = make_weights(c, 4, 2, 5);
    wt.wscales = {10.f, 100.f};
    std::vector<float> wf = {0.05f, -0.25f, 0.015f, -1.3f};  // -> 1 (0.5 rounds away), -3 (-2.5), 2 (1.5), -127
    auto a = arrays(wt, false, false);
    a[0] = WeightArray::tagged_f32(wf);
    auto layer = create_layer("Convolution", false);
    ASSERT_TRUE(layer->load_param(conv_params(c, false)).is_ok());
    ASSERT_TRUE(layer->load_model(a).is_ok());
    Mat in = int8_mat(Shape::d3(1, 1, 2), {1.f, 1.f}), out;  // codes 1, 1
    ASSERT_TRUE(layer->forward(in, out, Option()).is_ok());
    float s0 = 1.f / (wt.bscale * 10.f), s1 = 1.f / (wt.bscale * 100.f);
    EXPECT_EQ(out.data[0], std::fma(-2.f, s0, 0.f));   // 1 + -3
    EXPECT_EQ(out.data[1], std::fma(-125.f, s1, 0.f)); // 2 + -127
}

TEST(Int8, BadScalesAreErrors) {
    ConvCase c{2, 2, 1, 3, 3, 1, 1, 1, 0, 2, false, 0};
    Weights8 wt = make_weights(c, 4, 2, 5);
    auto layer = create_layer("Convolution", false);
    ASSERT_TRUE(layer->load_param(conv_params(c, false)).is_ok());
    auto a = arrays(wt, false, false);
    a[1].data[0] = NAN;
    EXPECT_EQ(layer->load_model(a).code(), ErrorCode::InvalidModel);
    a = arrays(wt, false, false);
    a[2].data[0] = 0.f;  // bottom scale 0
    EXPECT_EQ(layer->load_model(a).code(), ErrorCode::InvalidModel);
    a = arrays(wt, false, false);
    a[2].data[0] = INFINITY;  // bottom scale inf
    EXPECT_EQ(layer->load_model(a).code(), ErrorCode::InvalidModel);
    // a requantizing layer (8=102) with a top scale of 0 or NaN
    ConvCase r{2, 2, 1, 3, 3, 1, 1, 1, 0, 102, false, 0};
    auto rl = create_layer("Convolution", false);
    ASSERT_TRUE(rl->load_param(conv_params(r, false)).is_ok());
    for (float top : {0.f, NAN}) {
        wt.tscale = top;
        Status st = rl->load_model(arrays(wt, false, true));
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel) << top;
        EXPECT_NE(st.message().find("top_blob_int8_scales"), std::string::npos) << st.message();
    }
    // ConvolutionDepthWise reads weight scales only for 1, 2, 101, 102
    ConvCase d{2, 2, 2, 3, 3, 1, 1, 1, 0, 3, false, 0};
    auto dw = create_layer("ConvolutionDepthWise", false);
    ASSERT_TRUE(dw->load_param(conv_params(d, true)).is_ok());
    EXPECT_EQ(dw->load_model(arrays(wt, false, false)).code(), ErrorCode::InvalidModel);
}

TEST(Int8, Int8BlobsFlowThroughSplitAndAreRefusedByFp32Layers) {
    // conv (requantize) -> Split -> depthwise (takes the codes as they are) and Pooling (refuses)
    const char* text = "7767517\n5 6\n"
                       "Input in 0 1 data 0=4 1=4 2=3\n"
                       "Convolution c1 1 1 data a 0=8 1=1 5=1 6=24 8=102 9=1\n"
                       "Split sp 1 2 a b1 b2\n"
                       "ConvolutionDepthWise d1 1 1 b1 y 0=8 1=3 4=1 5=1 6=72 7=8 8=101 9=1\n"
                       "Pooling p1 1 1 b2 z 0=1 4=1\n";
    Graph g = test::graph_from_text(text, 3);
    // int8 weights: random fp32 weights are quantized at load; scales as ncnn2table would pick
    for (auto& l : g.layers) {
        if (l.type == "Convolution" || l.type == "ConvolutionDepthWise") {
            size_t k = l.weights.size();
            l.weights[k - (l.type == "Convolution" ? 2 : 2)].set_values({40.f});  // bottom scale
            l.weights[k - 1].set_values({8.f});                                  // top scale
        }
    }
    Net net;
    Status st = net.load(g);
    ASSERT_TRUE(st.is_ok()) << st.message();
    auto in = test::random_inputs(net, 2);
    std::map<std::string, Mat> out;
    st = net.run(in, {"y"}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_FALSE(out["y"].int8);  // Net::run gives an int8 blob as its codes in floats
    for (float v : test::to_vector(out["y"]))
        EXPECT_TRUE(v == std::round(v) && v >= -127.f && v <= 127.f) << v;
    st = net.run(in, {"z"}, out);
    EXPECT_EQ(st.code(), ErrorCode::Unsupported);
    EXPECT_NE(st.message().find("int8"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("Pooling"), std::string::npos) << st.message();
}

TEST(Int8, ConvolutionOn1DInputIsAnInt8InnerProduct) {
    // ncnn Convolution::forward hands a 1D input with a 1x1 kernel to an InnerProduct layer that
    // gets the weight and bottom scales only: dequantized float output even with 8=102
    const int n = 5, outch = 3;
    ConvCase c{n, outch, 1, 1, 1, 1, 1, 1, 0, 102, true, 0};
    Weights8 wt = make_weights(c, n * outch, outch, 9);
    auto layer = create_layer("Convolution", true);
    ASSERT_TRUE(layer->load_param(conv_params(c, false)).is_ok());
    ASSERT_TRUE(layer->load_model(arrays(wt, true, true)).is_ok());
    ASSERT_TRUE(layer->create_pipeline(Option()).is_ok());
    std::vector<float> x = {-3.f, 0.f, 7.f, 127.f, -127.f};
    Mat in = int8_mat(Shape::d1(n), x), out;
    ASSERT_TRUE(layer->forward(in, out, Option()).is_ok());
    ASSERT_EQ(out.shape(), Shape::d1(outch));
    EXPECT_FALSE(out.int8);
    for (int p = 0; p < outch; p++) {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += (int)x[i] * wt.codes[(size_t)p * n + i];
        float si = wt.wscales[p] == 0.f ? 0.f : 1.f / (wt.bscale * wt.wscales[p]);
        EXPECT_EQ(out.data[p], (float)sum * si + wt.bias[p]) << p;
    }
}
