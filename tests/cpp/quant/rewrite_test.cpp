// ncnn2int8's rewrite (src/quant/int8_rewrite.h): candidates, int8 codes and the scale arrays in
// the .bin as ncnn's load_model reads them, the requantize fusion (direct and through a Split,
// with layers kept fp32), and the writer/reader round trip.
#include <gtest/gtest.h>

#include <cstring>

#include "io/ncnn_io.h"
#include "quant/int8_rewrite.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::quant;

namespace {

// 1x1 conv 2->2, 3x3 depthwise (group 2), 3x3 stride-1 conv 2->3 without bias, InnerProduct.
const char* kChain =
    "7767517\n"
    "5 5\n"
    "Input data 0 1 data 0=4 1=4 2=2\n"
    "Convolution c1 1 1 data c1 0=2 1=1 5=1 6=4\n"
    "ConvolutionDepthWise d1 1 1 c1 d1 0=2 1=3 4=1 5=1 6=18 7=2\n"
    "Convolution c2 1 1 d1 c2 0=3 1=3 4=1 5=0 6=54\n"
    "InnerProduct fc 1 1 c2 fc 0=2 1=1 2=96\n";

// a -> Split -> b, c (1x1 convolutions)
const char* kSplit =
    "7767517\n"
    "5 6\n"
    "Input data 0 1 data 0=3 1=3 2=2\n"
    "Convolution a 1 1 data a 0=2 1=1 5=1 6=4\n"
    "Split sp 1 2 a a0 a1\n"
    "Convolution b 1 1 a0 b 0=2 1=1 5=1 6=4\n"
    "Convolution c 1 1 a1 c 0=2 1=1 5=1 6=4\n";

const Int8Candidate& cand(const std::vector<Int8Candidate>& cs, const Graph& g, const std::string& name) {
    for (auto& c : cs)
        if (g.layers[(size_t)c.layer].name == name)
            return c;
    static Int8Candidate none;
    ADD_FAILURE() << "no candidate " << name;
    return none;
}

void quantize_all(Graph& g, const std::vector<Int8Candidate>& cs, float bottom_scale_base,
                  const std::vector<std::string>& skip = {}) {
    float bs = bottom_scale_base;
    for (auto& c : cs) {
        if (std::find(skip.begin(), skip.end(), g.layers[(size_t)c.layer].name) != skip.end())
            continue;
        std::vector<float> ws((size_t)c.rows, 10.f);
        ASSERT_TRUE(quantize_layer(g.layers[(size_t)c.layer], c, ws, bs).is_ok());
        bs += 1.f;
    }
}

uint32_t u32_at(const std::vector<uint8_t>& b, size_t off) {
    uint32_t v;
    std::memcpy(&v, b.data() + off, 4);
    return v;
}
float f32_at(const std::vector<uint8_t>& b, size_t off) {
    float v;
    std::memcpy(&v, b.data() + off, 4);
    return v;
}

}  // namespace

TEST(Int8Rewrite, Candidates) {
    Graph g = test::graph_from_text(kChain);
    std::vector<Int8Candidate> cs;
    ASSERT_TRUE(find_candidates(g, cs).is_ok());
    ASSERT_EQ(cs.size(), 4u);
    const auto& c1 = cand(cs, g, "c1");
    EXPECT_EQ(c1.rows, 2);
    EXPECT_EQ(c1.row_size, 2);
    EXPECT_EQ(c1.qmax, 127);
    const auto& d1 = cand(cs, g, "d1");
    EXPECT_EQ(d1.rows, 2);  // per group
    EXPECT_EQ(d1.row_size, 9);
    EXPECT_EQ(d1.qmax, 127);  // the 6-bit rule is for Convolution only
    const auto& c2 = cand(cs, g, "c2");
    EXPECT_EQ(c2.rows, 3);
    EXPECT_EQ(c2.row_size, 18);
    EXPECT_EQ(c2.qmax, 31);  // 3x3, stride 1, dilation 1
    const auto& fc = cand(cs, g, "fc");
    EXPECT_EQ(fc.rows, 2);
    EXPECT_EQ(fc.row_size, 48);
    for (auto& c : cs)
        EXPECT_EQ(c.skip, "");
    EXPECT_EQ(first_int8_layer(g), -1);
}

