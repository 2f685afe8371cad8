// Every layer that splits its work over threads gives the same bits at 1, 2, 3 and 4 threads
// (docs/numbers.md), on odd sizes, with the chunk cost floor at 1 so that even these small
// shapes really split (the test also checks that the pool ran jobs for each case: a case that
// never split could not fail). Each case is a small inline .param run through the Net with the
// optimized layers (src/layers/wasm/) and the reference layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "kernels/winograd.h"
#include "layers/detection_common.h"
#include "test_util.h"

using namespace nnfold;

namespace {

struct ThreadsGuard {
    ThreadsGuard() { set_min_chunk_cost(1); }
    ~ThreadsGuard() {
        set_min_chunk_cost(0);
        shutdown_threads();
    }
};

// The bytes of every output, in name order.
std::vector<std::pair<std::string, std::vector<float>>> outputs_of(const std::map<std::string, Mat>& outs) {
    std::vector<std::pair<std::string, std::vector<float>>> v;
    for (auto& kv : outs)
        v.emplace_back(kv.first, test::to_vector(kv.second));
    return v;
}

// Runs `param` (random weights, seeded inputs of `shapes`) without a pool, then at 2, 3 and 4
// threads and at 1 thread with the pool alive; every output must equal the first run bit for bit.
void expect_same_bits_graph(const std::string& what, const Graph& g, const std::map<std::string, Shape>& shapes,
                            bool optimized = true) {
    SCOPED_TRACE(what);
    ThreadsGuard guard;
    Net probe;
    NetOptions no;
    no.use_optimized = optimized;
    ASSERT_TRUE(probe.load(g, no).is_ok());
    const auto inputs = test::random_inputs(probe, 11, shapes);
    ASSERT_TRUE(set_num_threads(1).is_ok());
    const auto ref = outputs_of(test::run_graph(g, inputs, {}, optimized));
    ASSERT_FALSE(ref.empty());
    if (!build_has_threads())
        return;
    ASSERT_TRUE(set_num_threads(4).is_ok());
    const uint64_t jobs_before = parallel_jobs_run();
    for (int threads : {2, 3, 4, 1}) {
        ASSERT_TRUE(set_num_threads(threads).is_ok());
        const auto got = outputs_of(test::run_graph(g, inputs, {}, optimized));
        ASSERT_EQ(got.size(), ref.size());
        for (size_t i = 0; i < ref.size(); i++) {
            ASSERT_EQ(got[i].first, ref[i].first);
            ASSERT_EQ(got[i].second.size(), ref[i].second.size()) << got[i].first;
            EXPECT_EQ(0, std::memcmp(got[i].second.data(), ref[i].second.data(), ref[i].second.size() * 4))
                << "output " << got[i].first << " differs at " << threads << " threads";
        }
    }
    EXPECT_GT(parallel_jobs_run(), jobs_before) << "nothing ran on the pool: the case does not test a split";
}

void expect_same_bits(const std::string& what, const std::string& param, const std::map<std::string, Shape>& shapes,
                      bool optimized = true) {
    expect_same_bits_graph(what, test::graph_from_text(param, 7), shapes, optimized);
}

// An int8 model (layers with int8_scale_term) from inline text: random fp32 weights, which the
// layers quantize at load with their weight scales, and the bottom (and top) scales set here to
// values ncnn2table would pick for inputs in [-1, 1] (the random weight scales are kept).
Graph int8_graph(const std::string& param) {
    Graph g = test::graph_from_text(param, 7);
    for (auto& l : g.layers) {
        if (l.type != "Convolution" && l.type != "ConvolutionDepthWise" && l.type != "InnerProduct")
            continue;
        const bool top = l.params.get_int(8, 0) > 100;
        const size_t k = l.weights.size();
        // weight scales that keep the codes in range for weights in +-sqrt(3 / fan_in) (fan_in >= 9)
        WeightArray& ws = l.weights[k - (top ? 3 : 2)];
        ws.set_values(std::vector<float>(ws.data.size(), 300.f));
        l.weights[k - (top ? 2 : 1)].set_values({90.f});  // bottom scale
        if (top)
            l.weights[k - 1].set_values({20.f});  // top scale
    }
    return g;
}

std::string net(int layers, int blobs, const std::string& body) {
    return "7767517\n" + std::to_string(layers) + " " + std::to_string(blobs) + "\n" + body;
}

}  // namespace

