// int8 Winograd F(4x4, 3x3) transforms with SIMD-128 (kernels/int8_wino43.h; scalar twins in
// kernels/int8_wino43.cpp). The GEMMs between them are i16_gemm (kernels/wasm/int8_wasmsimd.cpp).
//   i8_wino43_input   8 tiles (one GEMM column block) in the i16 lanes, two channels at a time:
//                     per input row, columns 0..3 of the 8 tiles are bytes 4j + l of 32 and columns
//                     4, 5 bytes 2j, 2j + 1 of 16 more; B^T over the 6 rows and B over the 6
//                     columns in lane-wise adds and shifts; the two channels interleaved into the
//                     panels' (k, k + 1) pairs. Eight tiles of one tile row inside the plane are
//                     read in place; any other group (row ends, plane edges, a block's last
//                     tiles) is first gathered into a zero-filled 6 x 48-byte stage in that layout.
//   i8_wino43_output  4 consecutive tiles in the i32 lanes (their sums are contiguous): A'^T . A'
//                     in wrapping lane-wise adds and shifts, 576 S -> S by one multiply and one
//                     shift (int8_wino43.h), a 4x4 transpose per output row into rows of pixels.
// All integer: the results are the twins' exactly.
#include <cstring>

#include "kernels/int8_wino43.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {

namespace {

// r = B^T d over 6 vectors d[0], d[s], ... (kernels/int8_wino43.cpp bt6, i16 lanes: |values| <=
// 12800, and a wrapped intermediate would be harmless anyway, the final value fitting)
inline void bt6v(const v128_t* d, v128_t* r, int s) {
    const v128_t d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];
    const v128_t a = wasm_i16x8_sub(d4, wasm_i16x8_shl(d2, 2)), b = wasm_i16x8_sub(d3, wasm_i16x8_shl(d1, 2));
    const v128_t c = wasm_i16x8_sub(d4, d2), e = wasm_i16x8_shl(wasm_i16x8_sub(d3, d1), 1);
    r[0] = wasm_i16x8_add(wasm_i16x8_shl(wasm_i16x8_sub(d0, d2), 2), c);
    r[s] = wasm_i16x8_add(a, b);
    r[2 * s] = wasm_i16x8_sub(a, b);
    r[3 * s] = wasm_i16x8_add(c, e);
    r[4 * s] = wasm_i16x8_sub(c, e);
    r[5 * s] = wasm_i16x8_add(wasm_i16x8_shl(wasm_i16x8_sub(d1, d3), 2), wasm_i16x8_sub(d5, d3));
}

// o = A'^T r over 6 vectors r[0], r[s], ... (i32 lanes, wrapping)
inline void at6v(const v128_t* r, v128_t* o, int s) {
    const v128_t a = wasm_i32x4_add(r[s], r[2 * s]), b = wasm_i32x4_add(r[3 * s], r[4 * s]);
    const v128_t c = wasm_i32x4_sub(r[s], r[2 * s]), d = wasm_i32x4_sub(r[3 * s], r[4 * s]);
    o[0] = wasm_i32x4_add(wasm_i32x4_add(r[0], a), b);
    o[s] = wasm_i32x4_add(c, wasm_i32x4_shl(d, 1));
    o[2 * s] = wasm_i32x4_add(a, wasm_i32x4_shl(b, 2));
    o[3 * s] = wasm_i32x4_add(wasm_i32x4_add(c, wasm_i32x4_shl(d, 3)), wasm_i32x4_shl(r[5 * s], 2));
}

}  // namespace