TEST(Int8Rewrite, CodesAndScaleArrays) {
    Graph g = test::graph_from_text(kChain);
    std::vector<Int8Candidate> cs;
    ASSERT_TRUE(find_candidates(g, cs).is_ok());
    LayerNode& c1 = g.layers[(size_t)cand(cs, g, "c1").layer];
    c1.weights[0].set_values({1.f, -0.5f, 0.25f, 2.f});  // [out][in]
    c1.weights[1].set_values({0.5f, -1.5f});
    ASSERT_TRUE(quantize_layer(c1, cand(cs, g, "c1"), {127.f, 63.5f}, 12.5f).is_ok());
    ASSERT_EQ(c1.weights.size(), 4u);
    EXPECT_EQ(c1.weights[0].storage, WeightStorage::Int8);
    EXPECT_EQ(c1.weights[0].tag, kTagInt8);
    // 1 * 127 = 127; -0.5 * 127 = -63.5 -> -64 (half away from zero); 0.25 * 63.5 = 15.875 -> 16;
    // 2 * 63.5 = 127
    EXPECT_EQ(c1.weights[0].i8, (std::vector<int8_t>{127, -64, 16, 127}));
    EXPECT_EQ(c1.weights[1].data, (std::vector<float>{0.5f, -1.5f}));  // bias unchanged
    EXPECT_EQ(c1.weights[2].data, (std::vector<float>{127.f, 63.5f}));
    EXPECT_FALSE(c1.weights[2].tagged());
    EXPECT_EQ(c1.weights[3].data, (std::vector<float>{12.5f}));
    EXPECT_EQ(int8_scale_term(c1), 2);
    EXPECT_EQ(first_int8_layer(g), 1);

    LayerNode& d1 = g.layers[(size_t)cand(cs, g, "d1").layer];
    std::vector<float> dw(18, 0.f);
    dw[0] = 0.1f;   // group 0, scale 100 -> 10
    dw[9] = -0.3f;  // group 1, scale 500 -> -150 clamps to -127
    d1.weights[0].set_values(dw);
    ASSERT_TRUE(quantize_layer(d1, cand(cs, g, "d1"), {100.f, 500.f}, 3.f).is_ok());
    EXPECT_EQ(int8_scale_term(d1), 1);  // per-group scales
    EXPECT_EQ(d1.weights[0].i8[0], 10);
    EXPECT_EQ(d1.weights[0].i8[9], -127);
    EXPECT_EQ(d1.weights[2].data.size(), 2u);
}