TEST(LayersThreads, ConvolutionWinograd) {
    expect_same_bits("winograd 17->19 13x11",
                     net(2, 2, "Input in 0 1 x 0=11 1=13 2=17\n"
                               "Convolution c 1 1 x y 0=19 1=3 4=1 5=1 6=2907 9=1\n"),
                     {});
}

// F(6,3) (256 channels, a 25x23 output) and F(4,3) on a 512-channel layer (U over 2 MB: wide
// tile blocks) split over threads by tile blocks.
TEST(LayersThreads, ConvolutionWinogradLargeTiles) {
    expect_same_bits("winograd63 256->264 25x23",
                     net(2, 2, "Input in 0 1 x 0=23 1=25 2=256\n"
                               "Convolution c 1 1 x y 0=264 1=3 4=1 5=1 6=608256 9=1\n"),
                     {});
    expect_same_bits("winograd43 512->512 14x14",
                     net(2, 2, "Input in 0 1 x 0=14 1=14 2=512\n"
                               "Convolution c 1 1 x y 0=512 1=3 4=1 5=1 6=2359296\n"),
                     {});
}

// The two ways a Winograd layer splits (kernels/winograd.h winograd_split_by_channel), each with
// a fused residual Add (+ ReLU) in its stores: by output/input channel (few tiles: one block of a
// 13x11 output), and by tile ranges (a 99x97 output, 625 tiles in several blocks, ragged last
// panel). The split is asserted first, so each case is known to test the path it names.
TEST(LayersThreads, ConvolutionWinogradBothSplitsWithResidual) {
    using kernels::Winograd;
    const auto split_of = [](int w, int h, int ch, int parts) {
        const int tiles = ((w + 3) / 4) * ((h + 3) / 4);
        return kernels::winograd_split_by_channel(tiles, kernels::winograd_tile_block(Winograd::F43, ch, ch, tiles),
                                                  ch, parts);
    };
    for (int parts : {2, 3, 4}) {
        EXPECT_TRUE(split_of(13, 11, 16, parts)) << parts;
        EXPECT_FALSE(split_of(97, 99, 16, parts)) << parts;
    }
    EXPECT_FALSE(split_of(13, 11, 16, 1));  // one part: plain blocks
    for (auto [w, h] : {std::pair{13, 11}, {97, 99}}) {
        const std::string size = "0=" + std::to_string(w) + " 1=" + std::to_string(h);
        expect_same_bits("winograd 16->16 " + std::to_string(w) + "x" + std::to_string(h) + " + residual",
                         net(5, 6, "Input in 0 1 x " + size + " 2=16\n"
                                   "Split s 1 2 x x1 x2\n"
                                   "Convolution c 1 1 x1 y 0=16 1=3 4=1 5=1 6=2304\n"
                                   "BinaryOp add 2 1 y x2 z 0=0\n"
                                   "ReLU r 1 1 z out\n"),
                         {});
    }
}

// resnet18's shapes: 512 channels at 7x7 (4 tiles, one block), 256 at 14x14 and 128 at 28x28
// (large U, one block) split by channel at any thread count; 64 at 56x56 (196 tiles, 9 blocks)
// by tiles at 2 threads.
TEST(LayersThreads, WinogradSplitChoice) {
    using kernels::Winograd;
    const auto by_channel = [](int side, int ch, int parts) {
        const int tiles = ((side + 3) / 4) * ((side + 3) / 4);
        return kernels::winograd_split_by_channel(tiles, kernels::winograd_tile_block(Winograd::F43, ch, ch, tiles),
                                                  ch, parts);
    };
    for (int parts : {2, 3, 8}) {
        EXPECT_TRUE(by_channel(7, 512, parts));
        EXPECT_TRUE(by_channel(14, 256, parts));
        EXPECT_TRUE(by_channel(28, 128, parts));
    }
    EXPECT_FALSE(by_channel(56, 64, 2));
    for (int side : {7, 56, 224})
        EXPECT_FALSE(by_channel(side, 64, 1));
}

