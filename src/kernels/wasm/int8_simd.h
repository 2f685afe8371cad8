// SIMD-128 pieces of the int8 epilogues shared by kernels/wasm/int8_wasmsimd.cpp (the GEMM's
// store), kernels/wasm/int8_dw_wasmsimd.cpp and kernels/wasm/int8_quant_wasmsimd.cpp (the float
// steps of ncnn's dequantize / requantize, lane for lane as the scalar twins compute them).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/activation.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {
namespace i8simd {

// float2int8 (kernels/int8.h: round half away from zero, clamp to [-127, 127], NaN -> 0) of 4
// lanes, as small integers in i32 lanes, without i32x4.trunc_sat_f32x4_s (about eight x86
// instructions in V8): NaN lanes zeroed, clamped to [-127, 127] in float, then
// trunc(v + copysign(0.49999997, v)) and a magic-number conversion (t + 1.5 * 2^23 holds the integer
// t in its low mantissa bits). 0.49999997 is the float below 0.5: ncnn's float2int8_sse adds 0.5,
// which turns 0.49999997 into 1 where std::round gives 0; with the smaller constant the truncated
// sum equals round(v) for every float (all 2^32 bit patterns were checked against float2int8 when
// this was written; tests/cpp/kernels/int8_test.cpp checks the edges).
inline v128_t f2i8_i32(v128_t v) {
    v = wasm_v128_and(v, wasm_f32x4_eq(v, v));
    v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, wasm_f32x4_splat(-127.f)), wasm_f32x4_splat(127.f));
    const v128_t half = wasm_v128_or(wasm_v128_and(v, wasm_i32x4_splat(INT32_MIN)), wasm_f32x4_splat(0.49999997f));
    const v128_t t = wasm_f32x4_trunc(wasm_f32x4_add(v, half));
    return wasm_i32x4_sub(wasm_f32x4_add(t, wasm_f32x4_splat(12582912.f)), wasm_i32x4_splat(0x4B400000));
}

// 16 codes from four f2i8_i32 results (already within [-127, 127]: the narrows do not saturate).
inline v128_t codes16(v128_t a, v128_t b, v128_t c, v128_t d) {
    return wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(a, b), wasm_i16x8_narrow_i32x4(c, d));
}

// Activation types 0..3 on 4 lanes, as act_scalar computes them.
inline v128_t act4(v128_t v, const ActParams& a) {
    switch (a.type) {
    case 1: return wasm_f32x4_pmax(v, wasm_f32x4_splat(0.f));  // v < 0 ? 0 : v (NaN, -0 kept)
    case 2:
        return wasm_v128_bitselect(v, wasm_f32x4_mul(v, wasm_f32x4_splat(a.p0)), wasm_f32x4_gt(v, wasm_f32x4_splat(0.f)));
    case 3: {
        // pmin(v, p1) is v > p1 ? p1 : v exactly (NaN kept); then, when p0 <= p1, pmax(r, p0) is
        // v < p0 ? p0 : r (v < p0 implies r == v): two instructions instead of two compares and
        // two bit selects (relu6, mobilenet_v2's activation, is clip [0, 6])
        if (a.p0 <= a.p1)
            return wasm_f32x4_pmax(wasm_f32x4_pmin(v, wasm_f32x4_splat(a.p1)), wasm_f32x4_splat(a.p0));
        const v128_t r = wasm_v128_bitselect(wasm_f32x4_splat(a.p1), v, wasm_f32x4_gt(v, wasm_f32x4_splat(a.p1)));
        return wasm_v128_bitselect(wasm_f32x4_splat(a.p0), r, wasm_f32x4_lt(v, wasm_f32x4_splat(a.p0)));
    }
    default: return v;
    }
}

// fma4's rare path, std::fma lane by lane: out of line, so the many inlined copies of fma4 stay
// small (the .wasm's gzip budget).
__attribute__((noinline, cold)) inline v128_t fma4_lanes(v128_t x, float scale, float bias) {
    float v[4], out[4];
    wasm_v128_store(v, x);
    for (int i = 0; i < 4; i++)
        out[i] = std::fma(v[i], scale, bias);
    return wasm_v128_load(out);
}

