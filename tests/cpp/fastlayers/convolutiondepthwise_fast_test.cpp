// ConvolutionDepthWise_fast against the reference ConvolutionDepthWise: depthwise 3x3/5x5 at
// strides 1 and 2, other kernels, dilations and strides (general kernel), group convolutions and
// channel multipliers (per-group GEMM), pads of every kind, every fused activation.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

struct Dw {
    int C, H, W, O, group, kw, kh, sw, sh, dw, dh;
    int pl, pr, pt, pb;
    int act;
    int bias;
    float pad_value = 0.f;
};

void check(Dw c, uint32_t& next_seed) {
    const uint32_t seed = next_seed++;
    // a handful of outputs through ReLU can all be 0, which would compare nothing: leaky ReLU there
    if (c.act == 1 && c.O * c.H * c.W <= 16)
        c.act = 2;
    SCOPED_TRACE("C" + std::to_string(c.C) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) + " O" +
                 std::to_string(c.O) + " g" + std::to_string(c.group) + " k" + std::to_string(c.kh) + "x" +
                 std::to_string(c.kw) + " s" + std::to_string(c.sh) + "," + std::to_string(c.sw) + " d" +
                 std::to_string(c.dh) + "," + std::to_string(c.dw) + " pads " + std::to_string(c.pl) + "," +
                 std::to_string(c.pr) + "," + std::to_string(c.pt) + "," + std::to_string(c.pb) + " act " +
                 std::to_string(c.act));
    ParamDict pd = params({{0, c.O}, {1, c.kw}, {11, c.kh}, {3, c.sw}, {13, c.sh}, {2, c.dw}, {12, c.dh},
                           {4, c.pl}, {15, c.pr}, {14, c.pt}, {16, c.pb}, {5, c.bias}, {7, c.group},
                           {6, c.O * (c.C / c.group) * c.kw * c.kh}, {9, c.act}});
    auto ap = act_params_for(c.act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    if (c.pad_value != 0.f)
        pd.set_float(18, c.pad_value);
    compare("ConvolutionDepthWise", pd, {rand_mat(Shape::d3(c.W, c.H, c.C), seed)}, 1e-4, seed + 1);
}

}  // namespace

TEST(ConvolutionDepthWiseFast, DepthwiseOnEdgeShapes) {
    uint32_t seed = 1;
    for (int C : {1, 3, 4, 5, 17, 64})
        for (int s : {1, 2, 3, 7, 13})
            for (int k : {3, 5})
                for (int st : {1, 2}) {
                    const int p = k / 2;
                    check({C, s, s + 1, C, C, k, k, st, st, 1, 1, p, p, p, p, (int)(seed % 7), (int)(seed & 1)}, seed);
                }
}

TEST(ConvolutionDepthWiseFast, DepthwisePadsAndGeneralWindows) {
    uint32_t seed = 100;
    const Dw cases[] = {
        // C  H   W   O  g  kw kh sw sh dw dh   pl    pr    pt    pb act bias pv
        {5, 13, 13, 5, 5, 3, 3, 1, 1, 1, 1, -233, -233, -233, -233, 1, 1},
        {5, 13, 12, 5, 5, 3, 3, 2, 2, 1, 1, -233, -233, -233, -233, 1, 1},
        {5, 12, 13, 5, 5, 5, 5, 2, 2, 1, 1, -234, -234, -234, -234, 2, 1},
        // SAME_UPPER on even sizes at stride 2: pads 0 left/top, 1 right/bottom (the planar 3x3
        // stride-2 path without a left pad); a partial block of channels
        {6, 16, 20, 6, 6, 3, 3, 2, 2, 1, 1, -233, -233, -233, -233, 3, 1, 0.25f},
        {4, 9, 11, 4, 4, 3, 3, 1, 1, 1, 1, 0, 2, 1, 0, 3, 1, 0.5f},
        {4, 13, 13, 4, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1},   // dilation
        {4, 13, 13, 4, 4, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 4, 1},   // 7x7
        {3, 13, 13, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 5, 1},   // stride 3
        {3, 13, 13, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 6, 1},   // 3x1
        {3, 7, 13, 3, 3, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // unequal strides
        {6, 5, 5, 6, 6, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0},     // one output pixel column
    };
    for (const Dw& c : cases)
        check(c, seed);
}

TEST(ConvolutionDepthWiseFast, GroupConvolutions) {
    uint32_t seed = 200;
    const Dw cases[] = {
        // C  H   W   O  g  kw kh sw sh dw dh pl pr pt pb act bias
        {8, 7, 9, 8, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {6, 13, 13, 9, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2, 1},
        {4, 7, 7, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1},     // channel multiplier 2
        {17, 5, 6, 17, 17, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},  // depthwise 1x1
        {12, 9, 9, 12, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 1},   // grouped 1x1 (planes as B)
        {64, 13, 13, 64, 8, 3, 3, 1, 1, 1, 1, -233, -233, -233, -233, 1, 1},
        {6, 13, 13, 6, 2, 5, 5, 2, 2, 2, 2, 4, 4, 4, 4, 5, 0},
    };
    for (const Dw& c : cases)
        check(c, seed);
}

TEST(ConvolutionDepthWiseFast, ModelSizedShapes) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    uint32_t seed = 300;
    check({128, 56, 56, 128, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, seed);
    check({144, 56, 56, 144, 144, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1}, seed);
    check({240, 28, 28, 240, 240, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 4, 1}, seed);
    check({96, 57, 57, 96, 96, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 5, 1}, seed);
}
