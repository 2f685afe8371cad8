// Winograd F(4,3) input and output transforms with SIMD-128: four horizontally adjacent tiles of
// one tile row at a time, one tile per lane (the planar layout keeps a tile's pixels in one plane,
// so the lanes come from a 4x4 transpose of the rows). Every lane evaluates exactly the scalar
// expressions of winograd_tile.h; tiles that do not fill a group of four go through those.
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

}  // namespace

void winograd43_transform_input__wasmsimd(const WinogradInput& in, int t0, int nt, float* v) {
    const size_t pos_stride = packed_b_floats(in.inch, nt);
    const size_t panel = (size_t)in.inch * 8;
    for (int q = 0; q < in.inch; q++) {
        const float* plane = in.src + (size_t)q * in.in_plane;
        float* v_q = v + (size_t)q * 8;
        for (int i = 0; i < nt;) {
            const int t = t0 + i;
            const int ty = t / in.tiles_w, tx = t % in.tiles_w;
            const float* s = plane + (size_t)ty * 4 * in.in_w + (size_t)tx * 4;
            if (i + 4 > nt || tx + 4 > in.tiles_w) {
                wino::input_tile(s, in.in_w, v_q + (size_t)(i / 8) * panel + (i % 8), pos_stride);
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
    winograd43_zero_panel_tail(in.inch, nt, v);
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
                wino::output_tile(mo + i, pos_stride, d, out.out_w, rows, cols, bias, out.act);
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

}  // namespace kernels
}  // namespace nnfold
