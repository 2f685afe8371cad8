// int8 depthwise convolution with SIMD-128 (kernels/int8_dw.h; scalar twin in kernels/int8_dw.cpp).
//
// 3x3 at stride 1 or 2 (mobilenet's depthwise layers): two output rows per step, 8 output pixels
// per vector pair, and the 9 taps of a window in five i32x4.dot_i16x8_s per 4 outputs (each dot
// product sums two taps of the same pixel: its i16 lanes pair two codes of one pixel against a
// splat of their two weights). Pairs of one input row: (kx 0, kx 1); the kx 2 taps pair
// vertically, (row r, row r + 1), and one such pair serves both output rows (stride 1: rows 0+1
// and 2+3 of the four input rows; the first output row weights them (w02, w12) and (w22, 0), the
// second (0, w02) and (w12, w22)). stride 1: 12 loads (v128.load8x8_s), 12 shuffles and 20 dot
// products per 16 outputs; stride 2 (five input rows, the kx 2 pairs rows 0+1 and 3+4, row 2's
// kx 2 tap paired with a zero weight): 10 loads, 14 widenings, 2 shuffles, 20 dot products.
// The previous kernel used six dot products per 4 outputs (each row's kx 2 tap against a zero).
//
// The store: the kernels sum chunks of rows (i8_dwconv_chunk_rows, about 2048 sums) into rowsums,
// then store_sums stores the chunk in one pass. For ncnn's x86 depthwise epilogue (dequantize, then
// add the bias: o.fused_bias false) with an activation that is a clip (none, relu, relu6, clip),
// store_clip: 16 sums per step with the activation as one pmin and one pmax, and the cheaper
// f2i8_i32_nonneg where the clipped values cannot be negative or NaN; anything else through
// i8_store. The previous kernels stored every 8 outputs through an out-of-line call (a third to
// a half of a layer's time at mobilenet_v2's shapes; 7x7 and 14x14 maps also paid partial vectors
// per row).
//
// float2int8: i8simd::f2i8_i32 (kernels/wasm/int8_simd.h), exact and cheaper than i32x4.trunc_sat.
// Other windows: 8 output pixels per step, taps in pairs (t, t + 1) as i16 pairs of the same
// pixel, each row's sums through store_sums.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/int8_dw.h"
#include "kernels/wasm/int8_simd.h"

