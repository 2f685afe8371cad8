// Depthwise kernels: each against a sliding-window loop written here with explicit bounds checks
// for the virtual pads (bit for bit: same tap order) and, in SIMD builds, the SIMD kernels against
// their scalar twins. Output widths 1..13 and heights 1..5 cover the vector body, every tail, the
// row pairs and the padded edges; the pack4 kernels also run blocks of 1..4 channels (the missing
// lanes must not be stored) with planes further apart than their size. Input buffers are exactly
// as large as the window needs and scratch exactly its documented size, so an over-read shows
// under ASan; output planes sit between canaries that must stay untouched.
#include <algorithm>

#include "kernel_test_util.h"
#include "kernels/dwconv.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

struct Case {
    int kw, kh, sw, sh, dw, dh, out_w, out_h;
    int pl = 0, pr = 0, pt = 0, pb = 0;  // virtual pads
};

using Fn = void (*)(const DwPlane&);

void check(const Case& c, Fn scalar, Fn dispatched, Fn simd, uint32_t seed) {
    SCOPED_TRACE("k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " s" + std::to_string(c.sh) + "," +
                 std::to_string(c.sw) + " d" + std::to_string(c.dh) + "," + std::to_string(c.dw) + " out " +
                 std::to_string(c.out_h) + "x" + std::to_string(c.out_w) + " pads " + std::to_string(c.pl) + "," +
                 std::to_string(c.pr) + "," + std::to_string(c.pt) + "," + std::to_string(c.pb));
    // the unpadded input the padded window needs (at least one pixel)
    const int in_w = std::max(1, (c.out_w - 1) * c.sw + (c.kw - 1) * c.dw + 1 - c.pl - c.pr);
    const int in_h = std::max(1, (c.out_h - 1) * c.sh + (c.kh - 1) * c.dh + 1 - c.pt - c.pb);
    auto in = rand_vec((size_t)in_w * in_h, seed);
    auto k = rand_vec((size_t)c.kw * c.kh, seed + 1);
    const float pad_value = 0.375f;
    ActParams act = make_act((int)(seed % 7), seed % 7 == 3 ? -0.5f : 0.1f, 0.7f);
    DwPlane p;
    p.win.src = in.data();
    p.win.in_w = in_w;
    p.win.in_h = in_h;
    p.win.pad_left = c.pl;
    p.win.pad_top = c.pt;
    p.win.pad_value = pad_value;
    p.win.out_w = c.out_w;
    p.win.out_h = c.out_h;
    p.win.kernel_w = c.kw, p.win.kernel_h = c.kh, p.win.stride_w = c.sw, p.win.stride_h = c.sh;
    p.win.dilation_w = c.dw, p.win.dilation_h = c.dh;
    p.kernel = k.data();
    p.bias = 0.25f;
    p.act = act;
    ASSERT_TRUE(f32_dwconv_supported(p.win));
    std::vector<float> scratch(f32_dwconv_scratch_floats(p.win));  // exact size: ASan sees over-reads
    p.scratch = scratch.data();
    std::vector<float> want((size_t)c.out_w * c.out_h);
    for (int y = 0; y < c.out_h; y++)
        for (int x = 0; x < c.out_w; x++) {
            float s = p.bias;
            for (int i = 0; i < c.kh; i++)
                for (int j = 0; j < c.kw; j++) {
                    const int iy = y * c.sh + i * c.dh - c.pt, ix = x * c.sw + j * c.dw - c.pl;
                    const float v = iy >= 0 && iy < in_h && ix >= 0 && ix < in_w ? in[(size_t)iy * in_w + ix] : pad_value;
                    s += v * k[i * c.kw + j];
                }
            want[(size_t)y * c.out_w + x] = act_scalar(s, act);
        }
    std::vector<float> a(want.size()), b(want.size());
    p.dst = a.data();
    scalar(p);
    expect_same_bits(want.data(), a.data(), a.size(), "scalar twin vs loop");
    p.dst = b.data();
    dispatched(p);
    expect_same_bits(want.data(), b.data(), b.size(), "dispatched kernel vs loop");
    if (simd) {
        std::vector<float> v(want.size());
        p.dst = v.data();
        simd(p);
        expect_same_bits(a.data(), v.data(), v.size(), "SIMD vs scalar twin");
    }
}

// A block of `channels` planes through a pack4 kernel, against the loop per channel.
using BlockFn = void (*)(const DwBlock4&);

