// The activations ncnn fuses into convolution-like layers (activation_type 0..6, see
// layers/fused_activation.h for ncnn's formulas), as the kernels apply them in their stores: a
// scalar form for the scalar twins and an f32x4 form for the SIMD kernels. Both compute the same
// operations in the same order, so a SIMD kernel and its twin agree bit for bit.
//
// They differ from the reference layers only in exp (sigmoid, mish): the reference calls
// std::exp, the kernels use exp_fast below (Cephes expf: Cody-Waite reduction by ln 2 and a
// degree-5 polynomial, within ~2 ulp = 2.4e-7 relative). mish uses the identity
//   tanh(log(1 + e^x)) = n / (n + 2),  n = e^x (e^x + 2)
// which needs one exp instead of exp, log and tanh; ncnn's cut of softplus at x > 20 (softplus = x,
// tanh = 1 in float) is reproduced by clamping x at 20 inside exp (n / (n + 2) rounds to 1 there);
// below -20 both forms are x * e^x to float precision, and below exp's range (e^x < FLT_MIN)
// tanh(softplus) is 0 (x * 0, as in ncnn: -0, or NaN for -inf).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/dispatch.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {

struct ActParams {
    int type = 0;  // 0 none, 1 relu, 2 leaky relu, 3 clip, 4 sigmoid, 5 mish, 6 hardswish
    float p0 = 0.f, p1 = 0.f;
    float lower = 0.f, upper = 0.f;  // hardswish: the bounds ncnn derives from alpha, beta
};

inline ActParams make_act(int type, float p0, float p1) {
    ActParams a;
    a.type = type;
    a.p0 = p0;
    a.p1 = p1;
    if (type == 6 && p0 != 0.f) {
        // ncnn: lower = -beta / alpha; upper = (1 / alpha) + lower
        a.lower = -p1 / p0;
        a.upper = (1.f / p0) + a.lower;
    }
    return a;
}

// exp's input range: below, e^x would be subnormal (the 2^n scale needs n >= -126); above, 2^n
// with n = 128 would overflow. e^88.0297 = 1.7e38 and e^-87.3365 = FLT_MIN bound the result, so
// callers that need +-88.376 (sigmoid) see 1.7e38 instead of 2.7e38 there (a 1e-39 difference).
constexpr float kExpHi = 88.0296919311f;
constexpr float kExpLo = -87.3365447505f;
constexpr float kSigmoidClamp = 88.3762626647949f;  // ncnn's sigmoid input clamp
constexpr float kMishThreshold = 20.f;              // ncnn's softplus threshold

namespace expc {
constexpr float log2e = 1.44269504088896341f;
constexpr float c1 = 0.693359375f;     // ln 2 split in two (Cody-Waite): c1 exact in few bits
constexpr float c2 = -2.12194440e-4f;
constexpr float p0 = 1.9875691500e-4f;
constexpr float p1 = 1.3981999507e-3f;
constexpr float p2 = 8.3334519073e-3f;
constexpr float p3 = 4.1665795894e-2f;
constexpr float p4 = 1.6666665459e-1f;
constexpr float p5 = 5.0000001201e-1f;
}  // namespace expc

inline float exp_fast(float x) {
    using namespace expc;
    // the comparisons mirror min/max in exp_v lane for lane (NaN passes through both)
    x = kExpHi < x ? kExpHi : x;
    x = x < kExpLo ? kExpLo : x;
    float fx = std::floor(x * log2e + 0.5f);
    x = x - fx * c1;
    x = x - fx * c2;
    float z = x * x;
    float y = p0;
    y = y * x + p1;
    y = y * x + p2;
    y = y * x + p3;
    y = y * x + p4;
    y = y * x + p5;
    y = y * z + x;
    y = y + 1.f;
    int32_t n = fx == fx ? (int32_t)fx : 0;  // as i32x4.trunc_sat: NaN -> 0 (fx is in [-126, 127])
    int32_t bits = (int32_t)((uint32_t)(n + 127) << 23);
    float pow2n;
    std::memcpy(&pow2n, &bits, 4);
    return y * pow2n;
}

inline float act_scalar(float v, const ActParams& a) {
    switch (a.type) {
    case 1: return v < 0.f ? 0.f : v;
    case 2: return v > 0.f ? v : v * a.p0;
    case 3: {
        float r = v > a.p1 ? a.p1 : v;
        return v < a.p0 ? a.p0 : r;
    }
    case 4: {
        v = kSigmoidClamp < v ? kSigmoidClamp : v;
        v = v < -kSigmoidClamp ? -kSigmoidClamp : v;
        return 1.f / (1.f + exp_fast(-v));
    }
    case 5: {
        float e = exp_fast(kMishThreshold < v ? kMishThreshold : v);
        float n = e * (e + 2.f);
        float t = n / (n + 2.f);
        t = v < kExpLo ? 0.f : t;  // e^x underflows: tanh(softplus) is 0 as in ncnn
        return v * t;
    }
    case 6: {
        float r = v * (v * a.p0 + a.p1);
        r = v > a.upper ? v : r;
        return v < a.lower ? 0.f : r;
    }
    default: return v;
    }
}