namespace nnfold {
namespace kernels {

namespace {

using i8simd::f2i8_i32;

// Whether the activation is a clip: types 0 (none), 1 (relu) and 3 with p0 <= p1 (clip; relu6) are
// pmax(pmin(v, hi), lo) with (hi, lo) = (+inf, -inf), (+inf, 0), (p1, p0). pmin(v, b) is
// b < v ? b : v and pmax(v, b) is v < b ? b : v (NaN and -0 in v are kept), so pmin(v, +inf) and
// pmax(v, -inf) are v and type 1's act4, pmax(v, 0), is pmax(pmin(v, +inf), 0); type 3's act4 is
// this very form. The same bits as act4 and act_scalar.
bool act_as_clip(const ActParams& a, float& lo, float& hi) {
    const float inf = std::numeric_limits<float>::infinity();
    switch (a.type) {
    case 0: lo = -inf, hi = inf; return true;
    case 1: lo = 0.f, hi = inf; return true;
    case 3: lo = a.p0, hi = a.p1; return a.p0 <= a.p1;
    default: return false;
    }
}

// The store of n sums of one channel (o.fused_bias false, a clip activation), 16 per step:
// (float)sum * scale + bias, the clip, then the float or, times top_scale, its code (float2int8 by
// f2i8_i32, or f2i8_i32_nonneg where the clipped value is >= 0 and not NaN: lo >= 0 (a NaN lane
// would survive pmin/pmax: so scale and bias finite, whence the sum's value is finite or +-inf, never
// NaN) and a positive finite top scale). The same float operations in the same order as
// i8_store__scalar's unfused form. Reads whole vectors of 16 sums (sums holds them, see
// i8_dwconv_sum_ints); the lanes past n are computed and dropped.
template <bool NonNeg>
void store_clip(const Int8Out& o, int m, size_t col, const int32_t* sums, size_t n, float lo_f, float hi_f) {
    const v128_t scale = wasm_f32x4_splat(o.scale_in[m]), bias = wasm_f32x4_splat(o.bias ? o.bias[m] : 0.f);
    const v128_t lo = wasm_f32x4_splat(lo_f), hi = wasm_f32x4_splat(hi_f), top = wasm_f32x4_splat(o.top_scale);
    const size_t at = (size_t)m * o.ld + col;
    auto value = [&](const int32_t* s) {
        const v128_t v = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_v128_load(s)), scale), bias);
        return wasm_f32x4_pmax(wasm_f32x4_pmin(v, hi), lo);
    };
    // NonNeg: the clip moved past the multiply by top, merged with f2i8_i32_nonneg's clamp at 127:
    // pmin(pmax(v * top, L), H), L = lo * top, H = min(hi * top, 127) (each rounded as the scalar
    // rounds it), then f2i8_i32_nonneg's rounding without its pmin. The same codes: top > 0 and
    // rounding is monotonic, so v < lo gives v * top <= L and then min(L, H), which is
    // min(lo * top, 127) (L <= hi * top); v > hi gives v * top >= hi * top >= L and then H,
    // which is min(hi * top, 127); lo <= v <= hi gives L <= v * top <= hi * top, kept but for
    // the clamp at 127 (when v * top equals a bound, that bound's bits: both are >= +0 or, for
    // v = -0 >= lo = +0, pmax(-0, +0) keeps -0 as the scalar clip does). NaN cannot occur (see
    // store_sums) and v = +-inf falls in the first two cases. Two instructions fewer per 4 codes.
    const v128_t top_lo = wasm_f32x4_splat(lo_f * o.top_scale);
    const float ht = hi_f * o.top_scale;
    const v128_t top_hi = wasm_f32x4_splat(ht < 127.f ? ht : 127.f);
    auto code = [&](const int32_t* s) {
        if (NonNeg) {
            const v128_t v = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_v128_load(s)), scale), bias);
            return i8simd::round_nonneg_i32(wasm_f32x4_pmin(wasm_f32x4_pmax(wasm_f32x4_mul(v, top), top_lo), top_hi));
        }
        return f2i8_i32(wasm_f32x4_mul(value(s), top));
    };
    if (o.q) {
        int8_t* q = o.q + at;
        for (size_t i = 0; i < n; i += 16) {
            const v128_t c = i8simd::codes16(code(sums + i), code(sums + i + 4), code(sums + i + 8), code(sums + i + 12));
            if (i + 16 <= n) {
                wasm_v128_store(q + i, c);
            } else {
                int8_t t[16];
                wasm_v128_store(t, c);
                std::memcpy(q + i, t, n - i);
            }
        }
        return;
    }
    float* f = o.f + at;
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(f + i, value(sums + i));
    if (i < n)
        simd::store_partial(f + i, value(sums + i), (int)(n - i));
}

// The store of n sums of channel m at column col: store_clip where it applies, else i8_store.
__attribute__((noinline)) void store_sums(const Int8Out& o, int m, size_t col, const int32_t* sums, size_t n) {
    float lo, hi;
    if (o.fused_bias || !act_as_clip(o.act, lo, hi)) {
        i8_store(o, m, col, sums, n);
        return;
    }
    const float scale = o.scale_in[m], bias = o.bias ? o.bias[m] : 0.f;
    const bool nonneg = lo >= 0.f && std::isfinite(scale) && std::isfinite(bias) && o.top_scale > 0.f &&
                        std::isfinite(o.top_scale);
    if (nonneg)
        store_clip<true>(o, m, col, sums, n, lo, hi);
    else
        store_clip<false>(o, m, col, sums, n, lo, hi);
}