void check_block(const Case& c, int channels, BlockFn scalar, BlockFn dispatched, BlockFn simd, uint32_t seed) {
    SCOPED_TRACE("k" + std::to_string(c.kh) + " s" + std::to_string(c.sh) + " out " + std::to_string(c.out_h) + "x" +
                 std::to_string(c.out_w) + " pads " + std::to_string(c.pl) + "," + std::to_string(c.pr) + "," +
                 std::to_string(c.pt) + "," + std::to_string(c.pb) + " channels " + std::to_string(channels));
    const int in_w = std::max(1, (c.out_w - 1) * c.sw + (c.kw - 1) * c.dw + 1 - c.pl - c.pr);
    const int in_h = std::max(1, (c.out_h - 1) * c.sh + (c.kh - 1) * c.dh + 1 - c.pt - c.pb);
    const size_t in_plane = (size_t)in_w * in_h, src_stride = in_plane + 3;  // planes apart
    const size_t out_plane = (size_t)c.out_w * c.out_h, dst_stride = out_plane + 2;
    auto in = rand_vec(src_stride * (channels - 1) + in_plane, seed);  // ends at the last plane
    const int taps = c.kw * c.kh;
    auto k = rand_vec((size_t)channels * taps, seed + 1);
    auto bias = rand_vec((size_t)channels, seed + 2);
    std::vector<float> w4(dw_pack4_weight_floats(channels, taps)), b4(dw_pack4_bias_floats(channels));
    f32_dwconv_pack4_weights(k.data(), bias.data(), channels, taps, w4.data(), b4.data());
    const float pad_value = seed % 3 == 0 ? -0.625f : 0.f;
    // every activation; Clip both ways round (lo > hi is not a clamp: the SIMD kernels take
    // another path for it)
    ActParams act = make_act((int)(seed % 7), seed % 7 == 3 ? -0.5f : 0.1f, 0.7f);
    if (seed % 14 == 10)
        act = make_act(3, 0.7f, -0.5f);
    DwBlock4 p;
    p.win.src = in.data();
    p.win.in_w = in_w;
    p.win.in_h = in_h;
    p.win.pad_left = c.pl;
    p.win.pad_top = c.pt;
    p.win.pad_value = pad_value;
    p.win.out_w = c.out_w;
    p.win.out_h = c.out_h;
    p.win.kernel_w = c.kw, p.win.kernel_h = c.kh, p.win.stride_w = c.sw, p.win.stride_h = c.sh;
    p.src_stride = src_stride;
    p.channels = channels;
    p.dst_stride = dst_stride;
    p.kernel = w4.data();
    p.bias = b4.data();
    p.act = act;
    std::vector<float> scratch(f32_dwconv_pack4_scratch_floats(p.win));
    p.scratch = scratch.data();
    const float canary = 1234.5f;
    const size_t dst_floats = dst_stride * channels;
    std::vector<float> want(dst_floats, canary);
    for (int ch = 0; ch < channels; ch++)
        for (int y = 0; y < c.out_h; y++)
            for (int x = 0; x < c.out_w; x++) {
                float s = bias[ch];
                for (int i = 0; i < c.kh; i++)
                    for (int j = 0; j < c.kw; j++) {
                        const int iy = y * c.sh + i - c.pt, ix = x * c.sw + j - c.pl;
                        const float v = iy >= 0 && iy < in_h && ix >= 0 && ix < in_w
                                            ? in[ch * src_stride + (size_t)iy * in_w + ix]
                                            : pad_value;
                        s += v * k[(size_t)ch * taps + i * c.kw + j];
                    }
                want[ch * dst_stride + (size_t)y * c.out_w + x] = act_scalar(s, act);
            }
    auto run = [&](BlockFn fn, const char* what) {
        std::vector<float> got(dst_floats, canary);
        p.dst = got.data();
        fn(p);
        expect_same_bits(want.data(), got.data(), got.size(), what);
    };
    run(scalar, "scalar twin vs loop");
    run(dispatched, "dispatched kernel vs loop");
    if (simd)
        run(simd, "SIMD vs loop");
}

// One row per kernel of NNFOLD_DWCONV_PACK4_KERNELS (kernels/dwconv.h).
struct Pack4Kernel {
    const char* name;
    BlockFn scalar, dispatched, simd;
    int K, S;
};
#define NF_DWCONV_ROW(ret, name, params, args, K, S) {#name, name##__scalar, name, NF_KERNEL_SIMD_OR_NULL(name), K, S},
const Pack4Kernel kPack4Kernels[] = {NNFOLD_DWCONV_PACK4_KERNELS(NF_DWCONV_ROW)};
#undef NF_DWCONV_ROW

}  // namespace