TEST(LayersThreads, ConvolutionGemmForms) {
    expect_same_bits("1x1 5->7 9x13 leaky",
                     net(2, 2, "Input in 0 1 x 0=13 1=9 2=5\n"
                               "Convolution c 1 1 x y 0=7 1=1 5=1 6=35 9=2 -23310=1,1.0e-01\n"),
                     {});
    expect_same_bits("3x3 s2 3->9 15x17",
                     net(2, 2, "Input in 0 1 x 0=17 1=15 2=3\n"
                               "Convolution c 1 1 x y 0=9 1=3 3=2 4=1 5=1 6=243\n"),
                     {});
    expect_same_bits("5x5 d2 4->5 19x14 sigmoid",
                     net(2, 2, "Input in 0 1 x 0=14 1=19 2=4\n"
                               "Convolution c 1 1 x y 0=5 1=5 2=2 4=2 5=1 6=500 9=4\n"),
                     {});
    expect_same_bits("3x3 s1 few channels (im2col) 3->6 21x23",
                     net(2, 2, "Input in 0 1 x 0=23 1=21 2=3\n"
                               "Convolution c 1 1 x y 0=6 1=3 4=1 5=1 6=162\n"),
                     {});
}

TEST(LayersThreads, ConvolutionDepthWise) {
    for (auto [k, s] : {std::pair{3, 1}, {3, 2}, {5, 1}, {5, 2}, {7, 1}}) {
        const int C = 11;
        expect_same_bits("dw " + std::to_string(k) + "x" + std::to_string(k) + " s" + std::to_string(s),
                         net(2, 2, "Input in 0 1 x 0=17 1=13 2=11\n"
                                   "ConvolutionDepthWise d 1 1 x y 0=11 1=" +
                                       std::to_string(k) + " 3=" + std::to_string(s) + " 4=" + std::to_string(k / 2) +
                                       " 5=1 6=" + std::to_string(C * k * k) + " 7=11 9=1\n"),
                         {});
    }
    expect_same_bits("grouped 3x3 6->9 g3",
                     net(2, 2, "Input in 0 1 x 0=15 1=11 2=6\n"
                               "ConvolutionDepthWise d 1 1 x y 0=9 1=3 4=1 5=1 6=162 7=3\n"),
                     {});
    expect_same_bits("grouped 1x1 12->12 g2 (one group's GEMM split)",
                     net(2, 2, "Input in 0 1 x 0=15 1=11 2=12\n"
                               "ConvolutionDepthWise d 1 1 x y 0=12 1=1 5=1 6=72 7=2\n"),
                     {});
}

TEST(LayersThreads, Pooling) {
    expect_same_bits("max 3x3 s2",
                     net(2, 2, "Input in 0 1 x 0=17 1=15 2=7\nPooling p 1 1 x y 0=0 1=3 2=2 3=1\n"), {});
    expect_same_bits("avg 2x2 s2 excluding pad",
                     net(2, 2, "Input in 0 1 x 0=17 1=15 2=7\nPooling p 1 1 x y 0=1 1=2 2=2 3=1 6=0\n"), {});
    expect_same_bits("global avg", net(2, 2, "Input in 0 1 x 0=9 1=7 2=13\nPooling p 1 1 x y 0=1 4=1\n"), {});
    expect_same_bits("global max", net(2, 2, "Input in 0 1 x 0=9 1=7 2=13\nPooling p 1 1 x y 0=0 4=1\n"), {});
}