// The splat of the i16 pair (k0, k1), for i32x4.dot_i16x8_s.
inline v128_t pair_splat(int k0, int k1) {
    return wasm_i32x4_splat((int32_t)((uint32_t)(uint16_t)(int16_t)k0 | ((uint32_t)(uint16_t)(int16_t)k1 << 16)));
}
inline v128_t zip_lo(v128_t a, v128_t b) { return wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11); }
inline v128_t zip_hi(v128_t a, v128_t b) { return wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15); }
inline v128_t dot(v128_t a, v128_t k) { return wasm_i32x4_dot_i16x8(a, k); }

// A 3x3 window with dilation 1: tap offsets 0, 1, 2 in each of three consecutive rows.
inline bool dw_is_3x3(const Int8DwPlane& p) {
    if (p.maxk != 9)
        return false;
    for (int t = 0; t < 9; t++)
        if (p.ofs[t] != (t / 3) * p.padded_w + t % 3)
            return false;
    return true;
}

// Accumulators of 8 outputs (two vectors of 4).
struct Acc8 {
    v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
    void add(v128_t pl, v128_t ph, v128_t k) {
        lo = wasm_i32x4_add(lo, dot(pl, k));
        hi = wasm_i32x4_add(hi, dot(ph, k));
    }
    void put(int32_t* d) const {
        wasm_v128_store(d, lo);
        wasm_v128_store(d + 4, hi);
    }
};

// The rows of the 3x3 kernels: chunks of i8_dwconv_chunk_rows output rows summed into p.rowsums as
// dense rows (row y of the chunk at (y - y0) * out_w), then stored in one store_sums pass. rows(y,
// two, sums) sums output row y (and y + 1 if two) into sums (row y + 1 at sums + out_w), in 8-pixel
// blocks from the last to the first: a row's last block writes up to 7 sums past the row, over the
// start of the next row, whose first block (x = 0, written after it: later in the same step for row
// y + 1, in the next step for row y + 2) then overwrites them; the chunk's last row spills into
// rowsums' 16 spare ints.
template <typename Rows>
inline void for_chunks(const Int8DwPlane& p, const Int8Out& o, const Rows& rows) {
    const int R = i8_dwconv_chunk_rows(p.out_w, p.out_h);
    for (int y0 = 0; y0 < p.out_h; y0 += R) {
        const int y1 = y0 + R < p.out_h ? y0 + R : p.out_h;
        for (int y = y0; y < y1; y += 2)
            rows(y, y + 1 < y1, p.rowsums + (size_t)(y - y0) * p.out_w);
        store_sums(o, p.channel, (size_t)y0 * p.out_w, p.rowsums, (size_t)(y1 - y0) * p.out_w);
    }
}

