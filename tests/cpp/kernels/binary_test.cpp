// kernels/binary.h and the swish kernel: every op and stride pattern (dense/broadcast operands) on
// lengths around the vector widths (0..19, 64, 1001), against a plain loop written here, the SIMD
// kernel against its scalar twin bit for bit, in place (out aliasing a dense operand), and swish
// against x / (1 + exp(-x)) in double.
#include <cfloat>

#include "kernel_test_util.h"
#include "kernels/activation.h"
#include "kernels/binary.h"
#include "kernels/softmax.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

float expect_op(BinaryKind k, float x, float y) {
    switch (k) {
    case BinaryKind::Add: return x + y;
    case BinaryKind::Sub: return x - y;
    case BinaryKind::Mul: return x * y;
    case BinaryKind::Div: return x / y;
    case BinaryKind::Max: return std::max(x, y);
    case BinaryKind::Min: return std::min(x, y);
    }
    return NAN;
}

const BinaryKind kAll[] = {BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul,
                           BinaryKind::Div, BinaryKind::Max, BinaryKind::Min};

std::vector<size_t> lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n < 20; n++)
        v.push_back(n);
    v.push_back(64);
    v.push_back(1001);
    return v;
}

}  // namespace

TEST(BinaryKernel, EveryOpAndStridePatternMatchesPlainLoop) {
    uint32_t seed = 1;
    for (BinaryKind k : kAll)
        for (int sa : {0, 1})
            for (int sb : {0, 1})
                for (size_t n : lengths()) {
                    auto a = rand_vec(std::max<size_t>(n, 1), seed++), b = rand_vec(std::max<size_t>(n, 1), seed++);
                    // a NaN and signed zeros where max/min's operand order shows
                    if (n > 3) {
                        a[1] = NAN;
                        b[2] = NAN;
                        a[3] = 0.f;
                        b[3] = -0.f;
                    }
                    std::vector<float> want(n), s(n), v(n);
                    for (size_t i = 0; i < n; i++)
                        want[i] = expect_op(k, a[sa ? i : 0], b[sb ? i : 0]);
                    const std::string what = "op " + std::to_string((int)k) + " sa " + std::to_string(sa) + " sb " +
                                             std::to_string(sb) + " n " + std::to_string(n);
                    f32_binary__scalar(k, a.data(), sa, b.data(), sb, s.data(), n);
                    expect_same_bits(want.data(), s.data(), n, "scalar " + what);
                    // signs of zero matter for max/min: bitwise on those two
                    if (n > 3) {
                        EXPECT_EQ(std::signbit(want[3]), std::signbit(s[3])) << what;
                    }
#if NNFOLD_SIMD
                    f32_binary__wasmsimd(k, a.data(), sa, b.data(), sb, v.data(), n);
                    expect_same_bits(want.data(), v.data(), n, "simd " + what);
                    if (n > 3) {
                        EXPECT_EQ(std::signbit(want[3]), std::signbit(v[3])) << what;
                    }
#endif
                }
}

TEST(BinaryKernel, InPlace) {
    for (size_t n : {5, 17, 64}) {
        auto a = rand_vec(n, 3), b = rand_vec(n, 4);
        std::vector<float> want(n);
        for (size_t i = 0; i < n; i++)
            want[i] = a[i] * b[i];
        std::vector<float> x = a;
        f32_binary(BinaryKind::Mul, x.data(), 1, b.data(), 1, x.data(), n);
        expect_same_bits(want.data(), x.data(), n, "out = a");
        std::vector<float> y = b;
        f32_binary(BinaryKind::Mul, a.data(), 1, y.data(), 1, y.data(), n);
        expect_same_bits(want.data(), y.data(), n, "out = b");
    }
}

TEST(BinaryKernel, Axpby) {
    for (size_t n : lengths()) {
        auto a = rand_vec(std::max<size_t>(n, 1), 5), b = rand_vec(std::max<size_t>(n, 1), 6);
        std::vector<float> want(n), s(n), v(n);
        for (size_t i = 0; i < n; i++) {
            const float p = a[i] * 0.3f;  // two rounded products, then a rounded sum
            const float q = b[i] * -1.7f;
            want[i] = p + q;
        }
        f32_axpby__scalar(a.data(), 0.3f, b.data(), -1.7f, s.data(), n);
        expect_same_bits(want.data(), s.data(), n, "axpby scalar");
#if NNFOLD_SIMD
        f32_axpby__wasmsimd(a.data(), 0.3f, b.data(), -1.7f, v.data(), n);
        expect_same_bits(want.data(), v.data(), n, "axpby simd");
#endif
    }
}