TEST(LayersThreads, Deconvolution) {
    expect_same_bits("deconv 4x4 s2 5->7 relu",
                     net(2, 2, "Input in 0 1 x 0=9 1=7 2=5\n"
                               "Deconvolution d 1 1 x y 0=7 1=4 3=2 4=1 5=1 6=560 9=1\n"),
                     {});
    expect_same_bits("deconv dw 3x3 s2 6",
                     net(2, 2, "Input in 0 1 x 0=9 1=7 2=6\n"
                               "DeconvolutionDepthWise d 1 1 x y 0=6 1=3 3=2 5=1 6=54 7=6\n"),
                     {});
    expect_same_bits("deconv grouped 3x3 s1 6->4 g2 sigmoid",
                     net(2, 2, "Input in 0 1 x 0=11 1=5 2=6\n"
                               "DeconvolutionDepthWise d 1 1 x y 0=4 1=3 5=1 6=108 7=2 9=4\n"),
                     {});
}

TEST(LayersThreads, InnerProductAndGemm) {
    expect_same_bits("innerproduct flatten 3x5x7 -> 37",
                     net(2, 2, "Input in 0 1 x 0=7 1=5 2=3\nInnerProduct fc 1 1 x y 0=37 1=1 2=3885 9=1\n"), {});
    expect_same_bits("innerproduct rows [5, 23] -> 13",
                     net(2, 2, "Input in 0 1 x 0=23 1=5\nInnerProduct fc 1 1 x y 0=13 1=1 2=299\n"), {});
    expect_same_bits("gemm [7, 9] x W^T[9, 11] + b",
                     net(2, 2, "Input in 0 1 x 0=9 1=7\nGemm g 1 1 x y 3=1 5=1 6=1 8=11 9=9 10=4\n"), {});
}

TEST(LayersThreads, MultiHeadAttention) {
    expect_same_bits("mha E12 H3 5 tokens",
                     net(2, 2, "Input in 0 1 x 0=12 1=5\n"
                               "MultiHeadAttention mha 1 1 x y 0=12 1=3 2=144 6=5.0e-01\n"),
                     {});
}

TEST(LayersThreads, Elementwise) {
    expect_same_bits("binary same shape, broadcast channel, scalar, row",
                     net(8, 10,
                         "Input a 0 1 a 0=37 1=5 2=3\n"
                         "Input b 0 1 b 0=37 1=5 2=3\n"
                         "Input s 0 1 s 0=1 1=1 2=3\n"
                         "Input r 0 1 r 0=37\n"
                         "BinaryOp add 2 1 a b ab 0=0\n"
                         "BinaryOp mul 2 1 ab s abs 0=2\n"
                         "BinaryOp rsub 2 1 abs r abr 0=7\n"
                         "BinaryOp div 1 1 abr y 0=3 1=1 2=3.0e+00\n"),
                     {});
    expect_same_bits("eltwise weighted sum, max, sigmoid, swish, gelu",
                     net(8, 9,
                         "Input a 0 1 a 0=131 1=3\n"
                         "Input b 0 1 b 0=131 1=3\n"
                         "Split sp 1 2 a a1 a2\n"
                         "Eltwise e 2 1 a1 b s 0=1 -23301=2,5.0e-01,-2.0e+00\n"
                         "Eltwise m 2 1 a2 s mx 0=2\n"
                         "Sigmoid sg 1 1 mx sgo\n"
                         "Swish sw 1 1 sgo swo\n"
                         "GELU ge 1 1 swo y 0=1\n"),
                     {});
}

