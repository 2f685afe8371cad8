// int8 kernels with SIMD-128 (kernels/int8.h; scalar twins in kernels/int8.cpp):
//   i8_gemm     4 rows x 8 columns per tile, one i32x4.dot_i16x8_s per (row, 4 columns, k pair):
//               a 32-bit splat of the row's pair of int16 weights against the pairs of 4 columns
//               widened from the packed int8 codes (i16x8.extend_{low,high}_i8x16); a last block
//               of at most 4 columns (7x7 maps: N = 49) sums only its low half;
//   i8_dot_rows 16 codes per step: i16x8.extmul_{low,high}_i8x16 (two products of at most
//               127 * 127 each fit an int16 lane: 2 * 16129 < 32768), i32x4.extadd_pairwise_i16x8;
//               4 rows at a time, row-major or interleaved (one stream of 64 bytes per step);
//   i8_store    the float epilogue on 4 lanes with kernels/wasm/int8_simd.h's helpers (fma4, act4,
//               f2i8_i32: float2int8 without i32x4.trunc_sat_f32x4_s); in i8_gemm two rows'
//               codes share one i8x16 narrow (16 codes, two 8-byte stores), and each row's
//               cheapest exact form is chosen once per 4-row block (Store4: thin K makes the
//               store as costly as the sums, so fma4_exact and f2i8_i32_nonneg where they apply;
//               codes out, the direct form: the code from (float)sum * S + B in f32 and one
//               rounding, checked against the halves, the clamp to the activation's codes on
//               16 i8 lanes at once: about 11 instructions per 4 codes instead of 18, proof at
//               direct_for).
//   i16_gemm, i8_wino_input, i8_wino_output: int8 Winograd F(2x2, 3x3) (kernels/int8.h).
// (int8 depthwise: int8_dw_wasmsimd.cpp; quantize/dequantize/requantize: int8_quant_wasmsimd.cpp)
//   i8_pack_b   8 pixels of one output row at stride 1 (8 consecutive bytes: two 64-bit loads
//               per k pair) or 2 (every other byte: two 16-byte loads), one shuffle per k pair;
//               other blocks gathered byte by byte.
// Integer sums are exact in any order; the float steps are the scalar twins', lane for lane.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/int8.h"
#include "kernels/simd.h"
#include "kernels/wasm/int8_simd.h"