// fma(x, scale, bias) on 4 lanes: the f64 product (exact) plus bias rounds once to f64, then to
// f32; that equals one rounding unless the f64 result lies exactly halfway between two floats (its
// 29 low mantissa bits are 1 followed by zeros: f32 midpoints are f64 numbers, so a rounding to f64
// never crosses one), and those lanes are recomputed with std::fma.
inline v128_t fma4(v128_t x, float scale, float bias) {
    const v128_t sc = wasm_f64x2_splat((double)scale), bi = wasm_f64x2_splat((double)bias);
    const v128_t lo = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(x), sc), bi);
    const v128_t hi = wasm_f64x2_add(
        wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(x, x, 2, 3, 0, 1)), sc), bi);
    v128_t r = wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
    const v128_t low = wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6);  // the low 32 bits of each f64 lane
    const v128_t half = wasm_i32x4_eq(wasm_v128_and(low, wasm_i32x4_splat(0x1fffffff)), wasm_i32x4_splat(0x10000000));
    if (wasm_v128_any_true(half))
        r = fma4_lanes(x, scale, bias);
    return r;
}

// fma((float)x, scale, bias) on 4 int32 lanes x for a row where fma_exact_f64 holds: x converted
// to f64 directly (exact; |x| <= 2^24, so it is also (float)x), times scale (exact), plus bias
// (exact by the condition), then one rounding to float: fma's single rounding of the same exact
// value, with no halfway check and no f32 conversion (10 instructions instead of about 16).
inline v128_t fma4_exact(v128_t x, v128_t scale64, v128_t bias64) {
    const v128_t lo = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_convert_low_i32x4(x), scale64), bias64);
    const v128_t hi = wasm_f64x2_add(
        wasm_f64x2_mul(wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(x, x, 2, 3, 0, 1)), scale64), bias64);
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}

// Whether x * scale + bias is exact in f64 for every integer |x| <= max_abs (<= 2^24, so that x
// is also exactly (float)x). Proof: write scale = S * 2^a and bias = B * 2^c with integers |S|,
// |B| < 2^24 (2^a, 2^c their ulps, a, c >= -149). Then x * scale + bias is an integer multiple of
// 2^e, e = min(a, c) (a zero operand drops out of the min), and its magnitude is at most
// R = max_abs * |scale| + |bias|. If R < 2^(53 + e) the multiple is below 2^53 and f64 holds it
// exactly (2^e >= 2^-149 is far above f64's subnormals). In fma4_exact, x * scale is exact
// (|x * S| < 2^48) and the f64 add of two exact values whose sum is representable is exact. R is
// computed in double (the product is exact, the add rounds by at most 2^-53 relative) and checked
// against 2^(52 + e), a factor 2 of margin. Non-finite scale or bias: false.
inline bool fma_exact_f64(float scale, float bias, double max_abs) {
    if (!(max_abs <= 16777216.0) || !std::isfinite(scale) || !std::isfinite(bias))
        return false;
    auto ulp_exp = [](float f) {
        int e;
        std::frexp(f, &e);  // f = m * 2^e, 0.5 <= |m| < 1: the ulp of a normal float is 2^(e - 24)
        return e - 24 < -149 ? -149 : e - 24;
    };
    if (scale == 0.f && bias == 0.f)
        return true;
    const int e = scale == 0.f ? ulp_exp(bias) : bias == 0.f ? ulp_exp(scale) : std::min(ulp_exp(scale), ulp_exp(bias));
    return max_abs * std::fabs((double)scale) + std::fabs((double)bias) < std::ldexp(1.0, 52 + e);
}

// The rounding half away from zero of lanes already in [0, 127] (or -0), as int32: trunc(v +
// 0.49999997) (v + the float below 0.5 rounds up to the next integer exactly when v's fraction is
// at least 0.5), then the integer from the float's low mantissa bits after adding 1.5 * 2^23.
inline v128_t round_nonneg_i32(v128_t v) {
    const v128_t t = wasm_f32x4_trunc(wasm_f32x4_add(v, wasm_f32x4_splat(0.49999997f)));
    return wasm_i32x4_sub(wasm_f32x4_add(t, wasm_f32x4_splat(12582912.f)), wasm_i32x4_splat(0x4B400000));
}

// f2i8_i32 for lanes known to be >= 0 (or -0) and not NaN: after relu, or clip with 0 <= p0 <= p1,
// of a finite value, times a positive finite top scale (+inf can occur and clamps to 127). Then
// the NaN mask, the lower clamp and the copysign of the rounding constant are not needed: 5
// instructions instead of 10, the same codes.
inline v128_t f2i8_i32_nonneg(v128_t v) { return round_nonneg_i32(wasm_f32x4_pmin(v, wasm_f32x4_splat(127.f))); }

}  // namespace i8simd
}  // namespace kernels
}  // namespace nnfold
