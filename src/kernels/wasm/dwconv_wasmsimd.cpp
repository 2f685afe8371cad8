// Depthwise convolution with SIMD-128.
//
// pack4 kernels (fixed 3x3/5x5, stride 1/2): the f32x4 lanes are four channels. The block's four
// input planes are interleaved, one input row at a time, into a ring of padded rows in scratch
// (PackRing: pixel x of a row is the f32x4 at 4 * x; pad columns and rows hold the pad value), so
// every tap of every output pixel is one contiguous f32x4 load with no bounds test, at any stride
// (no even/odd shuffles for stride 2, no lanes wasted on the row tails of small maps). Each
// iteration computes NX output pixels of R output rows (R * NX independent sums in flight: the
// dependency chain of one sum is K * K additions long): the input pixels of a row are loaded once
// and feed every tap and output pixel that reads them, and each kernel-tap vector is loaded once
// per iteration for all of them. Bias starts each sum, taps are added in kernel order (the scalar
// twins' order), the activation is applied to the finished vectors (StoreArgs), and a 4x4
// transpose turns four pixels x four channels back into four planar rows: the results equal the
// scalar twins' bit for bit. The helpers are always inlined and take vectors by value: a call
// would keep the accumulators in linear memory (measured: 28% -> 37% of peak, 3x3 stride 1), and
// the store's activation is fixed at compile time (no per-vector switch: 37% -> 50%).
//
// 3x3 with a one-column left pad (the usual pad 1; dw_planar has the exact geometries) and 3x3
// stride 2 without a left pad (TF-style SAME; dw_planar_s2_l0) run planar instead, one channel at
// a time straight from the input plane (dw3x3s1_planar, dw3x3s2_planar: at stride 2 the ring's
// fill costs about as much as the taps).
//
// f32_dwconv_general: one channel, whole vectors of four output pixels over padded rows from the
// ring of window.h; the last vector of a row stores only its valid lanes.
#include <cmath>

#include "kernels/dwconv.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {

using namespace simd;

namespace {

#define NF_DW_INLINE inline __attribute__((always_inline))
#define NF_DW_INLINE_LAMBDA __attribute__((always_inline))
// keeps a loop a loop in the wasm output (the native builds, GCC, only run the kernels in tests)
#if defined(__clang__)
#define NF_DW_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define NF_DW_NO_UNROLL
#endif

inline void store_lanes(float* p, v128_t v, int n) {
    if (n >= 4)
        store(p, v);
    else
        store_partial(p, v, n);
}

// The ring of interleaved padded input rows of a DwBlock4 (dilation 1). Rows must be requested in
// non-decreasing order of first use; dw_pack4_ring_slots consecutive rows stay valid together.
class PackRing {
public:
    explicit PackRing(const DwBlock4& b)
        : g_(b.win), buf_(b.scratch), px_(dw_pack4_row_pixels(b.win)), slots_(dw_pack4_ring_slots(b.win)) {
        // a block of fewer than four channels repeats its last plane in the missing lanes: they
        // are computed and never stored
        for (int c = 0; c < 4; c++)
            src_[c] = b.win.src + (size_t)std::min(c, b.channels - 1) * b.src_stride;
        for (int i = 0; i < kMaxRingRows; i++)
            tag_[i] = kNone;
    }