namespace nnfold {
namespace kernels {

namespace {

using i8simd::act4;
using i8simd::f2i8_i32;
using i8simd::fma4;

// The store of 4 sums (lanes) of one row: floats, or codes as i32 lanes. The row's float step is
// one of three forms, each giving the bits of the scalar twin's i8_dequant_value:
//   kPlain       (float)x * scale + bias in f32: the unfused form; also the fused one when the bias
//                is +-0: a nonzero exact product (|x| >= 1 and |scale| >= 2^-149, so it never
//                rounds to 0) plus a zero is the product rounded once, and an exact zero product
//                meets the zero bias under the same sign rules in both;
//   kFusedExact  fma4_exact, when fma_exact_f64 holds for the row and the GEMM's sum bound;
//   kFusedEmul   fma4: the f64 emulation with its halfway check (the general case).
// nonneg (codes out): the activated values times top_scale are >= 0 and not NaN (f2i8_i32_nonneg).
// direct (codes out, i8_gemm's paired rows): codes straight from y = (float)x * S + B in f32 with
// S = scale * top_scale and B = bias * top_scale, checked per vector, with the forms above as the
// fallback of a vector whose check fails (direct_for proves it).
enum RowForm : uint8_t { kPlain, kFusedExact, kFusedEmul };
// The operands are kept splatted (the GEMM's store runs per 8 columns, and the splats of loaded
// scalars cost about as much as the arithmetic they feed).
struct Store4 {
    float scale, bias;
    RowForm form;
    bool nonneg;
    const ActParams* act;
    v128_t scale64, bias64, scale32, bias32, top32;
    v128_t dscale, dbias, dlo8, dhi8, dthr;  // direct: S, B, the codes lo and hi (i8 lanes), the check's threshold
    bool direct = false;
    v128_t value(v128_t s) const {
        v128_t v;
        if (form == kFusedExact) {
            v = i8simd::fma4_exact(s, scale64, bias64);
        } else {
            const v128_t sf = wasm_f32x4_convert_i32x4(s);
            v = form == kFusedEmul ? fma4(sf, scale, bias) : wasm_f32x4_add(wasm_f32x4_mul(sf, scale32), bias32);
        }
        return act4(v, *act);
    }
    v128_t codes(v128_t s) const {
        const v128_t w = wasm_f32x4_mul(value(s), top32);
        return nonneg ? i8simd::f2i8_i32_nonneg(w) : f2i8_i32(w);
    }
    // The direct form (direct_for): r = the nearest integer to y, ties to even (|y| < 2^22, so y +
    // 1.5 * 2^23 holds it in its low mantissa bits), not yet clamped to [lo, hi] (clamp_codes
    // does that on 16 codes at once), and |y - r| (exact: r and y are within a factor 2 of each
    // other, or r is 0) in d: y lies too close to a half for r to be certain where it reaches
    // the threshold (near_half).
    v128_t codes_direct(v128_t s, v128_t& d) const {
        const v128_t y = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(s), dscale), dbias);
        const v128_t magic = wasm_f32x4_splat(12582912.f);
        const v128_t t = wasm_f32x4_add(y, magic);
        d = wasm_f32x4_abs(wasm_f32x4_sub(wasm_f32x4_sub(t, magic), y));
        return wasm_i32x4_sub(t, wasm_i32x4_splat(0x4B400000));
    }
    // The lanes of the |y - r| in d0, d1 that reach the threshold.
    v128_t near_half(v128_t d0, v128_t d1) const { return wasm_f32x4_ge(wasm_f32x4_pmax(d0, d1), dthr); }
    // Codes (i8 lanes, from the saturating narrows of r) clamped to [lo, hi].
    v128_t clamp_codes(v128_t c) const { return wasm_i8x16_min(wasm_i8x16_max(c, dlo8), dhi8); }
};

// Whether row st (codes out, sums bounded by max_abs) may take the direct form, and its constants.
// The codes are code(x) = float2int8(act(v) * top), v = i8_dequant_value(x, scale, bias). Proof:
//   F(t) = float2int8(fl(t * top)) is non-decreasing in t (top > 0; fl and rounding are monotone),
//   so for act none / relu / clip [p0, p1] (p0 <= p1: act_scalar is min(p1, max(p0, v))),
//   code(x) = min(hi, max(lo, F(v))) with lo = F(p0) (relu: F(0) = 0; none: -127) and hi = F(p1)
//   (none, relu: 127), and F(v) = clamp(round(w), -127, 127), w = fl(v * top).
//   v is one rounding of x * scale + bias (the fused form, or a zero bias): with u = (x * scale +
//   bias) * top real, |w - u| <= 2.001 u0 |u| (u0 = 2^-24). The SIMD y = fl(fl(x * S) + B) (x is
//   exact in float: |x| <= 2^24) has S, B, the product and the sum each rounded once: |y - u| <=
//   u0 (3.01 |u| + 3.01 |B|). Where |y| <= 128 (so |u| < 128.01, as |B| <= 4096), both give
//   |y - w| <= u0 (5.01 * 128.01 + 3.01 |B|) < 2^-21 (128 + |B|) (subnormal roundings add at
//   most a few 2^-150). E = 2^-20 (128 + |B|) keeps a factor 2 of margin.
//   The store takes r = y rounded to an integer (ties to even; exact by the magic constant, as
//   |S| max_abs + |B| < 2^21 keeps |y| < 2^22), narrows it to i8 lanes with saturation and clamps
//   those to [lo, hi] (integers in [-127, 127], so the saturation changes no result), unless some
//   lane of the vector pair has |y - r| >= thr, thr <= 0.5 - E (then the forms above). Per lane:
//   - lo <= y <= hi: |y - r| < thr, so w lies strictly within (r - 0.5, r + 0.5), round(w) = r (no
//     tie), and r is in [lo, hi] (rounding is monotone, lo and hi integers), so code = r.
//   - y < lo: r <= lo, so the clamp gives lo; and code = lo: if y >= -128, w < lo + E, so round(w)
//     <= lo; if y < -128, u < -127.99 by the bound on |y - u|, so w < -127.9 and F(v) = -127 <= lo.
//     y > hi alike. (y is never NaN: S, B finite and |x * S| far below the float range.) The check
//     is not needed in these lanes: it may send a vector to the forms needlessly, never wrongly.
// Not taken (the forms above then): an unfused nonzero bias (two roundings), leaky relu, |B| >
// 4096, |S| max_abs + |B| >= 2^21, a non-positive or non-finite top scale, non-finite scale or
// bias, sums above 2^24.
// tests/cpp/kernels/int8_test.cpp GemmDirectCodesNearHalves puts sums on and next to the halves.
void direct_for(const Int8Out& o, Store4& st, double max_abs) {
    const ActParams& a = o.act;
    const float top = o.top_scale;
    if (!o.q || !(max_abs > 0 && max_abs <= 16777216.0) || !(top > 0.f) || !std::isfinite(top) ||
        !std::isfinite(st.scale) || !std::isfinite(st.bias) || (!o.fused_bias && st.bias != 0.f))
        return;
    if (!(a.type == 0 || a.type == 1 || (a.type == 3 && a.p0 <= a.p1)))
        return;
    const float S = st.scale * top, B = st.bias * top;
    if (!std::isfinite(S) || !(std::fabs(B) <= 4096.f) || !(std::fabs((double)S) * max_abs + std::fabs(B) < 2097152.0))
        return;
    const int lo = a.type == 0 ? -127 : a.type == 1 ? 0 : float2int8(a.p0 * top);
    const int hi = a.type == 3 ? float2int8(a.p1 * top) : 127;
    const double E = std::ldexp(128.0 + std::fabs((double)B), -20);
    st.direct = true;
    st.dscale = wasm_f32x4_splat(S);
    st.dbias = wasm_f32x4_splat(B);
    st.dlo8 = wasm_i8x16_splat((int8_t)lo);
    st.dhi8 = wasm_i8x16_splat((int8_t)hi);
    st.dthr = wasm_f32x4_splat((float)(0.5 - 2 * E));  // below 0.5 - E after rounding to float
}

// Row m's store. max_abs bounds |sum| (the GEMM: K * 128 * 128; 0 when unknown, which never takes
// kFusedExact).
Store4 store4_for(const Int8Out& o, int m, double max_abs) {
    const float scale = o.scale_in[m], bias = o.bias ? o.bias[m] : 0.f;
    Store4 st{};
    st.scale = scale;
    st.bias = bias;
    st.form = kFusedEmul;
    st.act = &o.act;
    st.scale64 = wasm_f64x2_splat((double)scale);
    st.bias64 = wasm_f64x2_splat((double)bias);
    st.scale32 = wasm_f32x4_splat(scale);
    st.bias32 = wasm_f32x4_splat(bias);
    st.top32 = wasm_f32x4_splat(o.top_scale);
    if (!o.fused_bias || bias == 0.f)
        st.form = kPlain;
    else if (max_abs > 0 && i8simd::fma_exact_f64(scale, bias, max_abs))
        st.form = kFusedExact;
    // finite scale and bias: the value is not NaN (an overflow gives +-inf); relu, or a clip whose
    // bounds are ordered and non-negative, keeps it >= 0; a positive finite top scale keeps that
    const ActParams& a = o.act;
    const bool act_nonneg = a.type == 1 || (a.type == 3 && a.p0 >= 0.f && a.p0 <= a.p1);
    st.nonneg = act_nonneg && std::isfinite(scale) && std::isfinite(bias) && o.top_scale > 0.f &&
                std::isfinite(o.top_scale);
    direct_for(o, st, max_abs);
    return st;
}

// Row m's 8 codes from its sums s0, s1 (two vectors) as i16 lanes, within [-127, 127] (f2i8_i32
// clamps), so the narrows to i8 after it do not saturate. Inlined into store8x2: as a call (v128
// arguments and result) the thin GEMM i8.gemm.16x3025x64 ran about 8% slower.
inline v128_t codes8(const Store4& st, v128_t s0, v128_t s1) {
    return wasm_i16x8_narrow_i32x4(st.codes(s0), st.codes(s1));
}

// n (1..8) codes of c8's bytes 8 * half .. 8 * half + 7 to q.
inline void put_codes(int8_t* q, v128_t c8, int half, int n) {
    if (n == 8) {
        if (half == 0)
            wasm_v128_store64_lane(q, c8, 0);
        else
            wasm_v128_store64_lane(q, c8, 1);
        return;
    }
    int8_t t[16];
    wasm_v128_store(t, c8);
    std::memcpy(q, t + 8 * half, (size_t)n);
}

// 8 sums (two vectors) of row m (store st) at column col: n (1..8) of them written. Out of line
// (i8_store, the dequantize stores and a tile's odd last row): one copy of its float paths.
__attribute__((noinline)) void store8(const Int8Out& o, const Store4& st, int m, size_t col, v128_t s0, v128_t s1,
                                      int n) {
    const size_t base = (size_t)m * o.ld + col;
    if (o.q) {
        if (st.direct) {
            v128_t d0, d1;
            const v128_t r0 = st.codes_direct(s0, d0), r1 = st.codes_direct(s1, d1);
            if (!wasm_v128_any_true(st.near_half(d0, d1))) {
                const v128_t h = wasm_i16x8_narrow_i32x4(r0, r1);
                put_codes(o.q + base, st.clamp_codes(wasm_i8x16_narrow_i16x8(h, h)), 0, n);
                return;
            }
        }
        const v128_t h = codes8(st, s0, s1);
        put_codes(o.q + base, wasm_i8x16_narrow_i16x8(h, h), 0, n);
        return;
    }
    const v128_t v0 = st.value(s0);
    if (n >= 4) {
        wasm_v128_store(o.f + base, v0);
        const v128_t v1 = st.value(s1);
        if (n == 8)
            wasm_v128_store(o.f + base + 4, v1);
        else
            simd::store_partial(o.f + base + 4, v1, n - 4);
    } else {
        simd::store_partial(o.f + base, v0, n);
    }
}

// Rows m and m + 1 (both < M) of a tile, 8 sums each at column col, n (1..8) written per row. For
// codes out, the two rows' 16 codes come from one i8x16 narrow, then one 8-byte store per row.
inline void store8x2(const Int8Out& o, const Store4* st, int m, size_t col, v128_t a0, v128_t a1, v128_t b0, v128_t b1,
                     int n) {
    if (!o.q) {
        store8(o, st[0], m, col, a0, a1, n);
        store8(o, st[1], m + 1, col, b0, b1, n);
        return;
    }
    v128_t c8;
    bool exact = false;
    if (st[0].direct && st[1].direct) {
        // the two rows share lo and hi (the act and top scale are the layer's)
        v128_t d0, d1, d2, d3;
        const v128_t r0 = st[0].codes_direct(a0, d0), r1 = st[0].codes_direct(a1, d1);
        const v128_t r2 = st[1].codes_direct(b0, d2), r3 = st[1].codes_direct(b1, d3);
        c8 = wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(r0, r1), wasm_i16x8_narrow_i32x4(r2, r3));
        c8 = st[0].clamp_codes(c8);
        exact = !wasm_v128_any_true(wasm_v128_or(st[0].near_half(d0, d1), st[1].near_half(d2, d3)));
    }
    if (!exact)
        c8 = wasm_i8x16_narrow_i16x8(codes8(st[0], a0, a1), codes8(st[1], b0, b1));
    int8_t* q = o.q + (size_t)m * o.ld + col;
    put_codes(q, c8, 0, n);
    put_codes(q + o.ld, c8, 1, n);
}

}  // namespace

