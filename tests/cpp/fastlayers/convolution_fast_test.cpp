// Convolution_fast (im2col + GEMM, 1x1 direct GEMM, Winograd F(4,3) and F(6,3), GEMV) against the
// reference Convolution on edge shapes: 1, 3, 4, 5, 17, 64 channels; 1, 2, 3, 7, 13 wide/high;
// kernels 1x1, 3x3, 5x5, 7x7, 3x1; strides 1, 2, 3; dilation 2; explicit, asymmetric, -233 and -234
// pads with a pad value; every fused activation. Winograd (3x3 s1 with >= 16 channels) is held to
// 1e-3, the rest to 1e-4 (docs/numbers.md). A 3x3 layer picks its algorithm at its first output
// size and keeps it for other sizes.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

struct Conv {
    int C, H, W, O, kw, kh, sw, sh, dw, dh;
    int pl, pr, pt, pb;  // ncnn params 4, 15, 14, 16
    int act;
    int bias;
    float pad_value = 0.f;
};

double check(Conv c, uint32_t& next_seed) {
    const uint32_t seed = next_seed++;
    // a handful of outputs through ReLU can all be 0, which would compare nothing: leaky ReLU there
    if (c.act == 1 && c.O * c.H * c.W <= 16)
        c.act = 2;
    SCOPED_TRACE("C" + std::to_string(c.C) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) + " O" +
                 std::to_string(c.O) + " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " s" +
                 std::to_string(c.sh) + "," + std::to_string(c.sw) + " d" + std::to_string(c.dh) + "," +
                 std::to_string(c.dw) + " pads " + std::to_string(c.pl) + "," + std::to_string(c.pr) + "," +
                 std::to_string(c.pt) + "," + std::to_string(c.pb) + " act " + std::to_string(c.act));
    ParamDict pd = params({{0, c.O}, {1, c.kw}, {11, c.kh}, {3, c.sw}, {13, c.sh}, {2, c.dw}, {12, c.dh},
                           {4, c.pl}, {15, c.pr}, {14, c.pt}, {16, c.pb}, {5, c.bias},
                           {6, c.O * c.C * c.kw * c.kh}, {9, c.act}});
    auto ap = act_params_for(c.act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    if (c.pad_value != 0.f)
        pd.set_float(18, c.pad_value);
    const bool winograd = c.kw == 3 && c.kh == 3 && c.sw == 1 && c.sh == 1 && c.dw == 1 && c.dh == 1 && c.C >= 16 &&
                          c.O >= 16;
    return compare("Convolution", pd, {rand_mat(Shape::d3(c.W, c.H, c.C), seed)}, winograd ? 1e-3 : 1e-4, seed + 1);
}

const int kChannels[] = {1, 3, 4, 5, 17, 64};
const int kSizes[] = {1, 2, 3, 7, 13};

}  // namespace

TEST(ConvolutionFast, OneByOneOnEdgeShapes) {
    uint32_t seed = 1;
    for (int C : kChannels)
        for (int O : {1, 5, 17})
            for (int s : kSizes)
                check({C, s, s + 2, O, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, (int)(seed % 7), (int)(seed & 1)}, seed);
    // stride 2 and padded 1x1 (pixels are gathered / the padded planes are the GEMM's B)
    for (int C : {3, 17})
        for (int s : {1, 7, 13}) {
            check({C, s, s, 6, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1}, seed);
            check({C, s, s + 1, 6, 1, 1, 1, 1, 1, 1, 1, 2, 0, 1, 0, 1, 0.5f}, seed);
        }
}

TEST(ConvolutionFast, ThreeByThreeIm2colOnEdgeShapes) {
    uint32_t seed = 100;
    for (int C : kChannels)
        for (int s : kSizes) {
            // few channels: im2col path even at stride 1
            check({C, s, s, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, (int)(seed % 7), 1}, seed);
            check({C, s + 1, s, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, (int)(seed % 7), 1}, seed);
            check({C, s, s + 3, 3, 3, 3, 2, 2, 1, 1, -233, -233, -233, -233, 0, 0}, seed);
        }
}

TEST(ConvolutionFast, GeneralKernelsStridesDilationsPads) {
    uint32_t seed = 200;
    const Conv cases[] = {
        // C  H   W  O  kw kh sw sh dw dh   pl   pr   pt   pb act bias pv
        {3, 13, 13, 8, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1},
        {4, 13, 11, 5, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 2, 1},
        {3, 13, 13, 7, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, 1},
        {5, 13, 12, 3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3, 0},
        {5, 13, 13, 3, 3, 3, 1, 1, 2, 3, 0, 0, 0, 0, 4, 1},
        {4, 7, 13, 6, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 5, 1},
        {4, 13, 7, 6, 1, 3, 2, 1, 1, 1, 0, 0, 1, 1, 6, 1},
        {3, 13, 13, 4, 3, 3, 3, 3, 1, 1, 0, 1, 2, 0, 1, 1, -0.75f},  // asymmetric pads with a pad value
        {3, 7, 13, 4, 3, 3, 2, 2, 1, 1, -234, -234, -234, -234, 2, 1},
        {3, 12, 13, 4, 4, 4, 2, 2, 1, 1, -233, -233, -233, -233, 0, 1},
        {3, 12, 13, 4, 4, 4, 2, 2, 1, 1, -234, -234, -234, -234, 0, 1},
        {2, 3, 3, 2, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},  // one output pixel
        {17, 9, 9, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, 1},
        // stride 2, no pad, out_w 8: whole 8-pixel panels at stride 2, the last one's last tap on
        // the input's last float
        {1, 9, 17, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1},
        {2, 9, 18, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 1},
    };
    for (const Conv& c : cases)
        check(c, seed);
}