    // Interleaved padded row iy (may lie outside the plane): pixel x at 4 * x.
    const float* get(int iy) {
        const int slot = iy % slots_;  // iy >= 0: output rows times stride plus a tap row
        float* r = buf_ + (size_t)slot * px_ * 4;
        if (tag_[slot] == iy)
            return r;
        tag_[slot] = iy;
        const v128_t pv = splat(g_.pad_value);
        const int sy = iy - g_.pad_top;
        if (sy < 0 || sy >= g_.in_h) {
            for (size_t x = 0; x < px_; x++)
                store(r + 4 * x, pv);
            return r;
        }
        const size_t left = std::min((size_t)g_.pad_left, px_);
        for (size_t x = 0; x < left; x++)
            store(r + 4 * x, pv);
        const size_t n = std::min((size_t)g_.in_w, px_ - left);
        const size_t off = (size_t)sy * g_.in_w;
        const float *s0 = src_[0] + off, *s1 = src_[1] + off, *s2 = src_[2] + off, *s3 = src_[3] + off;
        float* o = r + 4 * left;
        size_t x = 0;
        for (; x + 4 <= n; x += 4) {
            v128_t v0 = load(s0 + x), v1 = load(s1 + x), v2 = load(s2 + x), v3 = load(s3 + x);
            transpose4(v0, v1, v2, v3);
            store(o + 4 * x, v0);
            store(o + 4 * x + 4, v1);
            store(o + 4 * x + 8, v2);
            store(o + 4 * x + 12, v3);
        }
        for (; x < n; x++)
            store(o + 4 * x, wasm_f32x4_make(s0[x], s1[x], s2[x], s3[x]));
        for (x = left + n; x < px_; x++)
            store(r + 4 * x, pv);
        return r;
    }

private:
    static constexpr int kNone = -0x7fffffff;
    const WindowGeometry& g_;
    float* buf_;
    size_t px_;
    int slots_;
    const float* src_[4];
    int tag_[kMaxRingRows];
};

// R output rows x NX output pixels from column x: acc[r * NX + px]. rows[i] is interleaved input
// row i of the block (K + (R - 1) * S of them); input row i serves output row r with tap row i - r*S.
template <int K, int S, int NX, int R>
NF_DW_INLINE void block(const float* const* rows, const float* kw, v128_t vb, int x, v128_t* acc) {
    constexpr int kRows = K + (R - 1) * S;
    for (int a = 0; a < R * NX; a++)
        acc[a] = vb;
    if (R == 1 && NX == 4) {
        // One output row: a real loop over the kernel rows. V8 issues all the loads of a loop
        // body before the arithmetic, so an unrolled body holds every input vector of every row
        // at once and spills most of them; a row per iteration keeps ~16 vectors live. Measured
        // against the unrolled pairs of rows: 3x3 s1 layer rows +5..20%, 3x3 s2 +3..10% (pairs of
        // rows in such a loop lose: 3x3 s1 -5%; 5x5 keeps its unrolled pairs).
        NF_DW_NO_UNROLL
        for (int i = 0; i < K; i++) {
            const float* rr = rows[i] + (size_t)4 * x * S;
            const float* wr = kw + i * K * 4;
            for (int j = 0; j < K; j++) {
                const v128_t w = load(wr + j * 4);
                for (int px = 0; px < NX; px++)
                    acc[px] = madd(load(rr + 4 * (px * S + j)), w, acc[px]);
            }
        }
        return;
    }
    for (int i = 0; i < kRows; i++) {
        const float* rr = rows[i] + (size_t)4 * x * S;
        for (int j = 0; j < K; j++)
            for (int r = 0; r < R; r++) {
                const int ki = i - r * S;
                if (ki < 0 || ki >= K)
                    continue;
                const v128_t w = load(kw + (ki * K + j) * 4);
                for (int px = 0; px < NX; px++)
                    acc[r * NX + px] = madd(load(rr + 4 * (px * S + j)), w, acc[r * NX + px]);
            }
    }
}

// What the stores need, copied out of the DwBlock4 (the compiler cannot keep fields of a struct
// that float stores might alias in registers). CLAMP: the store applies max(min(v, hi), lo), which
// is act_v's ReLU (lo 0, hi +inf) and its Clip (ReLU6; lo <= hi) bit for bit, NaN included: the
// activations depthwise layers have in practice, fused into the store. Without it the store is
// plain, and the other activations (leaky ReLU, sigmoid, mish, hardswish, a Clip with lo > hi)
// run as a pass over the finished rows, which keeps their code out of the kernel instances.
template <bool CLAMP>
struct StoreArgs {
    v128_t lo, hi;
    int channels;
    NF_DW_INLINE v128_t apply(v128_t v) const { return CLAMP ? max(min(v, hi), lo) : v; }
};

// Activation, then four pixels x four channels transposed into the channels' rows (out[c] + x).
// Always inlined, the vectors by value: a call would keep the accumulators in linear memory.
template <class SA>
NF_DW_INLINE void store4(v128_t v0, v128_t v1, v128_t v2, v128_t v3, const SA& b, float* const* out, int x) {
    v0 = b.apply(v0), v1 = b.apply(v1), v2 = b.apply(v2), v3 = b.apply(v3);
    transpose4(v0, v1, v2, v3);
    store(out[0] + x, v0);
    if (b.channels == 4) {
        store(out[1] + x, v1);
        store(out[2] + x, v2);
        store(out[3] + x, v3);
        return;
    }
    if (b.channels > 1)
        store(out[1] + x, v1);
    if (b.channels > 2)
        store(out[2] + x, v2);
}

// One pixel of each channel.
template <class SA>
NF_DW_INLINE void store1(v128_t acc, const SA& b, float* const* out, int x) {
    const v128_t v = b.apply(acc);
    out[0][x] = wasm_f32x4_extract_lane(v, 0);
    if (b.channels > 1)
        out[1][x] = wasm_f32x4_extract_lane(v, 1);
    if (b.channels > 2)
        out[2][x] = wasm_f32x4_extract_lane(v, 2);
    if (b.channels > 3)
        out[3][x] = wasm_f32x4_extract_lane(v, 3);
}

// The last four pixels of R output rows (the tail of rows_out for 5x5).
template <int K, int S, int R, class SA>
__attribute__((noinline)) void rows_tail4(const float* const* rows, const float* kw, const SA& b, int ow, v128_t vb,
                                          float* (*out)[4]) {
    v128_t acc[R * 4];
    block<K, S, 4, R>(rows, kw, vb, ow - 4, acc);
    for (int r = 0; r < R; r++)
        store4(acc[r * 4], acc[r * 4 + 1], acc[r * 4 + 2], acc[r * 4 + 3], b, out[r], ow - 4);
}

// R whole output rows: blocks of NX pixels, then of 4, then single pixels (the interleaved rows end
// at the last column the outputs reach, so a tail never runs a wider block).
template <int K, int S, int NX, int R, class SA>
NF_DW_INLINE void rows_out(const float* const* rows, const float* kw, const SA& b, int ow, v128_t vb,
                           float* (*out)[4]) {
    v128_t acc[R * NX];
    int x = 0;
    for (; x + NX <= ow; x += NX) {
        block<K, S, NX, R>(rows, kw, vb, x, acc);
        for (int r = 0; r < R; r++)
            for (int q = 0; q < NX; q += 4)
                store4(acc[r * NX + q], acc[r * NX + q + 1], acc[r * NX + q + 2], acc[r * NX + q + 3], b, out[r],
                       x + q);
    }
    if (NX > 4)
        for (; x + 4 <= ow; x += 4) {
            block<K, S, 4, R>(rows, kw, vb, x, acc);
            for (int r = 0; r < R; r++)
                store4(acc[r * 4], acc[r * 4 + 1], acc[r * 4 + 2], acc[r * 4 + 3], b, out[r], x);
        }
    if (K == 5 && R == 2 && x < ow && ow >= 4) {
        // 5x5: the row's last four pixels again (same values over stored ones), one block of four
        // instead of up to three single pixels, each of which loads all 25 taps for one vector of
        // sums (at 7x7 and 14x14 stride 2: three of seven pixels a row). Measured: 5x5 1152ch 7x7
        // and 672ch 14x14 stride 2 about +20%; 3x3's single pixels (the rolled one-row loop) are
        // cheaper than a redone block (576ch 20x20 stride 2: -8%), so 3x3 keeps them
        // (a function of its own, not inlined: inlined into this one, a second copy of the block's
        // body slowed the main loop, 5x5 on 28x28 by about 8%). Pairs of rows only: a plane's one
        // odd last row keeps its single pixels (half the instances: 0.9 KB less gzip .wasm).
        rows_tail4<K, S, R>(rows, kw, b, ow, vb, out);
        return;
    }
    for (; x < ow; x++) {
        block<K, S, 1, R>(rows, kw, vb, x, acc);
        for (int r = 0; r < R; r++)
            store1(acc[r], b, out[r], x);
    }
}

// NX pixels x R2 rows per iteration (R2 = 2: pairs of output rows, a last odd row alone).
// post: the activation runs as a pass over each finished row.
template <int K, int S, int NX, int R2, bool CLAMP>
void dwconv_pack4_act(const DwBlock4& b, float lo, float hi, bool post) {
    const WindowGeometry& g = b.win;
    PackRing ring(b);
    const v128_t vb = load(b.bias);
    const StoreArgs<CLAMP> sa{splat(lo), splat(hi), b.channels};
    const float* const kw = b.kernel;
    for (int y = 0; y < g.out_h;) {
        const int nr = R2 == 2 && y + 1 < g.out_h ? 2 : 1;
        const float* rows[K + S];
        for (int i = 0; i < K + (nr - 1) * S; i++)
            rows[i] = ring.get(y * S + i);
        float* out[2][4];
        for (int r = 0; r < nr; r++)
            for (int c = 0; c < 4; c++)
                out[r][c] = b.dst + (size_t)std::min(c, b.channels - 1) * b.dst_stride + (size_t)(y + r) * g.out_w;
        if (nr == 2)
            rows_out<K, S, NX, 2>(rows, kw, sa, g.out_w, vb, out);
        else
            rows_out<K, S, NX, 1>(rows, kw, sa, g.out_w, vb, out);
        if (post)
            for (int r = 0; r < nr; r++)
                for (int c = 0; c < b.channels; c++)
                    f32_act_inplace__wasmsimd(out[r][c], (size_t)g.out_w, b.act);
        y += nr;
    }
}

// 3x3 stride 2 with one pad column on the left (mobilenet's and the kernel bench's stride-2
// layers), one channel at a time, the f32x4 lanes four consecutive output pixels, read straight from
// the input plane: no interleaved ring. At stride 2 the pack4 ring costs as much as the taps it
// feeds (each output pixel reads four fresh input pixels, each transposed into the ring with a
// load, two shuffles and a store); here the four pixels of a row come from two contiguous loads
// and three shuffles: output x reads e[2x - 1], e[2x], e[2x + 1], that is the odd element before
// the pair, the even and the odd element of pair x, so tap 1 is the even lanes, tap 2 the odd
// lanes and tap 0 the odd lanes shifted by one, the previous vector's last odd element carried in.
// Rows above and below the plane read a row of pad values. Taken (dw_planar) when the outputs read
// one pad column on the right at most (in_w >= 2 * out_w - 1) and out_w >= 4: a last partial vector
// is then computed as the row's last four outputs, within the row; when the last output's last tap
// is the right pad (an odd width), the last vector's high half is loaded one element early and
// shifted, the pad value shifted in. Taps are added in kernel order after the bias: the scalar
// twin's bits.
//
// L0: no left pad (TF-style SAME on an even width, pads 0 left and 1 right: ONNX exports of
// BlazeFace and M-LSD; dw_planar_s2_l0). Output x then reads e[2x], e[2x + 1], e[2x + 2]: the same
// code on the row shifted by one element (e'[k] = e[k + 1]), the first carry e'[-1] = e[0]; when
// the row ends at 2 * ow (in_w == 2 * ow), the last vector's e'[2 * ow - 1] = e[2 * ow] is the
// right pad, shifted in as above. (The unshifted row, tap 2 as the even lanes shifted with
// e[2x + 8] splat-loaded in, costs three loads more a step.)
template <bool CLAMP, bool L0>
void dw3x3s2_planar(const DwBlock4& b, const StoreArgs<CLAMP>& sa, bool post) {
    const WindowGeometry& g = b.win;
    const int ow = g.out_w;
    // the pad row: the elements a plane row gives (2 * ow, and e[2 * ow] without a left pad)
    const int sh = L0 ? 1 : 0;
    const int pad_len = 2 * ow + sh;
    // whether the last output's last tap, e[2 * ow - 1] (e[2 * ow] without a left pad), is the
    // right pad column (an odd width with pads 1, 1; an even one with pads 0, 1)
    const bool tight = g.in_w < 2 * ow + sh;
    float* const pad_row = b.scratch;
    const v128_t pv = splat(g.pad_value);
    for (int x = 0; x < pad_len; x += 4)
        store(pad_row + x, pv);
    for (int c = 0; c < b.channels; c++) {
        const float* src = g.src + (size_t)c * b.src_stride;
        const float* wc = b.kernel + c;
        const v128_t w0 = load_splat(wc), w1 = load_splat(wc + 4), w2 = load_splat(wc + 8);
        const v128_t w3 = load_splat(wc + 12), w4 = load_splat(wc + 16), w5 = load_splat(wc + 20);
        const v128_t w6 = load_splat(wc + 24), w7 = load_splat(wc + 28), w8 = load_splat(wc + 32);
        const v128_t vb = load_splat(b.bias + c);
        float* const dst = b.dst + (size_t)c * b.dst_stride;
        for (int y = 0; y < g.out_h; y++) {
            const float* r[3];
            for (int i = 0; i < 3; i++) {
                const int sy = 2 * y + i - g.pad_top;
                r[i] = (sy >= 0 && sy < g.in_h ? src + (size_t)sy * g.in_w : pad_row) + sh;
            }
            float* out = dst + (size_t)y * ow;
            // lane 3: e[2 * x - 1] of each row (the shifted row's: e[0] without a left pad)
            v128_t c0 = pv, c1 = pv, c2 = pv;
            if (L0)
                c0 = load_splat(r[0] - 1), c1 = load_splat(r[1] - 1), c2 = load_splat(r[2] - 1);
            // one input row's three taps into the four outputs from x (one vector a step: two
            // vectors, with a second sum in flight, measured 5-10% slower, their loads spilled)
            // (last: the high half's last element is the right pad, loaded one early and shifted)
            auto taps = [&](const float* q, v128_t& cr, v128_t wa, v128_t wb, v128_t wc, v128_t acc, bool last)
                NF_DW_INLINE_LAMBDA {
                    const v128_t lo = load(q);
                    const v128_t hi = last ? wasm_i32x4_shuffle(load(q + 3), pv, 1, 2, 3, 4) : load(q + 4);
                    const v128_t ev = wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6), od = wasm_i32x4_shuffle(lo, hi, 1, 3, 5, 7);
                    acc = madd(wasm_i32x4_shuffle(cr, od, 3, 4, 5, 6), wa, acc);
                    acc = madd(ev, wb, acc);
                    cr = od;
                    return madd(od, wc, acc);
                };
            auto step = [&](int x, bool last) NF_DW_INLINE_LAMBDA {
                v128_t acc = taps(r[0] + 2 * x, c0, w0, w1, w2, vb, last);
                acc = taps(r[1] + 2 * x, c1, w3, w4, w5, acc, last);
                acc = taps(r[2] + 2 * x, c2, w6, w7, w8, acc, last);
                store(out + x, sa.apply(acc));
            };
            int x = 0;
            for (; x + 4 < ow; x += 4)
                step(x, false);
            if (x != ow - 4) {
                // the last four outputs again, overlapping stored ones with the same values: their
                // loads end at element 2 * ow - 1 of the (shifted) row; the carry is e[2 * x - 1]
                x = ow - 4;
                if (x > 0)
                    c0 = load_splat(r[0] + 2 * x - 1), c1 = load_splat(r[1] + 2 * x - 1), c2 = load_splat(r[2] + 2 * x - 1);
                else if (L0)
                    c0 = load_splat(r[0] - 1), c1 = load_splat(r[1] - 1), c2 = load_splat(r[2] - 1);
                else
                    c0 = c1 = c2 = pv;
            }
            if (tight)
                step(x, true);
            else
                step(x, false);
            if (post)
                f32_act_inplace__wasmsimd(out, (size_t)ow, b.act);
        }
    }
}