void i8_store__wasmsimd(const Int8Out& o, int m, size_t col, const int32_t* sums, size_t n) {
    const Store4 st = store4_for(o, m, o.sum_bound);  // 0: no bound on the sums
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        store8(o, st, m, col + i, wasm_v128_load(sums + i), wasm_v128_load(sums + i + 4), 8);
    if (i < n) {
        int32_t t[8] = {};
        std::memcpy(t, sums + i, sizeof(int32_t) * (n - i));
        store8(o, st, m, col + i, wasm_v128_load(t), wasm_v128_load(t + 4), (int)(n - i));
    }
}

// One block of 8 pixels that are a run at step S (1: consecutive bytes; 2: every other byte),
// each k's bytes loaded from base + kofs[k] (S 1: 8 bytes, the pixels; S 2: 16 bytes, the
// pixels at the odd ones), pairs (k, k + 1) interleaved pixel by pixel, an odd K's last k paired
// with zeros (any byte of the zero vector).
template <int S>
inline v128_t load_run(const int8_t* p) {
    return S == 1 ? wasm_v128_load64_zero(p) : wasm_v128_load(p);
}
template <int S>
inline v128_t pair_run(v128_t r0, v128_t r1) {
    return wasm_i8x16_shuffle(r0, r1, S - 1, 15 + S, 2 * S - 1, 15 + 2 * S, 3 * S - 1, 15 + 3 * S, 4 * S - 1,
                              15 + 4 * S, 5 * S - 1, 15 + 5 * S, 6 * S - 1, 15 + 6 * S, 7 * S - 1, 15 + 7 * S,
                              8 * S - 1, 15 + 8 * S);
}
template <int S>
void pack_run(const int8_t* base, const size_t* kofs, int K, int8_t* d) {
    int kp = 0;
    for (; kp < K / 2; kp++, d += 16)
        wasm_v128_store(d, pair_run<S>(load_run<S>(base + kofs[2 * kp]), load_run<S>(base + kofs[2 * kp + 1])));
    if (kp < (K + 1) / 2)
        wasm_v128_store(d, pair_run<S>(load_run<S>(base + kofs[2 * kp]), wasm_i8x16_splat(0)));
}