void i8_wino43_input__wasmsimd(const Int8WinoInput& in, int t0, int nt, int16_t* v) {
    const size_t per_pos = i16_packed_b_count(in.inch, nt);
    const size_t plane = (size_t)in.padded_w * in.padded_h;
    const int Kp2 = (in.inch + 1) / 2;
    // the stage of one channel: per input row, 32 bytes (tile j's columns 0..3 at 4j) and 16 bytes
    // (its columns 4, 5 at 2j); lanes past the group's tiles stay 0 (V's padding columns)
    alignas(16) int8_t stage[6][48];
    for (int t = 0; t < nt; t += 8) {
        const int n = nt - t < 8 ? nt - t : 8;
        const int tt = t0 + t, ty = tt / in.tiles_w * 4, tx = tt % in.tiles_w * 4;
        const bool fast = n == 8 && tt % in.tiles_w + 8 <= in.tiles_w && tx + 34 <= in.padded_w && ty + 6 <= in.padded_h;
        size_t ofs[8];
        bool inside[8];
        if (!fast) {
            std::memset(stage, 0, sizeof(stage));
            for (int j = 0; j < n; j++) {
                const int y = (tt + j) / in.tiles_w * 4, x = (tt + j) % in.tiles_w * 4;
                ofs[j] = (size_t)y * in.padded_w + x;
                inside[j] = y + 6 <= in.padded_h && x + 6 <= in.padded_w;
            }
        }
        // the 36 positions of one channel, 8 tiles in the lanes
        auto transform = [&](const int8_t* s, v128_t out[36]) {
            v128_t d[36];
            if (!fast) {
                for (int j = 0; j < n; j++) {
                    const int8_t* p = s + ofs[j];
                    for (int i = 0; i < 6; i++) {
                        int8_t* a = stage[i] + 4 * j;
                        int8_t* b = stage[i] + 32 + 2 * j;
                        if (inside[j]) {
                            std::memcpy(a, p + (size_t)i * in.padded_w, 4);
                            std::memcpy(b, p + (size_t)i * in.padded_w + 4, 2);
                            continue;
                        }
                        const int y = (tt + j) / in.tiles_w * 4 + i, x = (tt + j) % in.tiles_w * 4;
                        for (int l = 0; l < 6; l++) {
                            const int8_t c = y < in.padded_h && x + l < in.padded_w ? p[(size_t)i * in.padded_w + l] : 0;
                            (l < 4 ? a[l] : b[l - 4]) = c;
                        }
                    }
                }
            }
            for (int i = 0; i < 6; i++) {
                v128_t lo, hi, bb;
                if (fast) {
                    const int8_t* r = s + (size_t)(ty + i) * in.padded_w + tx;
                    lo = wasm_v128_load(r);
                    hi = wasm_v128_load(r + 16);
                    // columns 4, 5 of tile j: bytes 4j + 4, 4j + 5 (of r + 4 for j < 4, of r + 18 after)
                    bb = wasm_i8x16_shuffle(wasm_v128_load(r + 4), wasm_v128_load(r + 18), 0, 1, 4, 5, 8, 9, 12, 13, 18, 19,
                                            22, 23, 26, 27, 30, 31);
                } else {
                    lo = wasm_v128_load(stage[i]);
                    hi = wasm_v128_load(stage[i] + 16);
                    bb = wasm_v128_load(stage[i] + 32);
                }
                v128_t* row = d + i * 6;
                row[0] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0));
                row[1] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 1, 5, 9, 13, 17, 21, 25, 29, 0, 0, 0, 0, 0, 0, 0, 0));
                row[2] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 2, 6, 10, 14, 18, 22, 26, 30, 0, 0, 0, 0, 0, 0, 0, 0));
                row[3] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(lo, hi, 3, 7, 11, 15, 19, 23, 27, 31, 0, 0, 0, 0, 0, 0, 0, 0));
                row[4] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(bb, bb, 0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0));
                row[5] = wasm_i16x8_extend_low_i8x16(wasm_i8x16_shuffle(bb, bb, 1, 3, 5, 7, 9, 11, 13, 15, 0, 0, 0, 0, 0, 0, 0, 0));
            }
            v128_t w[36];
            for (int j = 0; j < 6; j++)
                bt6v(d + j, w + j, 6);  // B^T d, column j
            for (int i = 0; i < 6; i++)
                bt6v(w + i * 6, out + i * 6, 1);  // (B^T d) B, row i
        };
        int16_t* blk = v + (size_t)(t / 8) * Kp2 * 16;
        // channels in pairs (an odd last one pairs with zeros); one transform call site keeps the
        // code small
        for (int c = 0; c < in.inch; c += 2) {
            v128_t x[2][36];
#pragma clang loop unroll(disable)
            for (int h = 0; h < 2; h++) {
                if (c + h < in.inch) {
                    transform(in.src + (size_t)(c + h) * plane, x[h]);
                } else {
                    for (int p = 0; p < 36; p++)
                        x[h][p] = wasm_i16x8_splat(0);
                }
            }
            int16_t* d = blk + (size_t)(c / 2) * 16;
            for (int p = 0; p < 36; p++) {
                wasm_v128_store(d + (size_t)p * per_pos, wasm_i16x8_shuffle(x[0][p], x[1][p], 0, 8, 1, 9, 2, 10, 3, 11));
                wasm_v128_store(d + (size_t)p * per_pos + 8, wasm_i16x8_shuffle(x[0][p], x[1][p], 4, 12, 5, 13, 6, 14, 7, 15));
            }
        }
    }
}