// 3x3 stride 1 (see the file comment). Reads stay within the plane plus 10 bytes past the last
// output pixel's window start.
void dw3x3s1(const Int8DwPlane& p, const Int8Out& o) {
    const int8_t* k = p.kernel;
    const v128_t k0 = pair_splat(k[0], k[1]), k1 = pair_splat(k[3], k[4]), k2 = pair_splat(k[6], k[7]);
    const v128_t kc01a = pair_splat(k[2], k[5]), kc23a = pair_splat(k[8], 0);
    const v128_t kc01b = pair_splat(0, k[2]), kc23b = pair_splat(k[5], k[8]);
    const size_t pw = (size_t)p.padded_w;
    const int last = (p.out_w - 1) / 8 * 8;
    for_chunks(p, o, [&](int y, bool two, int32_t* sa) {
        for (int x = last; x >= 0; x -= 8) {
            const int8_t* s = p.src + (size_t)y * pw + (size_t)x;
            Acc8 a, b;  // output rows y and y + 1
            // input row 0: (kx0, kx1) pairs for row y; its kx 2 codes wait for row 1's
            v128_t r = wasm_i16x8_load8x8(s), r1 = wasm_i16x8_load8x8(s + 1);
            a.add(zip_lo(r, r1), zip_hi(r, r1), k0);
            const v128_t c0 = wasm_i16x8_load8x8(s + 2);
            // input row 1
            s += pw;
            r = wasm_i16x8_load8x8(s);
            r1 = wasm_i16x8_load8x8(s + 1);
            v128_t pl = zip_lo(r, r1), ph = zip_hi(r, r1);
            a.add(pl, ph, k1);
            const v128_t c1 = wasm_i16x8_load8x8(s + 2);
            pl = zip_lo(c0, c1);
            ph = zip_hi(c0, c1);
            a.add(pl, ph, kc01a);
            if (two) {
                b.add(zip_lo(r, r1), zip_hi(r, r1), k0);
                b.add(pl, ph, kc01b);
            }
            // input row 2
            s += pw;
            r = wasm_i16x8_load8x8(s);
            r1 = wasm_i16x8_load8x8(s + 1);
            pl = zip_lo(r, r1);
            ph = zip_hi(r, r1);
            a.add(pl, ph, k2);
            const v128_t c2 = wasm_i16x8_load8x8(s + 2);
            if (!two) {
                a.add(zip_lo(c2, c2), zip_hi(c2, c2), kc23a);  // (w22, 0): the second lane is ignored
                a.put(sa + x);
                continue;
            }
            b.add(pl, ph, k1);
            // input row 3
            s += pw;
            r = wasm_i16x8_load8x8(s);
            r1 = wasm_i16x8_load8x8(s + 1);
            b.add(zip_lo(r, r1), zip_hi(r, r1), k2);
            const v128_t c3 = wasm_i16x8_load8x8(s + 2);
            pl = zip_lo(c2, c3);
            ph = zip_hi(c2, c3);
            a.add(pl, ph, kc23a);
            b.add(pl, ph, kc23b);
            a.put(sa + x);
            b.put(sa + p.out_w + x);
        }
    });
}

// The kx 2 codes of 8 output pixels at stride 2 in two rows (the even bytes of 16 from each, from
// the window's third column), as (row u, row v) pairs widened to i16: low and high 4 pixels.
inline void vpairs_s2(const int8_t* u, const int8_t* v, v128_t& lo, v128_t& hi) {
    const v128_t z = wasm_i8x16_shuffle(wasm_v128_load(u), wasm_v128_load(v), 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10,
                                        26, 12, 28, 14, 30);
    lo = wasm_i16x8_extend_low_i8x16(z);
    hi = wasm_i16x8_extend_high_i8x16(z);
}

// 3x3 stride 2: the 16 bytes at a window row's left edge are the (kx0, kx1) pairs of 8 pixels;
// kx 2 pairs vertically (rows 0+1, 3+4), row 2's kx 2 with its neighbour byte against a zero weight.
// Reads stay within the plane plus 18 bytes past the last output pixel's window start.
void dw3x3s2(const Int8DwPlane& p, const Int8Out& o) {
    const int8_t* k = p.kernel;
    const v128_t k0 = pair_splat(k[0], k[1]), k1 = pair_splat(k[3], k[4]), k2 = pair_splat(k[6], k[7]);
    const v128_t kc01 = pair_splat(k[2], k[5]), kc34 = pair_splat(k[5], k[8]);
    const v128_t kc2a = pair_splat(k[8], 0), kc2b = pair_splat(k[2], 0);
    const size_t pw = (size_t)p.padded_w;
    const int last = (p.out_w - 1) / 8 * 8;
    for_chunks(p, o, [&](int y, bool two, int32_t* sa) {
        for (int x = last; x >= 0; x -= 8) {
            const int8_t* s = p.src + (size_t)y * 2 * pw + (size_t)x * 2;
            Acc8 a, b;
            v128_t v = wasm_v128_load(s);
            a.add(wasm_i16x8_extend_low_i8x16(v), wasm_i16x8_extend_high_i8x16(v), k0);
            v = wasm_v128_load(s + pw);
            a.add(wasm_i16x8_extend_low_i8x16(v), wasm_i16x8_extend_high_i8x16(v), k1);
            v128_t pl, ph;
            vpairs_s2(s + 2, s + pw + 2, pl, ph);
            a.add(pl, ph, kc01);
            s += 2 * pw;  // input row 2, shared by both output rows
            v = wasm_v128_load(s);
            pl = wasm_i16x8_extend_low_i8x16(v);
            ph = wasm_i16x8_extend_high_i8x16(v);
            a.add(pl, ph, k2);
            v = wasm_v128_load(s + 2);
            const v128_t ql = wasm_i16x8_extend_low_i8x16(v), qh = wasm_i16x8_extend_high_i8x16(v);
            a.add(ql, qh, kc2a);
            if (!two) {
                a.put(sa + x);
                continue;
            }
            b.add(pl, ph, k0);
            b.add(ql, qh, kc2b);
            v = wasm_v128_load(s + pw);
            b.add(wasm_i16x8_extend_low_i8x16(v), wasm_i16x8_extend_high_i8x16(v), k1);
            v = wasm_v128_load(s + 2 * pw);
            b.add(wasm_i16x8_extend_low_i8x16(v), wasm_i16x8_extend_high_i8x16(v), k2);
            vpairs_s2(s + pw + 2, s + 2 * pw + 2, pl, ph);
            b.add(pl, ph, kc34);
            a.put(sa + x);
            b.put(sa + p.out_w + x);
        }
    });
}