// 3x3 stride 1 with a one-column left pad and at most one on the right (ow <= in_w <= ow + 1),
// planar like dw3x3s2_planar: the taps of four outputs x .. x + 3 are the unaligned loads at x - 1,
// x and x + 1 of the plane row, no shuffle and no ring (measured against the pack4 ring: +5..12%
// on the kernel bench's 3x3 stride-1 rows, 56x56 to 7x7). The first vector (x - 1 is the pad) and
// vectors whose x + 1 load would pass the row's end build the edge lanes by a shuffle with the pad
// value; a last partial vector is redone as the row's last four outputs. The bias, then the taps
// in kernel order: the scalar twin's bits.
template <bool CLAMP>
void dw3x3s1_planar(const DwBlock4& b, const StoreArgs<CLAMP>& sa, bool post) {
    const WindowGeometry& g = b.win;
    const int ow = g.out_w, iw = g.in_w;
    const int pad_len = iw + 8;
    float* const pad_row = b.scratch;
    const v128_t pv = splat(g.pad_value);
    for (int x = 0; x < pad_len; x += 4)
        store(pad_row + x, pv);
    for (int c = 0; c < b.channels; c++) {
        const float* src = g.src + (size_t)c * b.src_stride;
        const float* wc = b.kernel + c;
        const v128_t w0 = load_splat(wc), w1 = load_splat(wc + 4), w2 = load_splat(wc + 8);
        const v128_t w3 = load_splat(wc + 12), w4 = load_splat(wc + 16), w5 = load_splat(wc + 20);
        const v128_t w6 = load_splat(wc + 24), w7 = load_splat(wc + 28), w8 = load_splat(wc + 32);
        const v128_t vb = load_splat(b.bias + c);
        float* const dst = b.dst + (size_t)c * b.dst_stride;
        for (int y = 0; y < g.out_h; y++) {
            const float* r[3];
            for (int i = 0; i < 3; i++) {
                const int sy = y + i - g.pad_top;
                r[i] = sy >= 0 && sy < g.in_h ? src + (size_t)sy * iw : pad_row;
            }
            float* out = dst + (size_t)y * ow;
            // inner vectors: x >= 1 and x + 4 < iw
            auto inner = [&](int x) NF_DW_INLINE_LAMBDA {
                v128_t acc = madd(load(r[0] + x - 1), w0, vb);
                acc = madd(load(r[0] + x), w1, acc);
                acc = madd(load(r[0] + x + 1), w2, acc);
                acc = madd(load(r[1] + x - 1), w3, acc);
                acc = madd(load(r[1] + x), w4, acc);
                acc = madd(load(r[1] + x + 1), w5, acc);
                acc = madd(load(r[2] + x - 1), w6, acc);
                acc = madd(load(r[2] + x), w7, acc);
                acc = madd(load(r[2] + x + 1), w8, acc);
                store(out + x, sa.apply(acc));
            };
            // any vector with x + 4 <= ow
            auto edge = [&](int x) {
                v128_t acc = vb;
                const v128_t ws[9] = {w0, w1, w2, w3, w4, w5, w6, w7, w8};
                for (int i = 0; i < 3; i++) {
                    const float* q = r[i];
                    const v128_t mid = load(q + x);
                    const v128_t left = x > 0 ? load(q + x - 1) : wasm_i32x4_shuffle(pv, mid, 3, 4, 5, 6);
                    const v128_t right = x + 4 < iw ? load(q + x + 1) : wasm_i32x4_shuffle(mid, pv, 1, 2, 3, 4);
                    acc = madd(left, ws[i * 3], acc);
                    acc = madd(mid, ws[i * 3 + 1], acc);
                    acc = madd(right, ws[i * 3 + 2], acc);
                }
                store(out + x, sa.apply(acc));
            };
            edge(0);
            int x = 4;
            for (; x + 4 <= ow && x + 4 < iw; x += 4)
                inner(x);
            for (; x + 4 <= ow; x += 4)
                edge(x);
            if (x < ow)
                edge(ow - 4);  // the last four outputs again (same values over stored ones)
            if (post)
                f32_act_inplace__wasmsimd(out, (size_t)ow, b.act);
        }
    }
}