inline void act_scalar(float* p, size_t n, const ActParams& a) {
    if (a.type == 0)
        return;
    for (size_t i = 0; i < n; i++)
        p[i] = act_scalar(p[i], a);
}

// act over p[0 .. n) in place.
#define NNFOLD_ACT_KERNELS(X) X(void, f32_act_inplace, (float* p, size_t n, const ActParams& a), (p, n, a))
NNFOLD_ACT_KERNELS(NF_KERNEL_DECLARE)

// The residual Add and the activation after it that the runtime fuses into a convolution's store
// (runtime/fuse_store.cpp): y[i] = act(y[i] + r[i]) over [0, n), y being the convolution's output
// (its own bias and activation already applied) and r the other addend of the Add. The add is the
// one BinaryOp add / Eltwise sum computes (a + b, commutative in IEEE float, so the operand order of
// the graph does not matter) and act the activation layer's formula (act_scalar / act_v), so the
// fused result has the bits of the unfused layers.
#define NNFOLD_ADD_ACT_KERNELS(X) \
    X(void, f32_add_act_inplace, (float* y, const float* r, size_t n, const ActParams& a), (y, r, n, a))
NNFOLD_ADD_ACT_KERNELS(NF_KERNEL_DECLARE)

// HardSigmoid as ncnn's layer computes it (layers/hardsigmoid.cpp): x < lower -> 0, x > upper -> 1,
// else x * alpha + beta (a multiply and an add, two roundings), the breakpoints being the layer's.
struct HardSigmoidParams {
    float alpha = 0.2f, beta = 0.5f, lower = 0.f, upper = 0.f;
};
inline float hardsigmoid_scalar(float x, const HardSigmoidParams& h) {
    const float r = x * h.alpha + h.beta;
    const float hi = x > h.upper ? 1.f : r;
    return x < h.lower ? 0.f : hi;
}
#define NNFOLD_HARDSIGMOID_KERNELS(X) \
    X(void, f32_hardsigmoid_inplace, (float* p, size_t n, const HardSigmoidParams& h), (p, n, h))
NNFOLD_HARDSIGMOID_KERNELS(NF_KERNEL_DECLARE)

// Swish (SiLU), y = x / (1 + e^-x), as ncnn's Swish layer writes it, with exp_fast: within a few
// ulp of the reference (std::exp). Below x = -88 exp_fast(-x) stops growing (kExpHi), so x / (1 +
// e^-x) would no longer shrink (x = -1e30 would give -6e-9): there y is 0, which is within 6e-37
// of the true value; the reference gives -0 there, and NaN for x = -inf (-inf / inf), where this
// gives 0.
constexpr float kSwishLo = -88.f;
inline float swish_scalar(float x) {
    const float r = x / (1.f + exp_fast(-x));
    return x < kSwishLo ? 0.f : r;
}

// swish over p[0 .. n) in place.
#define NNFOLD_SWISH_KERNELS(X) X(void, f32_swish_inplace, (float* p, size_t n), (p, n))
NNFOLD_SWISH_KERNELS(NF_KERNEL_DECLARE)

// GELU (ncnn's two forms, layers/gelu.cpp) with exp_fast:
//   exact: 0.5 x erfc(-x / sqrt 2) = 0.5 x (1 + erf(x / sqrt 2)), erf by Abramowitz & Stegun
//          7.1.26: erf(z) = 1 - (a1 t + .. + a5 t^5) e^(-z^2), t = 1 / (1 + p z) for z >= 0 (odd
//          symmetry for z < 0), absolute error <= 1.5e-7 in erf, so <= 0.75e-7 |x| in y;
//   tanh:  0.5 x (1 + tanh(u)), u = 0.79788452 (x + 0.044715 x^3), with 1 + tanh(u) written as
//          2 - 2 / (1 + e^(2u)) (exact at the tails: e^(2u) clamps, the fraction goes to 0 or 2).
namespace geluc {
constexpr float rsqrt2 = 0.70710678f;
constexpr float p = 0.3275911f;
constexpr float a1 = 0.254829592f, a2 = -0.284496736f, a3 = 1.421413741f, a4 = -1.453152027f, a5 = 1.061405429f;
constexpr float k0 = 0.79788452f, k1 = 0.044715f;
}  // namespace geluc

inline float gelu_scalar(float x, bool tanh_form) {
    using namespace geluc;
    if (tanh_form) {
        const float u = k0 * (x + k1 * x * x * x);
        const float one_plus_tanh = 2.f - 2.f / (1.f + exp_fast(2.f * u));
        return 0.5f * x * one_plus_tanh;
    }
    const float z = x * rsqrt2;
    const float az = std::fabs(z);
    const float t = 1.f / (1.f + p * az);
    const float poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t;
    const float e = 1.f - poly * exp_fast(-(az * az));  // erf(|z|)
    const float erf_z = z < 0.f ? -e : e;
    return 0.5f * x * (1.f + erf_z);
}