// The 8 codes of one tap for output pixels x .. x + 7 as i16x8 (stride 1: contiguous; stride 2:
// the even bytes of 16; other strides gathered).
inline v128_t dw_load8(const int8_t* s, int sw) {
    if (sw == 1)
        return wasm_i16x8_load8x8(s);
    if (sw == 2) {
        const v128_t v = wasm_v128_load(s);
        return wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14));
    }
    int16_t t[8];
    for (int j = 0; j < 8; j++)
        t[j] = s[(size_t)j * sw];
    return wasm_v128_load(t);
}

// Any other window: output rows of one plane, taps in pairs (t, t + 1) interleaved into i16 pairs
// of one pixel against a splat of the two weights (an odd last tap pairs with a zero weight).
void dw_plane(const Int8DwPlane& p, const Int8Out& o) {
    const int maxk = p.maxk;
    const int sw = p.stride_w;
    for (int y = 0; y < p.out_h; y++) {
        const int8_t* row = p.src + (size_t)y * p.stride_h * p.padded_w;
        for (int x = 0; x < p.out_w; x += 8) {
            const int8_t* s = row + (size_t)x * sw;
            Acc8 acc;
            for (int t = 0; t < maxk; t += 2) {
                const v128_t a = dw_load8(s + p.ofs[t], sw);
                const v128_t b = t + 1 < maxk ? dw_load8(s + p.ofs[t + 1], sw) : wasm_i16x8_splat(0);
                acc.add(zip_lo(a, b), zip_hi(a, b), pair_splat(p.kernel[t], t + 1 < maxk ? p.kernel[t + 1] : 0));
            }
            wasm_v128_store(p.rowsums + x, acc.lo);
            wasm_v128_store(p.rowsums + x + 4, acc.hi);
        }
        store_sums(o, p.channel, (size_t)y * p.out_w, p.rowsums, (size_t)p.out_w);
    }
}