// 3x3 with a one-column left pad and the right pad the planar kernels handle (at most one column),
// rows of at least four outputs (their last partial vector is redone as the row's last four
// outputs): the planar kernels, else the pack4 ring.
//
// Stride 2 only on planes of at most 128x128 (dw_planar_s2_plane): on 96ch 160x160 and 176x176
// (9.8 and 11.9 MB of input, more than stays in cache here) the planar kernel, one plane after the
// other, ran bimodal from one process to the next (160: 0.6-0.8 or 0.9-1.9 ms, ten runs; 176:
// 0.8-1.7 ms), where the ring, reading the block's four planes as four streams at once, stayed at
// 0.65-0.75 ms on 160x160 (176x176: 0.9-1.0 ms; 144x144 within 3% of the planar kernel). Taking a
// row of each channel in turn in the planar kernel steadied it there too, but cost 7-10% on 80x80
// to 112x112 (the weights splatted again every row).
inline bool dw_planar_s2_plane(const WindowGeometry& g) { return (size_t)g.in_w * g.in_h <= 128 * 128; }
inline bool dw_planar(const WindowGeometry& g, int K, int S) {
    if (K != 3 || g.pad_left != 1 || g.out_w < 4)
        return false;
    return S == 1 ? g.in_w >= g.out_w && g.in_w <= g.out_w + 1
                  : S == 2 && g.in_w >= 2 * g.out_w - 1 && dw_planar_s2_plane(g);
}
// 3x3 stride 2 without a left pad and the right one a column at most (in_w >= 2 * out_w; TF-style
// SAME on an even width), rows of at least four outputs, planes of at most 128x128:
// dw3x3s2_planar<L0>. Kernel bench time against the ring (loaded machine, same minute): 96ch
// 112x112 -9%, 32ch 128x128 -3%, 144ch 80x80 -2..6%, 576ch 20x20 -0..13%.
inline bool dw_planar_s2_l0(const WindowGeometry& g) {
    return g.pad_left == 0 && g.out_w >= 4 && g.in_w >= 2 * g.out_w && dw_planar_s2_plane(g);
}