TEST(ConvolutionFast, WinogradOnEdgeShapes) {
    uint32_t seed = 300;
    for (int C : {16, 17, 64})
        for (int O : {16, 19})
            for (int s : kSizes) {
                check({C, s, s, O, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, (int)(seed % 7), (int)(seed & 1)}, seed);
                if (s >= 3)
                    check({C, s, s + 4, O, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1}, seed);
            }
    // asymmetric, SAME and valued pads
    check({17, 13, 7, 16, 3, 3, 1, 1, 1, 1, 0, 2, 1, 0, 1, 1, 0.25f}, seed);
    check({17, 13, 9, 16, 3, 3, 1, 1, 1, 1, -233, -233, -233, -233, 4, 1}, seed);
    check({17, 6, 9, 16, 3, 3, 1, 1, 1, 1, -234, -234, -234, -234, 6, 1}, seed);
}

TEST(ConvolutionFast, OneAndTwoDimensionalInputs) {
    // 1D input of num_input values with a 1x1 kernel: ncnn's InnerProduct form (GEMV)
    for (int C : {1, 5, 64})
        for (int O : {1, 3, 17}) {
            ParamDict pd = params({{0, O}, {1, 1}, {5, 1}, {6, O * C}});
            compare("Convolution", pd, {rand_mat(Shape::d1(C), C + O)}, 1e-4);
        }
    // 2D [h, w] is one channel
    ParamDict pd = params({{0, 4}, {1, 3}, {4, 1}, {5, 1}, {6, 4 * 9}});
    compare("Convolution", pd, {rand_mat(Shape::d2(13, 7), 5)}, 1e-4);
    // 1D that is not the InnerProduct form: one row of one channel
    ParamDict pd1 = params({{0, 3}, {1, 3}, {11, 1}, {5, 1}, {6, 3 * 3}});
    compare("Convolution", pd1, {rand_mat(Shape::d1(11), 6)}, 1e-4);
}

TEST(ConvolutionFast, RejectsWhatTheReferenceRejects) {
    ParamDict pd = params({{0, 4}, {1, 3}, {5, 1}, {6, 4 * 3 * 9}});
    auto w = weights_for("Convolution", pd, 1);
    Built b = build("Convolution", pd, w, true);
    ASSERT_TRUE(b.st.is_ok());
    std::vector<Mat> out;
    // wrong channel count, too small for the kernel
    EXPECT_FALSE(run(*b.layer, {rand_mat(Shape::d3(8, 8, 5), 1)}, out).is_ok());
    EXPECT_FALSE(run(*b.layer, {rand_mat(Shape::d3(2, 8, 3), 1)}, out).is_ok());
    // a 4D input
    EXPECT_FALSE(run(*b.layer, {rand_mat(Shape::d4(8, 8, 2, 3), 1)}, out).is_ok());
}

TEST(ConvolutionFast, ModelSizedShapes) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    uint32_t seed = 400;
    check({64, 56, 56, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1}, seed);   // 1x1, crosses N blocks
    check({64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, seed);   // Winograd
    check({96, 27, 29, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1}, seed);   // Winograd, ragged tiles
    check({64, 28, 28, 128, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1}, seed);  // im2col, K = 576 > one K block
    check({3, 57, 57, 32, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, 1}, seed);    // ResNet's first layer shape
    check({3, 128, 128, 24, 5, 5, 2, 2, 1, 1, 1, 2, 1, 2, 1, 1}, seed);  // BlazeFace front's stem (TF SAME: pads 1, 2)
    check({512, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, seed);   // large channels: F(4,3) on 2x2 tiles
    check({512, 4, 4, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, seed);   // large channels, tiny map: im2col, K = 4608
    check({256, 24, 24, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, seed);  // F(6,3), whole tiles, wide blocks
    // (not Clip: its [-0.5, 0.7] range would hold F(6,3)'s rounding of sums of 2340 unit-range
    // products, about +-20, against 0.7: 1.3e-3)
    check({260, 25, 23, 257, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1}, seed);  // F(6,3), ragged tiles, leaky ReLU
}

// The first output size picks the algorithm (F(6,3) for 25x24, F(4,3) for 8x7 at 256 channels);
// the layer then computes every other size with it, ragged tiles included.
TEST(ConvolutionFast, FirstOutputSizeChoosesTheAlgorithm) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    const int C = 256, O = 258;
    ParamDict pd = params({{0, O}, {1, 3}, {4, 1}, {5, 1}, {6, O * C * 9}, {9, 1}});
    auto w = weights_for("Convolution", pd, 11);
    for (int first : {24, 7}) {
        SCOPED_TRACE("first size " + std::to_string(first));
        Built ref = build("Convolution", pd, w, false);
        Built opt = build("Convolution", pd, w, true);
        ASSERT_TRUE(ref.st.is_ok() && opt.st.is_ok());
        for (int s : {first, 7, 13, 24, 5}) {
            const Mat in = rand_mat(Shape::d3(s + 1, s, C), 100 + s);
            std::vector<Mat> a, b;
            ASSERT_TRUE(run(*ref.layer, {in}, a).is_ok());
            ASSERT_TRUE(run(*opt.layer, {in}, b).is_ok());
            EXPECT_LE(test::rel_err(a[0], b[0]), 1e-3) << "size " << s;
        }
    }
}
