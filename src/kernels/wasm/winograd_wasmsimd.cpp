// Winograd F(4,3) and F(6,3) input and output transforms with SIMD-128: four horizontally adjacent
// tiles of one tile row at a time, one tile per lane (the planar layout keeps a tile's pixels in one
// plane, so the lanes come from transposing the rows: a 4x4 transpose for F(4,3), whose tiles start
// 4 columns apart, shuffles for F(6,3)'s 6). Every lane evaluates exactly the scalar expressions of
// winograd_tile.h; tiles that do not fill a group of four go through those.
#include "kernels/gemm.h"
#include "kernels/simd.h"
#include "kernels/winograd.h"
#include "kernels/winograd_tile.h"

namespace nnfold {
namespace kernels {

using namespace simd;

namespace {

inline void bt6v(const v128_t d[6], v128_t r[6]) {
    const v128_t four = splat(4.f), five = splat(5.f), two = splat(2.f);
    r[0] = add(sub(mul(d[0], four), mul(d[2], five)), d[4]);
    r[1] = sub(add(d[3], d[4]), mul(add(d[1], d[2]), four));
    r[2] = add(sub(d[4], d[3]), mul(sub(d[1], d[2]), four));
    r[3] = add(sub(d[4], d[2]), mul(sub(d[3], d[1]), two));
    r[4] = sub(sub(d[4], d[2]), mul(sub(d[3], d[1]), two));
    r[5] = add(sub(mul(d[1], four), mul(d[3], five)), d[5]);
}

inline void at6v(const v128_t m[6], v128_t r[4]) {
    const v128_t a = add(m[1], m[2]), b = sub(m[1], m[2]), c = add(m[3], m[4]), d = sub(m[3], m[4]);
    r[0] = add(add(m[0], a), c);
    r[1] = add(b, mul(d, splat(2.f)));
    r[2] = add(a, mul(c, splat(4.f)));
    r[3] = add(add(b, mul(d, splat(8.f))), m[5]);
}

// Stores lane j of v for tile i + j of a block (packed B panels: tile i at (i / 8) * panel + i % 8).
inline void store_tiles(float* v_q, size_t panel, int i, v128_t v) {
    const int lane0 = i % 8;
    float* d = v_q + (size_t)(i / 8) * panel + lane0;
    if (lane0 <= 4) {
        store(d, v);
        return;
    }
    float t[4];
    store(t, v);
    const int first = 8 - lane0;  // lanes left in this panel
    for (int j = 0; j < first; j++)
        d[j] = t[j];
    float* next = v_q + (size_t)(i / 8 + 1) * panel;
    for (int j = first; j < 4; j++)
        next[j - first] = t[j];
}


// F(6,3) (winograd_tile.h wino::F63), the same expressions on four lanes.
inline void bt8v(const v128_t d[8], v128_t r[8]) {
    const v128_t c525 = splat(5.25f), c425 = splat(4.25f), c025 = splat(0.25f), c125 = splat(1.25f),
                 c05 = splat(0.5f), c25 = splat(2.5f), c2 = splat(2.f), c4 = splat(4.f), c5 = splat(5.f);
    r[0] = add(sub(d[0], d[6]), mul(sub(d[4], d[2]), c525));
    const v128_t a12 = sub(add(d[2], d[6]), mul(d[4], c425)), b12 = sub(add(d[1], d[5]), mul(d[3], c425));
    r[1] = add(a12, b12);
    r[2] = sub(a12, b12);
    const v128_t a34 = sub(add(d[6], mul(d[2], c025)), mul(d[4], c125));
    const v128_t b34 = add(sub(mul(d[1], c05), mul(d[3], c25)), mul(d[5], c2));
    r[3] = add(a34, b34);
    r[4] = sub(a34, b34);
    const v128_t a56 = add(sub(mul(d[2], c4), mul(d[4], c5)), d[6]);
    const v128_t b56 = add(sub(mul(d[1], c2), mul(d[3], c25)), mul(d[5], c05));
    r[5] = add(a56, b56);
    r[6] = sub(a56, b56);
    r[7] = add(sub(d[7], d[1]), mul(sub(d[3], d[5]), c525));
}

inline void at8v(const v128_t m[8], v128_t r[6]) {
    const v128_t a = add(m[1], m[2]), b = sub(m[1], m[2]), c = add(m[3], m[4]), d = sub(m[3], m[4]),
                 e = add(m[5], m[6]), f = sub(m[5], m[6]);
    r[0] = add(add(add(m[0], a), c), mul(e, splat(32.f)));
    r[1] = add(add(b, mul(d, splat(2.f))), mul(f, splat(16.f)));
    r[2] = add(add(a, mul(c, splat(4.f))), mul(e, splat(8.f)));
    r[3] = add(add(b, mul(d, splat(8.f))), mul(f, splat(4.f)));
    r[4] = add(add(a, mul(c, splat(16.f))), mul(e, splat(2.f)));
    r[5] = add(add(add(m[7], b), mul(d, splat(32.f))), f);
}

// Column C of four F(6,3) tiles starting 6 columns apart: lane j = row[6 j + C], from the row's
// floats 0..25 loaded as L[0..6] (four per vector).
template <int C>
inline v128_t column6(const v128_t* L) {
    constexpr int e0 = C, e1 = C + 6, e2 = C + 12, e3 = C + 18;
    const v128_t lo = wasm_i32x4_shuffle(L[e0 / 4], L[e1 / 4], e0 % 4, 4 + e1 % 4, 0, 0);
    const v128_t hi = wasm_i32x4_shuffle(L[e2 / 4], L[e3 / 4], e2 % 4, 4 + e3 % 4, 0, 0);
    return wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5);
}

}  // namespace

void winograd43_transform_input__wasmsimd(const WinogradInput& in, int t0, int nt, float* v) {
    const size_t pos_stride = packed_b_floats(in.inch, nt);
    const size_t panel = (size_t)in.inch * 8;
    for (int q = in.q_begin; q < in.channel_end(); q++) {
        const float* plane = in.src + (size_t)q * in.in_plane;
        float* v_q = v + (size_t)q * 8;
        for (int i = 0; i < nt;) {
            const int t = t0 + i;
            const int ty = t / in.tiles_w, tx = t % in.tiles_w;
            const float* s = plane + (size_t)ty * 4 * in.in_w + (size_t)tx * 4;
            if (i + 4 > nt || tx + 4 > in.tiles_w) {
                wino::input_tile<wino::F43>(s, in.in_w, v_q + (size_t)(i / 8) * panel + (i % 8), pos_stride);
                i++;
                continue;
            }
            // rows first: h[k][c] = (d B)[k][c] for the four tiles
            v128_t h[6][6];
            for (int k = 0; k < 6; k++) {
                const float* r = s + (size_t)k * in.in_w;
                // the 18 floats the four 6-wide tiles cover (columns 0..17); reads exactly those
                v128_t c0 = load(r), c1 = load(r + 4), c2 = load(r + 8), c3 = load(r + 12);
                const v128_t tail = wasm_v128_load64_zero(r + 16);
                transpose4(c0, c1, c2, c3);  // c_j = column j of each tile
                v128_t d[6] = {c0, c1, c2, c3, wasm_i32x4_shuffle(c0, tail, 1, 2, 3, 4),
                               wasm_i32x4_shuffle(c1, tail, 1, 2, 3, 5)};
                bt6v(d, h[k]);
            }
            for (int c = 0; c < 6; c++) {
                v128_t col[6] = {h[0][c], h[1][c], h[2][c], h[3][c], h[4][c], h[5][c]}, r[6];
                bt6v(col, r);
                for (int k = 0; k < 6; k++)
                    store_tiles(v_q + (size_t)(k * 6 + c) * pos_stride, panel, i, r[k]);
            }
            i += 4;
        }
    }
    winograd_zero_panel_tail(36, in.inch, nt, v, in.q_begin, in.channel_end());
}

void winograd43_transform_output__wasmsimd(const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt) {
    const size_t pos_stride = (size_t)out.outch * ldm;
    const size_t out_plane = (size_t)out.out_w * out.out_h;
    for (int o = 0; o < out.outch; o++) {
        const float bias = out.bias ? out.bias[o] : 0.f;
        const v128_t vbias = splat(bias);
        float* dplane = out.dst + (size_t)o * out_plane;
        const float* mo = m + (size_t)o * ldm;
        for (int i = 0; i < nt;) {
            const int t = t0 + i;
            const int ty = t / out.tiles_w, tx = t % out.tiles_w;
            const int rows = out.out_h - ty * 4 < 4 ? out.out_h - ty * 4 : 4;
            float* d = dplane + (size_t)ty * 4 * out.out_w + tx * 4;
            if (i + 4 > nt || tx + 4 > out.tiles_w || (tx + 4) * 4 > out.out_w) {
                const int cols = out.out_w - tx * 4 < 4 ? out.out_w - tx * 4 : 4;
                wino::output_tile<wino::F43>(mo + i, pos_stride, d, out.out_w, rows, cols, bias, out.act);
                i++;
                continue;
            }
            // columns first: tmp[k][c] = (A^T M)[k][c], four tiles per vector
            v128_t tmp[4][6];
            for (int c = 0; c < 6; c++) {
                v128_t col[6], r[4];
                for (int k = 0; k < 6; k++)
                    col[k] = load(mo + (size_t)(k * 6 + c) * pos_stride + i);
                at6v(col, r);
                for (int k = 0; k < 4; k++)
                    tmp[k][c] = r[k];
            }
            for (int k = 0; k < rows; k++) {
                v128_t y[4];
                at6v(tmp[k], y);
                for (int c = 0; c < 4; c++)
                    y[c] = act_v(add(y[c], vbias), out.act);
                transpose4(y[0], y[1], y[2], y[3]);  // y[j] = row k of tile j
                float* dr = d + (size_t)k * out.out_w;
                store(dr, y[0]);
                store(dr + 4, y[1]);
                store(dr + 8, y[2]);
                store(dr + 12, y[3]);
            }
            i += 4;
        }
    }
}

void winograd63_transform_input__wasmsimd(const WinogradInput& in, int t0, int nt, float* v) {
    const size_t pos_stride = packed_b_floats(in.inch, nt);
    const size_t panel = (size_t)in.inch * 8;
    for (int q = in.q_begin; q < in.channel_end(); q++) {
        const float* plane = in.src + (size_t)q * in.in_plane;
        float* v_q = v + (size_t)q * 8;
        for (int i = 0; i < nt;) {
            const int t = t0 + i;
            const int ty = t / in.tiles_w, tx = t % in.tiles_w;
            const float* s = plane + (size_t)ty * 6 * in.in_w + (size_t)tx * 6;
            if (i + 4 > nt || tx + 4 > in.tiles_w) {
                wino::input_tile<wino::F63>(s, in.in_w, v_q + (size_t)(i / 8) * panel + (i % 8), pos_stride);
                i++;
                continue;
            }
            // rows first: h[k][c] = (d B)[k][c] for the four tiles
            v128_t h[8][8];
            for (int k = 0; k < 8; k++) {
                const float* r = s + (size_t)k * in.in_w;
                // the 26 floats the four 8-wide tiles cover (columns 0..25); reads exactly those
                const v128_t L[7] = {load(r),      load(r + 4),  load(r + 8), load(r + 12),
                                     load(r + 16), load(r + 20), wasm_v128_load64_zero(r + 24)};
                const v128_t d[8] = {column6<0>(L), column6<1>(L), column6<2>(L), column6<3>(L),
                                     column6<4>(L), column6<5>(L), column6<6>(L), column6<7>(L)};
                bt8v(d, h[k]);
            }
            for (int c = 0; c < 8; c++) {
                v128_t col[8] = {h[0][c], h[1][c], h[2][c], h[3][c], h[4][c], h[5][c], h[6][c], h[7][c]}, r[8];
                bt8v(col, r);
                for (int k = 0; k < 8; k++)
                    store_tiles(v_q + (size_t)(k * 8 + c) * pos_stride, panel, i, r[k]);
            }
            i += 4;
        }
    }
    winograd_zero_panel_tail(64, in.inch, nt, v, in.q_begin, in.channel_end());
}

void winograd63_transform_output__wasmsimd(const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt) {
    const size_t pos_stride = (size_t)out.outch * ldm;
    const size_t out_plane = (size_t)out.out_w * out.out_h;
    for (int o = 0; o < out.outch; o++) {
        const float bias = out.bias ? out.bias[o] : 0.f;
        const v128_t vbias = splat(bias);
        float* dplane = out.dst + (size_t)o * out_plane;
        const float* mo = m + (size_t)o * ldm;
        for (int i = 0; i < nt;) {
            const int t = t0 + i;
            const int ty = t / out.tiles_w, tx = t % out.tiles_w;
            const int rows = out.out_h - ty * 6 < 6 ? out.out_h - ty * 6 : 6;
            float* d = dplane + (size_t)ty * 6 * out.out_w + tx * 6;
            if (i + 4 > nt || tx + 4 > out.tiles_w || (tx + 4) * 6 > out.out_w) {
                const int cols = out.out_w - tx * 6 < 6 ? out.out_w - tx * 6 : 6;
                wino::output_tile<wino::F63>(mo + i, pos_stride, d, out.out_w, rows, cols, bias, out.act);
                i++;
                continue;
            }
            // columns first: tmp[k][c] = (A^T M)[k][c], four tiles per vector
            v128_t tmp[6][8];
            for (int c = 0; c < 8; c++) {
                v128_t col[8], r[6];
                for (int k = 0; k < 8; k++)
                    col[k] = load(mo + (size_t)(k * 8 + c) * pos_stride + i);
                at8v(col, r);
                for (int k = 0; k < 6; k++)
                    tmp[k][c] = r[k];
            }
            for (int k = 0; k < rows; k++) {
                v128_t y[6];
                at8v(tmp[k], y);
                for (int c = 0; c < 6; c++)
                    y[c] = act_v(add(y[c], vbias), out.act);
                // y[c] lane j = column c of tile j: the 24 floats of the row, tile after tile
                transpose4(y[0], y[1], y[2], y[3]);                  // y[j] = columns 0..3 of tile j
                const v128_t lo = wasm_i32x4_shuffle(y[4], y[5], 0, 4, 1, 5);  // columns 4, 5 of tiles 0, 1
                const v128_t hi = wasm_i32x4_shuffle(y[4], y[5], 2, 6, 3, 7);  // of tiles 2, 3
                float* dr = d + (size_t)k * out.out_w;
                store(dr, y[0]);
                store(dr + 4, wasm_i32x4_shuffle(lo, y[1], 0, 1, 4, 5));
                store(dr + 8, wasm_i32x4_shuffle(y[1], lo, 2, 3, 6, 7));
                store(dr + 12, y[2]);
                store(dr + 16, wasm_i32x4_shuffle(hi, y[3], 0, 1, 4, 5));
                store(dr + 20, wasm_i32x4_shuffle(y[3], hi, 2, 3, 6, 7));
            }
            i += 4;
        }
    }
}

}  // namespace kernels
}  // namespace nnfold