template <int K, int S, int NX, int R2, bool CLAMP>
void dwconv_run(const DwBlock4& b, float lo, float hi, bool post) {
    const StoreArgs<CLAMP> sa{splat(lo), splat(hi), b.channels};
    if (K == 3 && S == 1 && dw_planar(b.win, K, S))
        dw3x3s1_planar<CLAMP>(b, sa, post);
    else if (K == 3 && S == 2 && dw_planar(b.win, K, S))
        dw3x3s2_planar<CLAMP, false>(b, sa, post);
    else if (K == 3 && S == 2 && dw_planar_s2_l0(b.win))
        dw3x3s2_planar<CLAMP, true>(b, sa, post);
    else
        dwconv_pack4_act<K, S, NX, R2, CLAMP>(b, lo, hi, post);
}

template <int K, int S, int NX, int R2>
void dwconv_pack4(const DwBlock4& b) {
    const ActParams& a = b.act;
    if (a.type == 1)
        dwconv_run<K, S, NX, R2, true>(b, 0.f, INFINITY, false);
    else if (a.type == 3 && a.p0 <= a.p1)
        dwconv_run<K, S, NX, R2, true>(b, a.p0, a.p1, false);
    else
        dwconv_run<K, S, NX, R2, false>(b, 0.f, 0.f, a.type != 0);
}

}  // namespace

