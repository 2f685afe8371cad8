// Depthwise kernels: each against a sliding-window loop written here (bit for bit: same tap
// order) and, in SIMD builds, the SIMD kernels against their scalar twins. Output widths 1..13
// cover the vector body and every tail length; the input buffers are exactly as large as the
// window needs, so an over-read shows under ASan.
#include "kernel_test_util.h"
#include "kernels/dwconv.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

struct Case {
    int kw, kh, sw, sh, dw, dh, out_w, out_h;
};

std::vector<float> naive(const Case& c, const std::vector<float>& in, int in_w, const std::vector<float>& k, float bias,
                         const ActParams& act) {
    std::vector<float> out((size_t)c.out_w * c.out_h);
    for (int y = 0; y < c.out_h; y++)
        for (int x = 0; x < c.out_w; x++) {
            float s = bias;
            for (int i = 0; i < c.kh; i++)
                for (int j = 0; j < c.kw; j++)
                    s += in[(size_t)(y * c.sh + i * c.dh) * in_w + x * c.sw + j * c.dw] * k[i * c.kw + j];
            out[(size_t)y * c.out_w + x] = act_scalar(s, act);
        }
    return out;
}

using Fn = void (*)(const DwPlane&);

void check(const Case& c, Fn scalar, Fn dispatched, Fn simd, uint32_t seed) {
    SCOPED_TRACE("k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " s" + std::to_string(c.sh) + "," +
                 std::to_string(c.sw) + " d" + std::to_string(c.dh) + "," + std::to_string(c.dw) + " out " +
                 std::to_string(c.out_h) + "x" + std::to_string(c.out_w));
    const int in_w = (c.out_w - 1) * c.sw + (c.kw - 1) * c.dw + 1;
    const int in_h = (c.out_h - 1) * c.sh + (c.kh - 1) * c.dh + 1;
    auto in = rand_vec((size_t)in_w * in_h, seed);
    auto k = rand_vec((size_t)c.kw * c.kh, seed + 1);
    ActParams act = make_act((int)(seed % 7), seed % 7 == 3 ? -0.5f : 0.1f, 0.7f);
    DwPlane p;
    p.src = in.data();
    p.in_w = in_w;
    p.out_w = c.out_w;
    p.out_h = c.out_h;
    p.kernel = k.data();
    p.bias = 0.25f;
    p.act = act;
    p.kernel_w = c.kw, p.kernel_h = c.kh, p.stride_w = c.sw, p.stride_h = c.sh, p.dilation_w = c.dw, p.dilation_h = c.dh;
    auto want = naive(c, in, in_w, k, p.bias, act);
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

#if NNFOLD_SIMD
#define SIMD_FN(name) name##__wasmsimd
#else
#define SIMD_FN(name) nullptr
#endif

}  // namespace

TEST(DwConv, FixedKernelsOnEveryTail) {
    uint32_t seed = 1;
    for (int w = 1; w <= 13; w++)
        for (int h : {1, 2, 5}) {
            check({3, 3, 1, 1, 1, 1, w, h}, f32_dwconv3x3s1__scalar, f32_dwconv3x3s1, SIMD_FN(f32_dwconv3x3s1), seed++);
            check({3, 3, 2, 2, 1, 1, w, h}, f32_dwconv3x3s2__scalar, f32_dwconv3x3s2, SIMD_FN(f32_dwconv3x3s2), seed++);
            check({5, 5, 1, 1, 1, 1, w, h}, f32_dwconv5x5s1__scalar, f32_dwconv5x5s1, SIMD_FN(f32_dwconv5x5s1), seed++);
            check({5, 5, 2, 2, 1, 1, w, h}, f32_dwconv5x5s2__scalar, f32_dwconv5x5s2, SIMD_FN(f32_dwconv5x5s2), seed++);
        }
}

TEST(DwConv, GeneralKernel) {
    uint32_t seed = 500;
    const Case cases[] = {{3, 3, 1, 1, 2, 2, 9, 4}, {7, 7, 1, 1, 1, 1, 13, 3}, {3, 1, 1, 1, 1, 1, 11, 2},
                          {1, 3, 2, 1, 1, 3, 6, 5},  {4, 2, 3, 2, 1, 1, 7, 3}, {2, 2, 2, 2, 1, 1, 1, 1},
                          {3, 3, 4, 4, 2, 1, 5, 5},  {1, 1, 1, 1, 1, 1, 13, 1}};
    for (const Case& c : cases)
        check(c, f32_dwconv_general__scalar, f32_dwconv_general, SIMD_FN(f32_dwconv_general), seed++);
}