void i8_pack_b__wasmsimd(int K, int N, const Int8BSource& b, int8_t* dst) {
    const int Kp2 = (K + 1) / 2;
    size_t kmin = K > 0 ? b.kofs[0] : 0;  // the stride-2 loads start one byte before a tap's first pixel
    for (int k = 1; k < K; k++)
        kmin = std::min(kmin, b.kofs[k]);
    Int8BCursor cur(b);
    for (int nb = 0; nb < (N + 7) / 8; nb++) {
        size_t pix[8];
        bool run;
        const int valid = i8_block_pixels(N, b, nb, cur, pix, run);
        int8_t* d = dst + (size_t)nb * Kp2 * 16;
        if (run && b.col_step == 1) {
            // 8 consecutive bytes per k: two 64-bit loads interleaved into (k, k + 1) pairs
            pack_run<1>(b.src + pix[0], b.kofs, K, d);
            continue;
        }
        if (run && b.col_step == 2 && pix[0] + kmin >= 1) {
            // every other byte (stride 2 within one row; the stem convolutions): one 16-byte load
            // per k from the byte before its first pixel p, whose odd bytes are the 8 pixels, and
            // one shuffle pairing two k's odd bytes. It reads bytes p - 1 .. p + 14 only: p - 1 >=
            // 0 (the condition: not before b.src) and p + 14 is the block's last pixel, so it
            // reads nothing outside the planes (the first block of a plane set, p = 0, gathers)
            pack_run<2>(b.src + pix[0] - 1, b.kofs, K, d);
            continue;
        }
        for (int kp = 0; kp < Kp2; kp++, d += 16) {
            const int8_t* s0 = b.src + b.kofs[2 * kp];
            const int8_t* s1 = 2 * kp + 1 < K ? b.src + b.kofs[2 * kp + 1] : nullptr;
            for (int j = 0; j < 8; j++) {
                d[j * 2] = j < valid ? s0[pix[j]] : (int8_t)0;
                d[j * 2 + 1] = j < valid && s1 ? s1[pix[j]] : (int8_t)0;
            }
        }
    }
}

