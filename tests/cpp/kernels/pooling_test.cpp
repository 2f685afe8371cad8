// Pooling kernels against loops written here with explicit bounds checks for the virtual border
// (bit for bit) and, in SIMD builds, against their scalar twins; every output width 1..13 (vector
// body, tails, padded edges), exact-size input and row-ring buffers.
#include <algorithm>
#include <cfloat>

#include "kernel_test_util.h"
#include "kernels/pooling.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

using Fn = void (*)(const PoolPlane&);

void check(int K, int S, bool is_max, bool counts, int out_w, int out_h, int pl, int pr, int pt, int pb, Fn scalar,
           Fn dispatched, Fn simd, uint32_t seed) {
    SCOPED_TRACE(std::string(is_max ? "max" : "avg") + " k" + std::to_string(K) + " s" + std::to_string(S) + " out " +
                 std::to_string(out_h) + "x" + std::to_string(out_w) + " pads " + std::to_string(pl) + "," +
                 std::to_string(pr) + "," + std::to_string(pt) + "," + std::to_string(pb) + (counts ? " counts" : ""));
    const int in_w = std::max(1, (out_w - 1) * S + K - pl - pr), in_h = std::max(1, (out_h - 1) * S + K - pt - pb);
    auto in = rand_vec((size_t)in_w * in_h, seed);
    if (is_max && in.size() > 3)
        in[3] = -FLT_MAX;
    const float border = is_max ? -FLT_MAX : 0.f;
    std::vector<int> rc(out_h), cc((out_w + 3) / 4 * 4, 0);
    for (int y = 0; y < out_h; y++)
        rc[y] = 1 + (y * 7 + seed) % K;
    for (int x = 0; x < out_w; x++)
        cc[x] = 1 + (x * 5 + seed) % K;
    PoolPlane p;
    p.win.src = in.data();
    p.win.in_w = in_w;
    p.win.in_h = in_h;
    p.win.pad_left = pl;
    p.win.pad_top = pt;
    p.win.pad_value = border;
    p.win.out_w = out_w;
    p.win.out_h = out_h;
    p.win.kernel_w = p.win.kernel_h = K;
    p.win.stride_w = p.win.stride_h = S;
    std::vector<float> scratch(f32_pool_scratch_floats(p.win));  // exact size: ASan sees over-reads
    p.scratch = scratch.data();
    if (counts) {
        p.row_count = rc.data();
        p.col_count = cc.data();
    }
    std::vector<float> want((size_t)out_w * out_h);
    for (int y = 0; y < out_h; y++)
        for (int x = 0; x < out_w; x++) {
            auto at = [&](int i, int j) {
                const int iy = y * S + i - pt, ix = x * S + j - pl;
                return iy >= 0 && iy < in_h && ix >= 0 && ix < in_w ? in[(size_t)iy * in_w + ix] : border;
            };
            float acc = is_max ? at(0, 0) : 0.f;
            for (int i = 0; i < K; i++)
                for (int j = 0; j < K; j++)
                    acc = is_max ? std::max(acc, at(i, j)) : acc + at(i, j);
            want[(size_t)y * out_w + x] = is_max ? acc : acc / (counts ? (float)(rc[y] * cc[x]) : (float)(K * K));
        }
    std::vector<float> a(want.size()), b(want.size());
    p.dst = a.data();
    scalar(p);
    expect_same_bits(want.data(), a.data(), a.size(), "scalar twin vs loop");
    p.dst = b.data();
    dispatched(p);
    expect_same_bits(want.data(), b.data(), b.size(), "dispatched vs loop");
    if (simd) {
        std::vector<float> v(want.size());
        p.dst = v.data();
        simd(p);
        expect_same_bits(a.data(), v.data(), v.size(), "SIMD vs scalar twin");
    }
}

// One row per kernel of NNFOLD_POOL_WINDOW_KERNELS (kernels/pooling.h): scalar twin, the build's
// kernel, the SIMD kernel (null in scalar builds) and the row's window.
struct WindowKernel {
    const char* name;
    Fn scalar, dispatched, simd;
    bool is_max;
    int K, S;
};
#define NF_POOL_ROW(ret, name, params, args, is_max, K, S) \
    {#name, name##__scalar, name, NF_KERNEL_SIMD_OR_NULL(name), is_max, K, S},
const WindowKernel kWindowKernels[] = {NNFOLD_POOL_WINDOW_KERNELS(NF_POOL_ROW)};
#undef NF_POOL_ROW

}  // namespace

TEST(Pooling, WindowKernelsOnEveryTail) {
    uint32_t seed = 1;
    for (const WindowKernel& k : kWindowKernels) {
        SCOPED_TRACE(k.name);
        for (int w = 1; w <= 13; w++)
            for (int h : {1, 3})
                for (int pad : {0, 1})
                    // every side padded or not; with stride 2, full-mode tails are extra right pads
                    for (int pl : {0, pad})
                        for (int pt : {0, pad})
                            for (int pb : {0, pad}) {
                                const int pr = pad + (k.S == 2 ? (w & 1) : 0);
                                for (bool counts : {false, true}) {
                                    if (counts && k.is_max)
                                        continue;  // counts are the average's divisors
                                    check(k.K, k.S, k.is_max, counts, w, h, pl, pr, pt, pb, k.scalar, k.dispatched,
                                          k.simd, seed++);
                                }
                            }
    }
}

TEST(Pooling, GlobalKernels) {
    uint32_t seed = 100;
    for (size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 49, 100}) {
        auto v = rand_vec(n, seed++);
        float mx = v[0], sum = 0.f;
        for (float x : v) {
            mx = std::max(mx, x);
            sum += x;
        }
        EXPECT_EQ(f32_global_maxpool__scalar(v.data(), n), mx);
        EXPECT_EQ(f32_global_maxpool(v.data(), n), mx);
        // the lane-wise sum is a reordering of the sequential one
        EXPECT_NEAR(f32_global_avgpool__scalar(v.data(), n), sum / n, 1e-6);
        EXPECT_EQ(f32_global_avgpool__scalar(v.data(), n), f32_global_avgpool(v.data(), n));
#if NNFOLD_SIMD
        EXPECT_EQ(f32_global_maxpool__wasmsimd(v.data(), n), mx);
        EXPECT_EQ(f32_global_avgpool__wasmsimd(v.data(), n), f32_global_avgpool__scalar(v.data(), n));
#endif
    }
    // NaN: sticky at p[0] (std::max keeps its first argument), skipped elsewhere
    std::vector<float> v = {NAN, 1.f, 2.f, 3.f, 4.f, 5.f};
    EXPECT_TRUE(std::isnan(f32_global_maxpool(v.data(), v.size())));
    v = {1.f, NAN, 2.f, 7.f, 4.f, 5.f};
    EXPECT_EQ(f32_global_maxpool(v.data(), v.size()), 7.f);
}