// GELU over p[0 .. n) in place.
#define NNFOLD_GELU_KERNELS(X) X(void, f32_gelu_inplace, (float* p, size_t n, bool tanh_form), (p, n, tanh_form))
NNFOLD_GELU_KERNELS(NF_KERNEL_DECLARE)

#if NNFOLD_SIMD
inline v128_t exp_v(v128_t x) {
    using namespace expc;
    using namespace simd;
    x = min(x, splat(kExpHi));
    x = max(x, splat(kExpLo));
    v128_t fx = wasm_f32x4_floor(add(mul(x, splat(log2e)), splat(0.5f)));
    x = sub(x, mul(fx, splat(c1)));
    x = sub(x, mul(fx, splat(c2)));
    v128_t z = mul(x, x);
    v128_t y = splat(p0);
    y = add(mul(y, x), splat(p1));
    y = add(mul(y, x), splat(p2));
    y = add(mul(y, x), splat(p3));
    y = add(mul(y, x), splat(p4));
    y = add(mul(y, x), splat(p5));
    y = add(mul(y, z), x);
    y = add(y, splat(1.f));
    v128_t n = wasm_i32x4_trunc_sat_f32x4(fx);
    v128_t pow2n = wasm_i32x4_shl(wasm_i32x4_add(n, wasm_i32x4_splat(127)), 23);
    return mul(y, pow2n);
}

inline v128_t swish_v(v128_t x) {
    const v128_t r = wasm_f32x4_div(x, simd::add(simd::splat(1.f), exp_v(wasm_f32x4_neg(x))));
    return simd::select(wasm_f32x4_lt(x, simd::splat(kSwishLo)), simd::zero(), r);
}

// gelu_scalar lane for lane
inline v128_t gelu_v(v128_t x, bool tanh_form) {
    using namespace geluc;
    using namespace simd;
    const v128_t half = splat(0.5f), one = splat(1.f);
    if (tanh_form) {
        const v128_t u = mul(splat(k0), add(x, mul(mul(mul(splat(k1), x), x), x)));
        const v128_t two = splat(2.f);
        const v128_t one_plus_tanh = sub(two, wasm_f32x4_div(two, add(one, exp_v(mul(two, u)))));
        return mul(mul(half, x), one_plus_tanh);
    }
    const v128_t z = mul(x, splat(rsqrt2));
    const v128_t az = wasm_f32x4_abs(z);
    const v128_t t = wasm_f32x4_div(one, add(one, mul(splat(p), az)));
    v128_t poly = add(mul(splat(a5), t), splat(a4));
    poly = add(mul(poly, t), splat(a3));
    poly = add(mul(poly, t), splat(a2));
    poly = add(mul(poly, t), splat(a1));
    poly = mul(poly, t);
    const v128_t e = sub(one, mul(poly, exp_v(wasm_f32x4_neg(mul(az, az)))));
    const v128_t erf_z = select(wasm_f32x4_lt(z, zero()), wasm_f32x4_neg(e), e);
    return mul(mul(half, x), add(one, erf_z));
}

inline v128_t act_v(v128_t v, const ActParams& a) {
    using namespace simd;
    switch (a.type) {
    case 1: return max(v, zero());  // v < 0 ? 0 : v
    case 2: return select(wasm_f32x4_gt(v, zero()), v, mul(v, splat(a.p0)));
    case 3: {
        v128_t lo = splat(a.p0), hi = splat(a.p1);
        v128_t r = select(wasm_f32x4_gt(v, hi), hi, v);
        return select(wasm_f32x4_lt(v, lo), lo, r);
    }
    case 4: {
        v = min(v, splat(kSigmoidClamp));
        v = max(v, splat(-kSigmoidClamp));
        v128_t one = splat(1.f);
        return wasm_f32x4_div(one, add(one, exp_v(wasm_f32x4_neg(v))));
    }
    case 5: {
        v128_t e = exp_v(min(v, splat(kMishThreshold)));
        v128_t n = mul(e, add(e, splat(2.f)));
        v128_t t = wasm_f32x4_div(n, add(n, splat(2.f)));
        t = select(wasm_f32x4_lt(v, splat(kExpLo)), zero(), t);
        return mul(v, t);
    }
    case 6: {
        v128_t r = mul(v, add(mul(v, splat(a.p0)), splat(a.p1)));
        r = select(wasm_f32x4_gt(v, splat(a.upper)), v, r);
        return select(wasm_f32x4_lt(v, splat(a.lower)), zero(), r);
    }
    default: return v;
    }
}
#endif

}  // namespace kernels
}  // namespace nnfold
