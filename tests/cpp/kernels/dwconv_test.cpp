// Depthwise kernels: each against a sliding-window loop written here with explicit bounds checks
// for the virtual pads (bit for bit: same tap order) and, in SIMD builds, the SIMD kernels against
// their scalar twins. Output widths 1..13 and heights 1..5 cover the vector body, every tail, the
// row pairs and the padded edges; the input buffer is exactly as large as the window
// needs and the row-ring scratch exactly its documented size, so an over-read shows under ASan.
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

// One row per kernel of NNFOLD_DWCONV_FIXED_KERNELS (kernels/dwconv.h).
struct FixedKernel {
    const char* name;
    Fn scalar, dispatched, simd;
    int K, S;
};
#define NF_DWCONV_ROW(ret, name, params, args, K, S) {#name, name##__scalar, name, NF_KERNEL_SIMD_OR_NULL(name), K, S},
const FixedKernel kFixedKernels[] = {NNFOLD_DWCONV_FIXED_KERNELS(NF_DWCONV_ROW)};
#undef NF_DWCONV_ROW

}  // namespace

TEST(DwConv, FixedKernelsOnEveryTail) {
    uint32_t seed = 1;
    for (const FixedKernel& k : kFixedKernels) {
        SCOPED_TRACE(k.name);
        const int r = k.K / 2;  // the symmetric pad of a same-size output
        for (int w = 1; w <= 13; w++)
            for (int h : {1, 2, 3, 5}) {
                for (int pad : {0, 1})
                    check({k.K, k.K, k.S, k.S, 1, 1, w, h, r * pad, r * pad, r * pad, r * pad}, k.scalar,
                          k.dispatched, k.simd, seed++);
                // asymmetric pads (SAME splits, and a split the other way round)
                check({k.K, k.K, k.S, k.S, 1, 1, w, h, 0, r, 0, r}, k.scalar, k.dispatched, k.simd, seed++);
                check({k.K, k.K, k.S, k.S, 1, 1, w, h, r - 1, r + 1, r + 1, r - 1}, k.scalar, k.dispatched, k.simd,
                      seed++);
            }
    }
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