// One k pair of the 4x8 tile shared by i8_gemm and i16_gemm: the 4 rows' int16 weight pairs
// (splat) against the 8 columns' int16 pairs b0 (columns 0-3) and b1 (4-7), one
// i32x4.dot_i16x8_s each, added to the row x half accumulators.
static __attribute__((always_inline)) inline void tile_k_pair(const int16_t* ak, v128_t b0, v128_t b1, v128_t& c00,
                                                       v128_t& c01, v128_t& c10, v128_t& c11, v128_t& c20,
                                                       v128_t& c21, v128_t& c30, v128_t& c31) {
    const v128_t a0 = wasm_v128_load32_splat(ak);
    const v128_t a1 = wasm_v128_load32_splat(ak + 2);
    const v128_t a2 = wasm_v128_load32_splat(ak + 4);
    const v128_t a3 = wasm_v128_load32_splat(ak + 6);
    c00 = wasm_i32x4_add(c00, wasm_i32x4_dot_i16x8(a0, b0));
    c01 = wasm_i32x4_add(c01, wasm_i32x4_dot_i16x8(a0, b1));
    c10 = wasm_i32x4_add(c10, wasm_i32x4_dot_i16x8(a1, b0));
    c11 = wasm_i32x4_add(c11, wasm_i32x4_dot_i16x8(a1, b1));
    c20 = wasm_i32x4_add(c20, wasm_i32x4_dot_i16x8(a2, b0));
    c21 = wasm_i32x4_add(c21, wasm_i32x4_dot_i16x8(a2, b1));
    c30 = wasm_i32x4_add(c30, wasm_i32x4_dot_i16x8(a3, b0));
    c31 = wasm_i32x4_add(c31, wasm_i32x4_dot_i16x8(a3, b1));
}

// Columns 0-3 only of tile_k_pair (a block's last columns when at most 4 of them exist).
static __attribute__((always_inline)) inline void tile_k_pair_low(const int16_t* ak, v128_t b0, v128_t& c00,
                                                           v128_t& c10, v128_t& c20, v128_t& c30) {
    c00 = wasm_i32x4_add(c00, wasm_i32x4_dot_i16x8(wasm_v128_load32_splat(ak), b0));
    c10 = wasm_i32x4_add(c10, wasm_i32x4_dot_i16x8(wasm_v128_load32_splat(ak + 2), b0));
    c20 = wasm_i32x4_add(c20, wasm_i32x4_dot_i16x8(wasm_v128_load32_splat(ak + 4), b0));
    c30 = wasm_i32x4_add(c30, wasm_i32x4_dot_i16x8(wasm_v128_load32_splat(ak + 6), b0));
}