TEST(DwConv, Pack4KernelsOnEveryTail) {
    uint32_t seed = 1;
    for (const Pack4Kernel& k : kPack4Kernels) {
        SCOPED_TRACE(k.name);
        const int r = k.K / 2;  // the symmetric pad of a same-size output
        for (int w = 1; w <= 13; w++)
            for (int h : {1, 2, 3, 5}) {
                const int ch = 1 + (int)(seed % 4);
                for (int pad : {0, 1})
                    check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, r * pad, r * pad, r * pad, r * pad}, 4, k.scalar,
                                k.dispatched, k.simd, seed++);
                // asymmetric pads (SAME splits, and a split the other way round), partial blocks
                check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, 0, r, 0, r}, ch, k.scalar, k.dispatched, k.simd, seed++);
                check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, r - 1, r + 1, r + 1, r - 1}, 1 + (ch % 4), k.scalar,
                            k.dispatched, k.simd, seed++);
                // the left pad with the right one short (ncnn's pad 1 on an even width at stride 2) or
                // with a last column no output reads: geometries of the planar 3x3 paths (pads 1, 1 too)
                check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, r, r - 1, r, r - 1}, ch, k.scalar, k.dispatched, k.simd,
                            seed++);
                check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, r, r - 2, r - 1, r}, 1 + (ch % 4), k.scalar,
                            k.dispatched, k.simd, seed++);
                // TF-style SAME on an even size (the odd pad column and row right and bottom: 5x5
                // stride 2 pads 1, 2; 3x3 stride 2 pads 0, 1 above) and no left or top pad at all
                check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, r - 1, r, r - 1, r}, ch, k.scalar, k.dispatched, k.simd,
                            seed++);
                check_block({k.K, k.K, k.S, k.S, 1, 1, w, h, 0, 0, 0, r + 1}, 1 + (ch % 4), k.scalar, k.dispatched,
                            k.simd, seed++);
            }
        // no left pad and input columns past the last one read (in_w = 2 * out_w + 1 and + 2 at
        // stride 2: the planar 3x3 stride-2 path without a left pad reads e[2 * out_w] from the row)
        check_block({k.K, k.K, k.S, k.S, 1, 1, 9, 3, 0, -1, 0, 1}, 4, k.scalar, k.dispatched, k.simd, seed++);
        check_block({k.K, k.K, k.S, k.S, 1, 1, 6, 2, 0, -2, 0, 0}, 2, k.scalar, k.dispatched, k.simd, seed++);
        // planes above 128x128 (the 3x3 stride-2 planar paths leave them to the ring)
        check_block({k.K, k.K, k.S, k.S, 1, 1, 66, 66, r, r, r, r}, 4, k.scalar, k.dispatched, k.simd, seed++);
        check_block({k.K, k.K, k.S, k.S, 1, 1, 66, 66, r - 1, r, r - 1, r}, 3, k.scalar, k.dispatched, k.simd, seed++);
        // pads wider than the window reaches into (rows and columns of pad values only)
        check_block({k.K, k.K, k.S, k.S, 1, 1, 4, 3, k.K, k.K, k.K, k.K}, 3, k.scalar, k.dispatched, k.simd, seed++);
        // wide rows: several whole blocks of pixels and the transposing row fill's vector body
        check_block({k.K, k.K, k.S, k.S, 1, 1, 37, 6, r, r, r, r}, 4, k.scalar, k.dispatched, k.simd, seed++);
        check_block({k.K, k.K, k.S, k.S, 1, 1, 37, 6, r, r - 1, r, r - 1}, 4, k.scalar, k.dispatched, k.simd, seed++);
        check_block({k.K, k.K, k.S, k.S, 1, 1, 37, 6, 0, r, 0, r}, 3, k.scalar, k.dispatched, k.simd, seed++);
        check_block({k.K, k.K, k.S, k.S, 1, 1, 38, 5, r - 1, r, r - 1, r}, 4, k.scalar, k.dispatched, k.simd, seed++);
    }
}

TEST(DwConv, Pack4WeightLayout) {
    // 6 channels of 2 taps: block 0 holds channels 0..3, block 1 channels 4, 5 and two zero lanes
    const float w[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, bias[6] = {-1, -2, -3, -4, -5, -6};
    std::vector<float> w4(dw_pack4_weight_floats(6, 2)), b4(dw_pack4_bias_floats(6));
    ASSERT_EQ(w4.size(), 16u);
    ASSERT_EQ(b4.size(), 8u);
    f32_dwconv_pack4_weights(w, bias, 6, 2, w4.data(), b4.data());
    const float want_w[16] = {1, 3, 5, 7, 2, 4, 6, 8, 9, 11, 0, 0, 10, 12, 0, 0};
    const float want_b[8] = {-1, -2, -3, -4, -5, -6, 0, 0};
    expect_same_bits(want_w, w4.data(), 16, "packed weights");
    expect_same_bits(want_b, b4.data(), 8, "packed biases");
    f32_dwconv_pack4_weights(w, nullptr, 6, 2, w4.data(), b4.data());
    for (float b : b4)
        EXPECT_EQ(b, 0.f);
}

TEST(DwConv, GeneralKernel) {
    uint32_t seed = 500;
    const Case cases[] = {{3, 3, 1, 1, 2, 2, 9, 4},          {7, 7, 1, 1, 1, 1, 13, 3, 3, 3, 3, 3},
                          {3, 1, 1, 1, 1, 1, 11, 2, 1, 1},    {1, 3, 2, 1, 1, 3, 6, 5, 0, 0, 3, 3},
                          {4, 2, 3, 2, 1, 1, 7, 3, 1, 2, 0, 1}, {2, 2, 2, 2, 1, 1, 1, 1},
                          {3, 3, 4, 4, 2, 1, 5, 5, 2, 2, 1, 1}, {1, 1, 1, 1, 1, 1, 13, 1},
                          {3, 3, 1, 1, 2, 2, 13, 13, 2, 2, 2, 2}, {5, 5, 3, 3, 1, 1, 4, 4, 4, 4, 4, 4}};
    for (const Case& c : cases)
        check(c, f32_dwconv_general__scalar, f32_dwconv_general, NF_KERNEL_SIMD_OR_NULL(f32_dwconv_general), seed++);
}