TEST(Int8Rewrite, RequantizeFusionChain) {
    Graph g = test::graph_from_text(kChain);
    std::vector<Int8Candidate> cs;
    ASSERT_TRUE(find_candidates(g, cs).is_ok());
    quantize_all(g, cs, 2.f);  // bottom scales c1 2, d1 3, c2 4, fc 5
    auto fused = fuse_requantize(g);
    EXPECT_EQ(fused, (std::vector<std::string>{"c1", "d1"}));
    const LayerNode& c1 = g.layers[(size_t)g.find_layer("c1")];
    const LayerNode& d1 = g.layers[(size_t)g.find_layer("d1")];
    const LayerNode& c2 = g.layers[(size_t)g.find_layer("c2")];
    const LayerNode& fc = g.layers[(size_t)g.find_layer("fc")];
    EXPECT_EQ(int8_scale_term(c1), 102);
    EXPECT_EQ(c1.weights.back().data, (std::vector<float>{3.f}));  // d1's bottom scale
    EXPECT_EQ(int8_scale_term(d1), 101);
    EXPECT_EQ(d1.weights.back().data, (std::vector<float>{4.f}));  // c2's
    EXPECT_EQ(int8_scale_term(c2), 2);  // InnerProduct takes no int8 input from a requantize
    EXPECT_EQ(int8_scale_term(fc), 2);

    // the int8 model runs, and its .bin has ncnn's layout for c1: int8 tag, 4 codes, bias,
    // 2 weight scales, bottom scale, top scale
    Warnings w;
    std::vector<uint8_t> bin;
    ASSERT_TRUE(write_bin(g, bin, BinWriteOptions(), w).is_ok());
    EXPECT_EQ(u32_at(bin, 0), kTagInt8);
    EXPECT_EQ(f32_at(bin, 8 + 2 * 4), 10.f);   // weight scales (after tag, codes, bias)
    EXPECT_EQ(f32_at(bin, 8 + 4 * 4), 2.f);    // bottom scale
    EXPECT_EQ(f32_at(bin, 8 + 5 * 4), 3.f);    // top scale
    std::string param;
    ASSERT_TRUE(write_param(g, param, w).is_ok());
    EXPECT_NE(param.find("8=102"), std::string::npos);
    EXPECT_NE(param.find("8=101"), std::string::npos);

    // reader round trip: the same bytes again
    Graph back;
    ASSERT_TRUE(read_param(param, back, w).is_ok());
    ASSERT_TRUE(read_bin(bin.data(), bin.size(), back, w).is_ok());
    std::string param2;
    std::vector<uint8_t> bin2;
    ASSERT_TRUE(write_param(back, param2, w).is_ok());
    ASSERT_TRUE(write_bin(back, bin2, BinWriteOptions(), w).is_ok());
    EXPECT_EQ(param, param2);
    EXPECT_EQ(bin, bin2);

    Net net;
    ASSERT_TRUE(net.load(back).is_ok());
    std::map<std::string, Mat> out;
    Status st = net.run(test::random_inputs(net, 3), {}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(out.at("fc").total_floats(), 2u);
}

TEST(Int8Rewrite, FusionSkipsFp32Consumers) {
    Graph g = test::graph_from_text(kChain);
    std::vector<Int8Candidate> cs;
    ASSERT_TRUE(find_candidates(g, cs).is_ok());
    quantize_all(g, cs, 2.f, {"d1"});  // d1 kept fp32
    auto fused = fuse_requantize(g);
    EXPECT_TRUE(fused.empty());
    EXPECT_EQ(int8_scale_term(g.layers[(size_t)g.find_layer("c1")]), 2);
    EXPECT_EQ(int8_scale_term(g.layers[(size_t)g.find_layer("d1")]), 0);
}

TEST(Int8Rewrite, FusionThroughSplit) {
    {
        Graph g = test::graph_from_text(kSplit);
        std::vector<Int8Candidate> cs;
        ASSERT_TRUE(find_candidates(g, cs).is_ok());
        ASSERT_EQ(cs.size(), 3u);
        for (auto& c : cs)
            ASSERT_TRUE(quantize_layer(g.layers[(size_t)c.layer], c, std::vector<float>((size_t)c.rows, 5.f), 7.f).is_ok());
        auto fused = fuse_requantize(g);
        EXPECT_EQ(fused, (std::vector<std::string>{"a"}));
        const LayerNode& a = g.layers[(size_t)g.find_layer("a")];
        EXPECT_EQ(int8_scale_term(a), 102);
        EXPECT_EQ(a.weights.back().data, (std::vector<float>{7.f}));
        Net net;
        ASSERT_TRUE(net.load(g).is_ok());  // the Split carries the int8 codes to both
        std::map<std::string, Mat> out;
        Status st = net.run(test::random_inputs(net, 1), {}, out);
        ASSERT_TRUE(st.is_ok()) << st.message();
    }
    {
        // one branch kept fp32: no fusion (it would receive int8 codes)
        Graph g = test::graph_from_text(kSplit);
        std::vector<Int8Candidate> cs;
        ASSERT_TRUE(find_candidates(g, cs).is_ok());
        for (auto& c : cs)
            if (g.layers[(size_t)c.layer].name != "c")
                ASSERT_TRUE(quantize_layer(g.layers[(size_t)c.layer], c, std::vector<float>((size_t)c.rows, 5.f), 7.f).is_ok());
        EXPECT_TRUE(fuse_requantize(g).empty());
    }
    {
        // branches with different bottom scales: no fusion either
        Graph g = test::graph_from_text(kSplit);
        std::vector<Int8Candidate> cs;
        ASSERT_TRUE(find_candidates(g, cs).is_ok());
        float bs = 7.f;
        for (auto& c : cs) {
            ASSERT_TRUE(quantize_layer(g.layers[(size_t)c.layer], c, std::vector<float>((size_t)c.rows, 5.f), bs).is_ok());
            bs += 1.f;
        }
        EXPECT_TRUE(fuse_requantize(g).empty());
    }
}

TEST(Int8Rewrite, DynamicWeightsAreNotCandidates) {
    const char* p =
        "7767517\n"
        "3 3\n"
        "Input data 0 1 data 0=4 1=4 2=2\n"
        "Input wt 0 1 wt 0=1 1=1 2=2\n"
        "Convolution c 2 1 data wt c 0=1 1=1 5=0 6=2 19=1\n";
    Graph g = test::graph_from_text(p);
    std::vector<Int8Candidate> cs;
    ASSERT_TRUE(find_candidates(g, cs).is_ok());
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_NE(cs[0].skip.find("dynamic_weight"), std::string::npos);
}