void i8_gemm__wasmsimd(int M, int N, int K, const int16_t* pa, const int8_t* pb, const Int8Out& o) {
    const int Kp2 = (K + 1) / 2;
    // every sum is K products of int8 values: |sum| <= K * 128 * 128
    const double max_abs = (double)K * 16384.0;
    for (int mb = 0; mb < (M + 3) / 4; mb++) {
        const int16_t* a = pa + (size_t)mb * Kp2 * 8;
        Store4 st[4];  // the block's rows' stores, chosen once per block
        for (int i = 0; i < 4 && mb * 4 + i < M; i++)
            st[i] = store4_for(o, mb * 4 + i, max_abs);
        for (int nb = 0; nb < (N + 7) / 8; nb++) {
            const int8_t* b = pb + (size_t)nb * Kp2 * 16;
            const int ncols = N - nb * 8 < 8 ? N - nb * 8 : 8;
            v128_t c00 = wasm_i32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
                   c31 = c00;
            // one k pair: the 8 columns' codes widened once, against the 4 rows' weight pairs.
            // Two widening 8-byte loads (one instruction each on x64, pmovsxbw from memory) rather
            // than one 16-byte load and extend_low/extend_high (extend_high costs a shuffle more):
            // the same int16 values, two instructions fewer per k pair in the thin-K layers'
            // inner loop, where the tile's sums are most of the time
            auto step = [&](const int8_t* bk, const int16_t* ak) {
                const v128_t b0 = wasm_i16x8_load8x8(bk);
                const v128_t b1 = wasm_i16x8_load8x8(bk + 8);
                tile_k_pair(ak, b0, b1, c00, c01, c10, c11, c20, c21, c30, c31);
            };
            if (ncols <= 4) {
                // a last block of at most 4 columns (N = 49, 169, 196 ...): columns 4-7 are the
                // packing's zeros, so only the low half is summed (c01..c31 stay 0 and are not
                // stored); the same exact sums in the columns that exist
                for (int kp = 0; kp < Kp2; kp++)
                    tile_k_pair_low(a + (size_t)kp * 8, wasm_i16x8_load8x8(b + (size_t)kp * 16), c00, c10, c20, c30);
            } else {
                for (int kp = 0; kp < Kp2; kp++)
                    step(b + (size_t)kp * 16, a + (size_t)kp * 8);
            }
            const int m0 = mb * 4;
            const size_t col = (size_t)nb * 8;
            if (m0 + 1 < M)
                store8x2(o, st, m0, col, c00, c01, c10, c11, ncols);
            else
                store8(o, st[0], m0, col, c00, c01, ncols);
            if (m0 + 3 < M)
                store8x2(o, st + 2, m0 + 2, col, c20, c21, c30, c31, ncols);
            else if (m0 + 2 < M)
                store8(o, st[2], m0 + 2, col, c20, c21, ncols);
        }
    }
}