void i8_wino43_output__wasmsimd(const int32_t* m, int t0, int nt, const Int8WinoOutput& out) {
    const size_t pstride = (size_t)out.outch * nt;
    const int y0 = (t0 / out.tiles_w) * 4;
    const v128_t inv9 = wasm_i32x4_splat((int32_t)0x38E38E39);
    for (int o = 0; o < out.outch; o++) {
        const int32_t* mo = m + (size_t)o * nt;
        int t = 0;
        for (; t + 4 <= nt; t += 4) {
            const int tt = t0 + t, ty = tt / out.tiles_w * 4, tx = tt % out.tiles_w * 4;
            v128_t v[36], a[24], r[16];
            for (int p = 0; p < 36; p++)
                v[p] = wasm_v128_load(mo + (size_t)p * pstride + t);
            for (int j = 0; j < 6; j++)
                at6v(v + j, a + j, 6);  // A'^T M: 4 rows of 6
            for (int i = 0; i < 4; i++)
                at6v(a + i * 6, r + i * 4, 1);  // (A'^T M) A'
            for (int k = 0; k < 16; k++)
                r[k] = wasm_i32x4_shr(wasm_i32x4_mul(r[k], inv9), 6);  // 576 S -> S
            if (tt % out.tiles_w + 4 <= out.tiles_w && tx + 16 <= out.out_w && ty + 4 <= out.out_h) {
                // rows of 16 pixels: r[i * 4 + k] holds column k of the 4 tiles; transpose
                int32_t* row = out.sums + (size_t)o * out.ld + (size_t)(ty - y0) * out.out_w + tx;
                for (int i = 0; i < 4; i++, row += out.out_w) {
                    const v128_t* c = r + i * 4;
                    const v128_t e0 = wasm_i32x4_shuffle(c[0], c[1], 0, 4, 1, 5), e1 = wasm_i32x4_shuffle(c[2], c[3], 0, 4, 1, 5);
                    const v128_t e2 = wasm_i32x4_shuffle(c[0], c[1], 2, 6, 3, 7), e3 = wasm_i32x4_shuffle(c[2], c[3], 2, 6, 3, 7);
                    wasm_v128_store(row, wasm_i32x4_shuffle(e0, e1, 0, 1, 4, 5));
                    wasm_v128_store(row + 4, wasm_i32x4_shuffle(e0, e1, 2, 3, 6, 7));
                    wasm_v128_store(row + 8, wasm_i32x4_shuffle(e2, e3, 0, 1, 4, 5));
                    wasm_v128_store(row + 12, wasm_i32x4_shuffle(e2, e3, 2, 3, 6, 7));
                }
                continue;
            }
            // tiles across a row end or the plane's edges: pixel by pixel, inside the output only
            int32_t s[16][4];
            for (int k = 0; k < 16; k++)
                wasm_v128_store(s[k], r[k]);
            for (int j = 0; j < 4; j++) {
                const int yj = (tt + j) / out.tiles_w * 4, xj = (tt + j) % out.tiles_w * 4;
                for (int i = 0; i < 4 && yj + i < out.out_h; i++) {
                    int32_t* row = out.sums + (size_t)o * out.ld + (size_t)(yj + i - y0) * out.out_w + xj;
                    for (int k = 0; k < 4 && xj + k < out.out_w; k++)
                        row[k] = s[i * 4 + k][j];
                }
            }
        }
        for (; t < nt; t++)
            i8_wino43_output_tile(m, t0 + t, t, nt, o, y0, out);
    }
}

}  // namespace kernels
}  // namespace nnfold