TEST(LayersThreads, ReferenceLayers) {
    expect_same_bits("softmax over channels and over w, layernorm rows",
                     net(6, 8,
                         "Input in 0 1 x 0=13 1=7 2=5\n"
                         "Split sp 1 3 x x1 x2 x3\n"
                         "Softmax s0 1 1 x1 y0 0=0\n"
                         "Softmax s2 1 1 x2 y2 0=2 1=1\n"
                         "LayerNorm ln 1 1 x3 ln 0=13 1=1.0e-05 2=1\n"
                         "ReLU r 1 1 ln y 0=1.0e-01\n"),
                     {});
    expect_same_bits("batchnorm, scale, hardswish, interp bilinear and nearest",
                     net(6, 7,
                         "Input in 0 1 x 0=9 1=7 2=5\n"
                         "BatchNorm bn 1 1 x bn 0=5\n"
                         "Scale sc 1 1 bn sc 0=5 1=1\n"
                         "HardSwish hs 1 1 sc hs\n"
                         "Split sp 1 2 hs h1 h2\n"
                         "Interp up 1 1 h1 y 0=2 1=2.0e+00 2=3.0e+00\n"),
                     {});
    expect_same_bits("interp nearest and bicubic",
                     net(3, 3,
                         "Input in 0 1 x 0=9 1=7 2=5\n"
                         "Interp n 1 1 x n 0=1 3=11 4=13\n"
                         "Interp c 1 1 n y 0=3 1=2.0e+00 2=2.0e+00\n"),
                     {});
    expect_same_bits("LRN across channels and within a channel",
                     net(4, 5,
                         "Input in 0 1 x 0=9 1=7 2=11\n"
                         "Split sp 1 2 x x1 x2\n"
                         "LRN a 1 1 x1 y 0=0 1=5 2=1.0e-04 3=7.5e-01\n"
                         "LRN w 1 1 x2 z 0=1 1=3 2=1.0e-04 3=7.5e-01 4=2.0e+00\n"),
                     {});
}

// Concat copies ranges of 16k floats of its output on threads, each range in pieces inside one
// input's run: along channels (one run per input) and along h (runs per channel row), with
// ranges that start and end inside runs.
// Padding of a [c,h,w] blob splits by output channel: channels added front and back (BlazeFace's
// residual shortcut), and a spatial reflect pad.
TEST(LayersThreads, PaddingChannels) {
    expect_same_bits("channel and reflect padding",
                     net(4, 5,
                         "Input in 0 1 x 0=13 1=11 2=6\n"
                         "Split sp 1 2 x x1 x2\n"
                         "Padding pc 1 1 x1 y 7=2 8=3 5=1.5e+00\n"
                         "Padding pr 1 1 x2 z 0=1 1=2 2=2 3=1 4=2\n"),
                     {});
}

// Crop copies output rows on threads when the crop cuts inside a channel (w/h offsets, a 4D depth
// range); a crop of whole channels (yolov4-tiny's CSP split) is a view of its input, run here beside
// them (no copy, so nothing to split, but its consumer must still see the same values).
TEST(LayersThreads, CropRows) {
    expect_same_bits("crop inside channels, 4D depth range and a whole-channel view",
                     net(7, 9,
                         "Input in 0 1 x 0=13 1=11 2=6\n"
                         "Split sp 1 3 x x1 x2 x3\n"
                         "Crop cw 1 1 x1 y 0=2 1=3 2=1 3=9 4=7 5=4\n"
                         "Crop cc 1 1 x2 v 2=2 3=13 4=11 5=3\n"
                         "ReLU r 1 1 v z 0=1.0e-01\n"
                         "Reshape rs 1 1 x3 x4 0=13 1=11 11=3 2=2\n"
                         "Crop cd 1 1 x4 t 13=1 14=2 3=-233 4=-233 5=-233\n"),
                     {});
}

TEST(LayersThreads, ConcatRanges) {
    expect_same_bits("concat over channels and over h",
                     net(6, 6,
                         "Input a 0 1 x 0=70 1=61 2=5\n"
                         "Input b 0 1 y 0=70 1=61 2=3\n"
                         "Input c 0 1 z 0=70 1=17 2=5\n"
                         "Concat cc 2 1 x y xy 0=0\n"
                         "Concat ch 2 1 x z xz 0=1\n"
                         "Concat one 1 1 xy out 0=0\n"),
                     {});
}

TEST(LayersThreads, PiecewiseActivationsAndSoftmaxFast) {
    expect_same_bits("clip, hardsigmoid, relu, softmax over h and over a 1D blob",
                     net(8, 10,
                         "Input in 0 1 x 0=67 1=5 2=7\n"
                         "Split sp 1 2 x x1 x2\n"
                         "Clip cl 1 1 x1 c 0=-2.5e-01 1=5.0e-01\n"
                         "HardSigmoid hg 1 1 c h\n"
                         "ReLU r 1 1 h y0\n"
                         "Softmax sh 1 1 x2 s 0=1 1=1\n"
                         "Reshape rs 1 1 s f 0=-1\n"
                         "Softmax sf 1 1 f y1 0=0\n"),
                     {});
}