// int16 GEMM of Winograd's positions (kernels/int8.h i16_gemm): the same 4x8 tile as i8_gemm, with
// B already int16 (two 16-byte loads per k pair instead of one load and two widenings); raw sums.
void i16_gemm__wasmsimd(int M, int N, int K, const int16_t* pa, const int16_t* pb, int32_t* c, size_t ldc) {
    const int Kp2 = (K + 1) / 2;
    for (int mb = 0; mb < (M + 3) / 4; mb++) {
        const int16_t* a = pa + (size_t)mb * Kp2 * 8;
        for (int nb = 0; nb < (N + 7) / 8; nb++) {
            const int16_t* b = pb + (size_t)nb * Kp2 * 16;
            v128_t c00 = wasm_i32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
                   c31 = c00;
            auto step = [&](const int16_t* bk, const int16_t* ak) {
                const v128_t b0 = wasm_v128_load(bk);
                const v128_t b1 = wasm_v128_load(bk + 8);
                tile_k_pair(ak, b0, b1, c00, c01, c10, c11, c20, c21, c30, c31);
            };
            const int m0 = mb * 4, n0 = nb * 8;
            const int ncols = N - n0 < 8 ? N - n0 : 8;
            if (ncols <= 4) {  // as in i8_gemm: columns 4-7 are zeros
                for (int kp = 0; kp < Kp2; kp++)
                    tile_k_pair_low(a + (size_t)kp * 8, wasm_v128_load(b + (size_t)kp * 16), c00, c10, c20, c30);
            } else {
                for (int kp = 0; kp < Kp2; kp++)
                    step(b + (size_t)kp * 16, a + (size_t)kp * 8);
            }
            const v128_t rows[4][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
            for (int i = 0; i < 4 && m0 + i < M; i++) {
                int32_t* d = c + (size_t)(m0 + i) * ldc + n0;
                if (ncols == 8) {
                    wasm_v128_store(d, rows[i][0]);
                    wasm_v128_store(d + 4, rows[i][1]);
                } else {
                    int32_t t[8];
                    wasm_v128_store(t, rows[i][0]);
                    wasm_v128_store(t + 4, rows[i][1]);
                    std::memcpy(d, t, sizeof(int32_t) * (size_t)ncols);
                }
            }
        }
    }
}

// Winograd input transform (kernels/int8.h i8_wino_input) for 8 tiles of one tile row at a
// time, two channels at a time: per input row, the taps of the 8 tiles' columns 0..3 (even and odd
// bytes of 18 consecutive ones) widened to i16x8, B^T over the 4 rows and B over the 4 columns in
// lane-wise adds, and the two channels' values interleaved into the panels' (k, k + 1) pairs.
// Tiles that reach past the plane's right or bottom edge (or a block of fewer than 8 tiles of one
// row) go through the scalar twin's arithmetic tile by tile.
void i8_wino_input__wasmsimd(const Int8WinoInput& in, int t0, int nt, int16_t* v) {
    const size_t per_pos = i16_packed_b_count(in.inch, nt);
    std::memset(v, 0, per_pos * 16 * sizeof(int16_t));
    const size_t plane = (size_t)in.padded_w * in.padded_h;
    const int Kp2 = (in.inch + 1) / 2;
    int t = 0;
    while (t < nt) {
        const int tt = t0 + t, ty = tt / in.tiles_w * 2, tx = tt % in.tiles_w * 2;
        const bool fast = t % 8 == 0 && t + 8 <= nt && tt % in.tiles_w + 8 <= in.tiles_w && tx + 18 <= in.padded_w &&
                          ty + 4 <= in.padded_h;
        if (!fast) {
            i8_wino_input_tile(in, tt, t, nt, v);
            t++;
            continue;
        }
        // 8 tiles: columns tx .. tx + 17 of rows ty .. ty + 3
        auto taps = [&](const int8_t* r, v128_t col[4]) {
            const v128_t lo = wasm_v128_load(r), hi = wasm_v128_load64_zero(r + 10);
            // column k of tile j is byte 2j + k: even/odd bytes of 0..15, then of 2..17
            col[0] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0));
            col[1] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15, 0, 0, 0, 0, 0, 0, 0, 0));
            col[2] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 2, 4, 6, 8, 10, 12, 14, 22, 0, 0, 0, 0, 0, 0, 0, 0));
            col[3] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 3, 5, 7, 9, 11, 13, 15, 23, 0, 0, 0, 0, 0, 0, 0, 0));
        };
        // the 16 positions of one channel, 8 tiles in the lanes
        auto transform = [&](const int8_t* s, v128_t out[16]) {
            v128_t d[4][4];
            for (int i = 0; i < 4; i++)
                taps(s + (size_t)(ty + i) * in.padded_w + tx, d[i]);
            for (int j = 0; j < 4; j++) {
                const v128_t w0 = wasm_i16x8_sub(d[0][j], d[2][j]), w1 = wasm_i16x8_add(d[1][j], d[2][j]);
                const v128_t w2 = wasm_i16x8_sub(d[2][j], d[1][j]), w3 = wasm_i16x8_sub(d[1][j], d[3][j]);
                d[0][j] = w0;
                d[1][j] = w1;
                d[2][j] = w2;
                d[3][j] = w3;
            }
            for (int i = 0; i < 4; i++) {
                out[i * 4 + 0] = wasm_i16x8_sub(d[i][0], d[i][2]);
                out[i * 4 + 1] = wasm_i16x8_add(d[i][1], d[i][2]);
                out[i * 4 + 2] = wasm_i16x8_sub(d[i][2], d[i][1]);
                out[i * 4 + 3] = wasm_i16x8_sub(d[i][1], d[i][3]);
            }
        };
        int16_t* blk = v + (size_t)(t / 8) * Kp2 * 16;
        // channels in pairs (an odd last one pairs with zeros); one transform call site keeps
        // the code small
        for (int c = 0; c < in.inch; c += 2) {
            v128_t x[2][16];
#pragma clang loop unroll(disable)
            for (int h = 0; h < 2; h++) {
                if (c + h < in.inch) {
                    transform(in.src + (size_t)(c + h) * plane, x[h]);
                } else {
                    for (int p = 0; p < 16; p++)
                        x[h][p] = wasm_i16x8_splat(0);
                }
            }
            int16_t* d = blk + (size_t)(c / 2) * 16;
            for (int p = 0; p < 16; p++) {
                wasm_v128_store(d + (size_t)p * per_pos, wasm_i16x8_shuffle(x[0][p], x[1][p], 0, 8, 1, 9, 2, 10, 3, 11));
                wasm_v128_store(d + (size_t)p * per_pos + 8, wasm_i16x8_shuffle(x[0][p], x[1][p], 4, 12, 5, 13, 6, 14, 7, 15));
            }
        }
        t += 8;
    }
}

// Winograd output transform (kernels/int8.h i8_wino_output), 4 tiles of one tile row at a time:
// the 16 positions' sums of 4 consecutive tiles are contiguous, so A^T M A is lane-wise adds (the
// sums wrap modulo 2^32 in i32 lanes as in the twin), and the two output columns of each tile
// are interleaved into 8 pixels of a row. Tiles whose 8 pixels or second row leave the output go
// through the twin's arithmetic one by one.
void i8_wino_output__wasmsimd(const int32_t* m, int t0, int nt, const Int8WinoOutput& out) {
    const size_t pstride = (size_t)out.outch * nt;
    const int y0 = (t0 / out.tiles_w) * 2;
    for (int o = 0; o < out.outch; o++) {
        const int32_t* mo = m + (size_t)o * nt;
        int t = 0;
        while (t < nt) {
            const int tt = t0 + t, ty = tt / out.tiles_w * 2, tx = tt % out.tiles_w * 2;
            if (t + 4 > nt || tt % out.tiles_w + 4 > out.tiles_w || tx + 8 > out.out_w || ty + 2 > out.out_h) {
                i8_wino_output_tile(m, tt, t, nt, o, y0, out);
                t++;
                continue;
            }
            v128_t v[16];
            for (int p = 0; p < 16; p++)
                v[p] = wasm_v128_load(mo + (size_t)p * pstride + t);
            int32_t* row = out.sums + (size_t)o * out.ld + (size_t)(ty - y0) * out.out_w + tx;
            for (int i = 0; i < 2; i++) {
                v128_t a[4];
                for (int j = 0; j < 4; j++)
                    a[j] = i == 0 ? wasm_i32x4_add(wasm_i32x4_add(v[j], v[4 + j]), v[8 + j])
                                  : wasm_i32x4_sub(wasm_i32x4_sub(v[4 + j], v[8 + j]), v[12 + j]);
                const v128_t r0 = wasm_i32x4_shr(wasm_i32x4_add(wasm_i32x4_add(a[0], a[1]), a[2]), 2);
                const v128_t r1 = wasm_i32x4_shr(wasm_i32x4_sub(wasm_i32x4_sub(a[1], a[2]), a[3]), 2);
                int32_t* r = row + (size_t)i * out.out_w;
                wasm_v128_store(r, wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5));
                wasm_v128_store(r + 4, wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7));
            }
            t += 4;
        }
    }
}