TEST(SwishKernel, AccurateAndTwinsAgree) {
    std::vector<float> xs;
    for (float x = -100.f; x <= 100.f; x += 0.0137f)
        xs.push_back(x);
    for (float x : {0.f, -0.f, 1e-30f, -1e-30f, 88.f, -88.f, 89.f, -89.f, 1e30f, -1e30f, FLT_MAX, -FLT_MAX, INFINITY})
        xs.push_back(x);
    xs.push_back(NAN);
    const size_t n = xs.size();
    std::vector<float> s = xs, v = xs;
    f32_swish_inplace__scalar(s.data(), n);
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = xs[i];
        if (std::isnan(xs[i])) {
            EXPECT_TRUE(std::isnan(s[i]));
            continue;
        }
        const double want = std::isinf(x) ? x : x / (1.0 + std::exp(-x));
        // relative where the value is of normal size, absolute (to 1e-30) where it underflows
        const double err = std::fabs(s[i] - want) / std::fmax(std::fabs(want), 1e-30);
        worst = std::fmax(worst, err);
    }
    EXPECT_LE(worst, 1e-6);
#if NNFOLD_SIMD
    f32_swish_inplace__wasmsimd(v.data(), n);
    expect_same_bits(s.data(), v.data(), n, "swish simd vs scalar");
#endif
}

TEST(SoftmaxKernel, MatchesDoubleAndTwinsAgree) {
    for (size_t n : {1, 2, 3, 4, 5, 7, 8, 17, 64, 577, 1000}) {
        auto x = rand_vec(n, 40 + (uint32_t)n, -20.f, 20.f);
        if (n > 3)
            x[2] = -1e30f;  // a masked-out position
        double mx = -1e300, sum = 0;
        for (float v : x)
            mx = std::fmax(mx, v);
        for (float v : x)
            sum += std::exp((double)v - mx);
        std::vector<float> want(n);
        for (size_t i = 0; i < n; i++)
            want[i] = (float)(std::exp((double)x[i] - mx) / sum);
        std::vector<float> s = x, v = x;
        f32_softmax_inplace__scalar(s.data(), n);
        expect_rel(want.data(), s.data(), n, 1e-6, "softmax n " + std::to_string(n));
        if (n > 3) {  // e^-1e30 stops at FLT_MIN in exp_fast: 0 to float precision
            EXPECT_LT(s[2], 1e-37f);
        }
#if NNFOLD_SIMD
        f32_softmax_inplace__wasmsimd(v.data(), n);
        expect_same_bits(s.data(), v.data(), n, "softmax simd vs scalar n " + std::to_string(n));
#endif
    }
}

TEST(GeluKernel, BothFormsAccurateAndTwinsAgree) {
    std::vector<float> xs;
    for (float x = -12.f; x <= 12.f; x += 0.0071f)
        xs.push_back(x);
    for (float x : {0.f, -0.f, 1e-30f, -1e-30f, 40.f, -40.f, 1e30f, -1e30f, INFINITY})
        xs.push_back(x);
    xs.push_back(NAN);
    const size_t n = xs.size();
    for (bool tanh_form : {false, true}) {
        std::vector<float> s = xs, v = xs;
        f32_gelu_inplace__scalar(s.data(), n, tanh_form);
        double worst = 0, maxref = 0;
        for (size_t i = 0; i < n; i++) {
            const double x = xs[i];
            if (std::isnan(xs[i])) {
                EXPECT_TRUE(std::isnan(s[i]));
                continue;
            }
            if (std::fabs(x) > 12)
                continue;
            const double want = tanh_form ? 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
                                          : 0.5 * x * std::erfc(-x / std::sqrt(2.0));
            maxref = std::fmax(maxref, std::fabs(want));
            worst = std::fmax(worst, std::fabs(s[i] - want));
        }
        // docs/numbers.md's measure over the probe range
        EXPECT_LE(worst / maxref, 2e-6) << (tanh_form ? "tanh form" : "erf form");
        // the tails: y -> x above, -> 0 below
        EXPECT_NEAR(gelu_scalar(40.f, tanh_form), 40.f, 1e-5);
        EXPECT_NEAR(gelu_scalar(-40.f, tanh_form), 0.f, 1e-6);
        EXPECT_EQ(gelu_scalar(1e30f, tanh_form), 1e30f);
#if NNFOLD_SIMD
        f32_gelu_inplace__wasmsimd(v.data(), n, tanh_form);
        expect_same_bits(s.data(), v.data(), n, tanh_form ? "gelu tanh simd vs scalar" : "gelu erf simd vs scalar");
#endif
    }
}