// 3x3: one output row at a time, a loop over the kernel rows (block): pairs of rows share input
// rows but hold twice the vectors, which V8 spills. 5x5: pairs of rows, unrolled (measured: its
// single rows through the loop lose 10%).
void f32_dwconv3x3s1_pack4__wasmsimd(const DwBlock4& p) { dwconv_pack4<3, 1, 4, 1>(p); }
void f32_dwconv3x3s2_pack4__wasmsimd(const DwBlock4& p) { dwconv_pack4<3, 2, 4, 1>(p); }
void f32_dwconv5x5s1_pack4__wasmsimd(const DwBlock4& p) { dwconv_pack4<5, 1, 4, 2>(p); }
void f32_dwconv5x5s2_pack4__wasmsimd(const DwBlock4& p) { dwconv_pack4<5, 2, 4, 2>(p); }

void f32_dwconv_general__wasmsimd(const DwPlane& p) {
    const WindowGeometry& g = p.win;
    const int S = g.stride_w, D = g.dilation_w;
    RowRing ring(g, p.scratch, dw_ring_slots(g));
    const float* rows[kMaxRingRows];
    const v128_t vbias = splat(p.bias);
    for (int y = 0; y < g.out_h; y++) {
        for (int i = 0; i < g.kernel_h; i++)
            rows[i] = ring.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        for (int x = 0; x < g.out_w; x += 4) {
            v128_t acc = vbias;
            for (int i = 0; i < g.kernel_h; i++)
                for (int j = 0; j < g.kernel_w; j++) {
                    const float* q = rows[i] + x * S + j * D;
                    const v128_t v = S == 1 ? load(q) : wasm_f32x4_make(q[0], q[S], q[2 * S], q[3 * S]);
                    acc = madd(v, load_splat(p.kernel + i * g.kernel_w + j), acc);
                }
            store_lanes(out + x, acc, g.out_w - x);
        }
        f32_act_inplace__wasmsimd(out, (size_t)g.out_w, p.act);
    }
}

}  // namespace kernels
}  // namespace nnfold