// The int8 paths (layers/int8_forward.cpp): the kernels' path of the optimized layers (SIMD
// builds: depthwise by channel, GEMM by column tiles and output-channel blocks) and the reference
// loops (by output channel) of both layer sets; quantized and int8 inputs, requantized and
// dequantized outputs, odd sizes.
TEST(LayersThreads, Int8ConvolutionDepthWiseInnerProduct) {
    const std::string body =
        "Input in 0 1 x 0=23 1=19 2=5\n"
        // 3x3 s1 pad 1, requantized (its int8 output feeds the next layers as codes)
        "Convolution c1 1 1 x a 0=13 1=3 4=1 5=1 6=585 8=102 9=1\n"
        "Split sp 1 2 a a1 a2\n"
        // depthwise 3x3 s2 and s1 on the codes, leaky relu / none
        "ConvolutionDepthWise d1 1 1 a1 b 0=13 1=3 3=2 4=1 5=1 6=117 7=13 8=101 9=1\n"
        "ConvolutionDepthWise d2 1 1 a2 e 0=13 1=3 4=1 5=1 6=117 7=13 8=1 9=2 -23310=1,1.0e-01\n"
        // 1x1 on the requantized depthwise output, dequantized; grouped 3x3 s2; a sigmoid (the
        // reference store in every build)
        "Convolution c2 1 1 b c 0=17 1=1 5=1 6=221 8=1\n"
        "ConvolutionDepthWise g1 1 1 e f 0=26 1=3 3=2 4=1 5=1 6=234 7=13 8=2 9=4\n"
        "InnerProduct ip 1 1 c y 0=37 1=1 2=" + std::to_string(37 * 17 * 12 * 10) + " 8=1\n"
        "Convolution c3 1 1 f z 0=7 1=3 4=1 5=1 6=1638 8=1 9=1\n";
    const Graph chain = int8_graph(net(9, 10, body));
    {
        // the scales give outputs that vary (a chain that saturated or zeroed would compare nothing)
        Net probe;
        ASSERT_TRUE(probe.load(chain).is_ok());
        const auto outs = test::run_graph(chain, test::random_inputs(probe, 11, {}), {}, true);
        ASSERT_EQ(outs.size(), 2u);
        for (auto& kv : outs) {
            const std::vector<float> v = test::to_vector(kv.second);
            const auto mm = std::minmax_element(v.begin(), v.end());
            EXPECT_LT(*mm.first, *mm.second) << kv.first << " is constant";
        }
    }
    for (bool optimized : {true, false})
        expect_same_bits_graph(std::string("int8 chain ") + (optimized ? "optimized" : "reference"), chain, {},
                               optimized);
    // a wide 1x1 and a 3x3 with many input channels: several GEMM tiles and row blocks
    expect_same_bits_graph("int8 1x1 40->33 on 41x37, 3x3 33->9",
                           int8_graph(net(3, 3,
                                          "Input in 0 1 x 0=37 1=41 2=40\n"
                                          "Convolution c1 1 1 x a 0=33 1=1 5=1 6=1320 8=102 9=1\n"
                                          "Convolution c2 1 1 a y 0=9 1=3 4=1 5=1 6=2673 8=1\n")),
                           {});
    // 3x3 stride 1 with 16+ channels each way: Winograd F(4x4, 3x3) by blocks of tile rows, requantized
    // into a second one, dequantized
    expect_same_bits_graph("int8 winograd43 24->48 on 45x43, 48->24",
                           int8_graph(net(3, 3,
                                          "Input in 0 1 x 0=45 1=43 2=24\n"
                                          "Convolution c1 1 1 x a 0=48 1=3 4=1 5=1 6=10368 8=102 9=1\n"
                                          "Convolution c2 1 1 a y 0=24 1=3 4=1 5=1 6=10368 8=1\n")),
                           {});
}