void i8_dot_rows__wasmsimd(const int8_t* x, int n, const int8_t* weight, int outch, bool interleaved,
                           int32_t* sums) {
    auto dot16 = [](v128_t a, v128_t b) {
        const v128_t p = wasm_i16x8_add(wasm_i16x8_extmul_low_i8x16(a, b), wasm_i16x8_extmul_high_i8x16(a, b));
        return wasm_i32x4_extadd_pairwise_i16x8(p);
    };
    auto hsum = [](v128_t v) {
        v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
        v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
        return wasm_i32x4_extract_lane(v, 0);
    };
    const int n16 = n / 16 * 16, tail = n - n16;
    // a block of 4 rows (kernels/int8.h): row r's chunk c at r * row + c * chunk, its last codes at
    // tail_at + r * tail_row
    const size_t row = interleaved ? 16 : (size_t)n, chunk = interleaved ? 64 : 16;
    const size_t tail_at = interleaved ? (size_t)4 * n16 : (size_t)n16, tail_row = interleaved ? (size_t)tail : (size_t)n;
    int p = 0;
    for (; p + 4 <= outch; p += 4) {
        const int8_t* w = weight + (size_t)p * n;
        v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
        for (int i = 0; i < n16; i += 16, w += chunk) {
            const v128_t xv = wasm_v128_load(x + i);
            s0 = wasm_i32x4_add(s0, dot16(xv, wasm_v128_load(w)));
            s1 = wasm_i32x4_add(s1, dot16(xv, wasm_v128_load(w + row)));
            s2 = wasm_i32x4_add(s2, dot16(xv, wasm_v128_load(w + 2 * row)));
            s3 = wasm_i32x4_add(s3, dot16(xv, wasm_v128_load(w + 3 * row)));
        }
        int32_t r[4] = {hsum(s0), hsum(s1), hsum(s2), hsum(s3)};
        const int8_t* t = weight + (size_t)p * n + tail_at;
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < tail; i++)
                r[j] += (int32_t)x[n16 + i] * t[j * tail_row + i];
        std::memcpy(sums + p, r, sizeof r);
    }
    for (; p < outch; p++) {  // the last rows: row-major in either layout
        const int8_t* w = weight + (size_t)p * n;
        v128_t s = wasm_i32x4_splat(0);
        for (int i = 0; i < n16; i += 16)
            s = wasm_i32x4_add(s, dot16(wasm_v128_load(x + i), wasm_v128_load(w + i)));
        int32_t r = hsum(s);
        for (int i = n16; i < n; i++)
            r += (int32_t)x[i] * w[i];
        sums[p] = r;
    }
}

// Unfused (multiply, then add: two f32 roundings, as the twin's i8_dequant_value) with activations
// 0..3 on 4 lanes: f32x4.convert_i32x4_s rounds as (float)sum does, and act4 is act_scalar lane for
// lane, so the bits are the twin's. A fused bias (one rounding: std::fma) or another activation
// goes to the twin, as does the tail.
void i8_dequant_each__wasmsimd(const int32_t* sums, int n, const float* scale, const float* bias, bool fused_bias,
                               const ActParams& act, float* out) {
    int i = 0;
    if (!fused_bias && act.type >= 0 && act.type <= 3)
        for (; i + 4 <= n; i += 4) {
            const v128_t v = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_v128_load(sums + i)), wasm_v128_load(scale + i));
            const v128_t b = bias ? wasm_v128_load(bias + i) : wasm_f32x4_splat(0.f);
            wasm_v128_store(out + i, act4(wasm_f32x4_add(v, b), act));
        }
    i8_dequant_each__scalar(sums + i, n - i, scale + i, bias ? bias + i : nullptr, fused_bias, act, out + i);
}

}  // namespace kernels
}  // namespace nnfold