// n bytes from s to d: 16-byte vectors, the last one overlapping the previous (n >= 16), else
// two overlapping 8-, 4- or 2-byte words (7x7 maps: rows of 7 bytes), or one byte.
inline void copy_bytes(int8_t* d, const int8_t* s, size_t n) {
    if (n >= 16) {
        size_t i = 0;
        for (; i + 16 <= n; i += 16)
            wasm_v128_store(d + i, wasm_v128_load(s + i));
        if (i < n)
            wasm_v128_store(d + n - 16, wasm_v128_load(s + n - 16));
        return;
    }
    if (n >= 8) {
        wasm_v128_store64_lane(d, wasm_v128_load64_zero(s), 0);
        wasm_v128_store64_lane(d + n - 8, wasm_v128_load64_zero(s + n - 8), 0);
        return;
    }
    if (n >= 4) {
        uint32_t a, b;
        std::memcpy(&a, s, 4);
        std::memcpy(&b, s + n - 4, 4);
        std::memcpy(d, &a, 4);
        std::memcpy(d + n - 4, &b, 4);
        return;
    }
    if (n >= 2) {
        uint16_t a, b;
        std::memcpy(&a, s, 2);
        std::memcpy(&b, s + n - 2, 2);
        std::memcpy(d, &a, 2);
        std::memcpy(d + n - 2, &b, 2);
        return;
    }
    if (n == 1)
        d[0] = s[0];
}

// n bytes of v's value at d, the same way (v: one byte in every lane).
inline void fill_bytes(int8_t* d, v128_t v, size_t n) {
    if (n >= 16) {
        size_t i = 0;
        for (; i + 16 <= n; i += 16)
            wasm_v128_store(d + i, v);
        if (i < n)
            wasm_v128_store(d + n - 16, v);
        return;
    }
    if (n >= 8) {
        wasm_v128_store64_lane(d, v, 0);
        wasm_v128_store64_lane(d + n - 8, v, 0);
        return;
    }
    if (n >= 4) {
        wasm_v128_store32_lane(d, v, 0);
        wasm_v128_store32_lane(d + n - 4, v, 0);
        return;
    }
    if (n >= 2) {
        wasm_v128_store16_lane(d, v, 0);
        wasm_v128_store16_lane(d + n - 2, v, 0);
        return;
    }
    if (n == 1)
        d[0] = (int8_t)wasm_i8x16_extract_lane(v, 0);
}

}  // namespace

void i8_pad_plane__wasmsimd(const int8_t* src, const Int8PadPlane& g, int8_t* dst) {
    const size_t pw = (size_t)g.padded_w, w = (size_t)g.w, left = (size_t)g.left;
    const v128_t pad = wasm_i8x16_splat(g.pad);
    if (g.left == 1 && pw == w + 2 && g.padded_h > g.top + g.h) {
        // one border column each side (3x3 pad 1) and a border row below: a row's right border
        // and the next row's left border are adjacent bytes, written by one 2-byte store after the
        // row's copy; the first interior row's left border goes with the rows above, the last
        // row's store writes the first byte of the rows below
        fill_bytes(dst, pad, (size_t)g.top * pw + 1);
        int8_t* d = dst + (size_t)g.top * pw + 1;
        for (int y = 0; y < g.h; y++, d += pw) {
            copy_bytes(d, src + (size_t)y * w, w);
            wasm_v128_store16_lane(d + w, pad, 0);
        }
        const size_t below = (size_t)(g.top + g.h) * pw + 1;
        fill_bytes(dst + below, pad, (size_t)g.padded_h * pw - below);
        return;
    }
    fill_bytes(dst, pad, (size_t)g.top * pw);
    const size_t below = (size_t)(g.top + g.h) * pw;
    fill_bytes(dst + below, pad, (size_t)g.padded_h * pw - below);
    for (int y = 0; y < g.h; y++) {
        int8_t* d = dst + (size_t)(y + g.top) * pw;
        fill_bytes(d, pad, left);
        copy_bytes(d + left, src + (size_t)y * w, w);
        fill_bytes(d + left + w, pad, pw - left - w);
    }
}

void i8_dwconv__wasmsimd(const Int8DwPlane& p, const Int8Out& o) {
    if (dw_is_3x3(p) && p.stride_h == p.stride_w && (p.stride_w == 1 || p.stride_w == 2)) {
        if (p.stride_w == 1)
            dw3x3s1(p, o);
        else
            dw3x3s2(p, o);
        return;
    }
    dw_plane(p, o);
}

}  // namespace kernels
}  // namespace nnfold