// nms_sorted checks boxes in blocks (against the boxes kept before the block in parallel, then in
// order within it): the kept set must be the plain greedy loop's, on 1500 boxes (six blocks) with
// many overlaps and many kept, in both NMS forms, at 1 to 3 threads.
// The YOLO heads decode candidates per (input, box, grid row) on threads and join the rows in order
// (the candidate order decides ties in ncnn's sort); the NMS then runs in blocks (next test).
TEST(LayersThreads, YoloHeadsDecodeRows) {
    expect_same_bits("yolov2 and yolov3 heads",
                     net(5, 6,
                         "Input a 0 1 x 0=13 1=11 2=27\n"
                         "Input b 0 1 w 0=7 1=5 2=27\n"
                         "Split sp 1 2 x x1 x2\n"
                         "YoloDetectionOutput d2 1 1 x1 y 0=4 1=3 2=1.0e-01 3=4.5e-01 "
                         "-23304=6,1.0e+00,1.5e+00,2.0e+00,2.5e+00,3.0e+00,3.5e+00\n"
                         "Yolov3DetectionOutput d3 2 1 x2 w z 0=4 1=3 2=1.0e-01 3=4.5e-01 "
                         "-23304=12,1.0e+01,1.4e+01,2.3e+01,2.7e+01,3.7e+01,5.8e+01,8.1e+01,8.2e+01,1.35e+02,1.69e+02,"
                         "3.44e+02,3.19e+02 -23305=6,3.0e+00,4.0e+00,5.0e+00,0.0e+00,1.0e+00,2.0e+00 "
                         "-23306=2,3.2e+01,6.4e+01\n"),
                     {});
}

TEST(LayersThreads, NmsBlocksEqualGreedy) {
    ThreadsGuard guard;
    std::vector<DetBox> boxes(1500);
    uint32_t s = 12345;
    auto next = [&] {
        s = s * 1664525u + 1013904223u;
        return (float)(s >> 8) / 16777216.f;
    };
    for (auto& b : boxes) {
        b.score = next();
        const float cx = next(), cy = next(), w = 0.02f + 0.1f * next(), h = 0.02f + 0.1f * next();
        b.xmin = cx - w / 2;
        b.ymin = cy - h / 2;
        b.xmax = cx + w / 2;
        b.ymax = cy + h / 2;
        b.area = w * h;
    }
    ncnn_sort_descending(boxes);
    if (build_has_threads())
        ASSERT_TRUE(set_num_threads(3).is_ok());  // the pool, sized once for the counts below
    const uint64_t jobs_before = parallel_jobs_run();
    for (NmsForm form : {NmsForm::AreaFromCorners, NmsForm::ProductWithStoredArea}) {
        // the plain greedy loop
        std::vector<size_t> expected;
        for (size_t i = 0; i < boxes.size(); i++) {
            bool keep = true;
            for (size_t j : expected) {
                const DetBox &a = boxes[i], &b = boxes[j];
                float inter = 0.f;
                if (!(a.xmin > b.xmax || a.xmax < b.xmin || a.ymin > b.ymax || a.ymax < b.ymin))
                    inter = (std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin)) *
                            (std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin));
                const float area_a = form == NmsForm::AreaFromCorners ? (a.xmax - a.xmin) * (a.ymax - a.ymin) : a.area;
                const float area_b = form == NmsForm::AreaFromCorners ? (b.xmax - b.xmin) * (b.ymax - b.ymin) : b.area;
                const float uni = area_a + area_b - inter;
                if (form == NmsForm::AreaFromCorners ? inter / uni > 0.3f : inter > 0.3f * uni) {
                    keep = false;
                    break;
                }
            }
            if (keep)
                expected.push_back(i);
        }
        ASSERT_GT(expected.size(), 300u);
        ASSERT_LT(expected.size(), boxes.size() - 300);
        for (int threads : {1, 2, 3}) {
            if (threads > 1 && !build_has_threads())
                break;
            ASSERT_TRUE(set_num_threads(threads).is_ok());
            EXPECT_EQ(nms_sorted(boxes, 0.3f, form), expected) << threads << " threads";
        }
    }
    if (build_has_threads())
        EXPECT_GT(parallel_jobs_run(), jobs_before) << "the blocks never split";
}
