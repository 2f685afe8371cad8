// Pooling kernels against loops written here (bit for bit) and, in SIMD builds, against their
// scalar twins; every output width 1..13 (vector body and tails), exact-size input buffers.
#include <cfloat>

#include "kernel_test_util.h"
#include "kernels/pooling.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

using Fn = void (*)(const PoolPlane&);

void check(int K, int S, bool is_max, bool counts, int out_w, int out_h, Fn scalar, Fn dispatched, Fn simd,
           uint32_t seed) {
    SCOPED_TRACE(std::string(is_max ? "max" : "avg") + " k" + std::to_string(K) + " s" + std::to_string(S) + " out " +
                 std::to_string(out_h) + "x" + std::to_string(out_w) + (counts ? " counts" : ""));
    const int in_w = (out_w - 1) * S + K, in_h = (out_h - 1) * S + K;
    auto in = rand_vec((size_t)in_w * in_h, seed);
    if (is_max && in.size() > 3)
        in[3] = -FLT_MAX;  // a border value
    std::vector<int> rc(out_h), cc(out_w);
    for (int y = 0; y < out_h; y++)
        rc[y] = 1 + (y * 7 + seed) % (K * 1);
    for (int x = 0; x < out_w; x++)
        cc[x] = 1 + (x * 5 + seed) % K;
    PoolPlane p;
    p.src = in.data();
    p.in_w = in_w;
    p.out_w = out_w;
    p.out_h = out_h;
    if (counts) {
        p.row_count = rc.data();
        p.col_count = cc.data();
    }
    std::vector<float> want((size_t)out_w * out_h);
    for (int y = 0; y < out_h; y++)
        for (int x = 0; x < out_w; x++) {
            const float* s = in.data() + (size_t)y * S * in_w + x * S;
            float acc = is_max ? s[0] : 0.f;
            for (int i = 0; i < K; i++)
                for (int j = 0; j < K; j++) {
                    float v = s[(size_t)i * in_w + j];
                    acc = is_max ? std::max(acc, v) : acc + v;
                }
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

#if NNFOLD_SIMD
#define SIMD_FN(name) name##__wasmsimd
#else
#define SIMD_FN(name) nullptr
#endif

}  // namespace

TEST(Pooling, WindowKernelsOnEveryTail) {
    uint32_t seed = 1;
    for (int w = 1; w <= 13; w++)
        for (int h : {1, 3}) {
            check(2, 2, true, false, w, h, f32_maxpool2x2s2__scalar, f32_maxpool2x2s2, SIMD_FN(f32_maxpool2x2s2), seed++);
            check(3, 1, true, false, w, h, f32_maxpool3x3s1__scalar, f32_maxpool3x3s1, SIMD_FN(f32_maxpool3x3s1), seed++);
            check(3, 2, true, false, w, h, f32_maxpool3x3s2__scalar, f32_maxpool3x3s2, SIMD_FN(f32_maxpool3x3s2), seed++);
            for (bool counts : {false, true}) {
                check(2, 2, false, counts, w, h, f32_avgpool2x2s2__scalar, f32_avgpool2x2s2, SIMD_FN(f32_avgpool2x2s2), seed++);
                check(3, 1, false, counts, w, h, f32_avgpool3x3s1__scalar, f32_avgpool3x3s1, SIMD_FN(f32_avgpool3x3s1), seed++);
                check(3, 2, false, counts, w, h, f32_avgpool3x3s2__scalar, f32_avgpool3x3s2, SIMD_FN(f32_avgpool3x3s2), seed++);
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
