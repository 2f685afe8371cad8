// int8 Winograd F(4x4, 3x3) (kernels/int8_wino43.h): the kernel transform, the weight bound, and the
// scalar twins of the input and output transforms (SIMD form in kernels/wasm/int8_wino43_wasmsimd.cpp).
#include "kernels/int8_wino43.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace nnfold {
namespace kernels {

int64_t i8_max_abs_weight_sum(const int8_t* weights, int outch, int inch) {
    int64_t worst = 0;
    for (int o = 0; o < outch; o++) {
        int64_t s = 0;
        const int8_t* w = weights + (size_t)o * inch * 9;
        for (size_t i = 0; i < (size_t)inch * 9; i++)
            s += std::abs((int)w[i]);
        worst = s > worst ? s : worst;
    }
    return worst;
}

void i8_wino43_transform_kernel(const int8_t* weights, int outch, int inch, int16_t* u) {
    static const int G[6][3] = {{6, 0, 0}, {-4, -4, -4}, {-4, 4, -4}, {1, 2, 4}, {1, -2, 4}, {0, 0, 6}};
    const size_t per_pos = i8_packed_a_count(outch, inch);
    std::vector<int16_t> rows((size_t)36 * outch * inch);  // [p][o][c] before packing
    for (int o = 0; o < outch; o++)
        for (int c = 0; c < inch; c++) {
            const int8_t* g = weights + ((size_t)o * inch + c) * 9;
            int t[6][3];  // G' g
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 3; j++)
                    t[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++)  // (G' g) G'^T, |value| <= 144 * 128
                    rows[((size_t)(i * 6 + j) * outch + o) * inch + c] =
                        (int16_t)(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
        }
    for (int p = 0; p < 36; p++)
        i8_pack_a(outch, inch, rows.data() + (size_t)p * outch * inch, u + (size_t)p * per_pos);
}

namespace {
// r = B^T d for one column of 6 taps (stride `s` apart in d and r)
inline void bt6(const int* d, int* r, int s) {
    const int d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];
    r[0] = 4 * (d0 - d2) + (d4 - d2);
    r[s] = (d4 - 4 * d2) + (d3 - 4 * d1);
    r[2 * s] = (d4 - 4 * d2) - (d3 - 4 * d1);
    r[3 * s] = (d4 - d2) + 2 * (d3 - d1);
    r[4 * s] = (d4 - d2) - 2 * (d3 - d1);
    r[5 * s] = 4 * (d1 - d3) + (d5 - d3);
}
// o = A'^T r for one column of 6 values (wrapping: the sums are exact modulo 2^32)
inline void at6(const uint32_t* r, uint32_t* o, int s) {
    const uint32_t a = r[s] + r[2 * s], b = r[3 * s] + r[4 * s], c = r[s] - r[2 * s], d = r[3 * s] - r[4 * s];
    o[0] = r[0] + a + b;
    o[s] = c + 2 * d;
    o[2 * s] = a + 4 * b;
    o[3 * s] = c + 8 * d + 4 * r[5 * s];
}
}  // namespace

void i8_wino43_input_tile(const Int8WinoInput& in, int tt, int t, int nt, int16_t* v) {
    const size_t per_pos = i16_packed_b_count(in.inch, nt), plane = (size_t)in.padded_w * in.padded_h;
    const int ty = tt / in.tiles_w * 4, tx = tt % in.tiles_w * 4;
    for (int c = 0; c < in.inch; c++) {
        const int8_t* s = in.src + (size_t)c * plane;
        int d[36], w[36], r[36];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                const int y = ty + i, x = tx + j;
                d[i * 6 + j] = y < in.padded_h && x < in.padded_w ? s[(size_t)y * in.padded_w + x] : 0;
            }
        for (int j = 0; j < 6; j++)
            bt6(d + j, w + j, 6);  // B^T d, column j
        for (int i = 0; i < 6; i++)
            bt6(w + i * 6, r + i * 6, 1);  // (B^T d) B, row i
        // position p's panel at column t, row c (kernels/int8.h i16_packed_b_count layout)
        const size_t at = ((size_t)(t / 8) * ((in.inch + 1) / 2) + (size_t)(c / 2)) * 16 + (size_t)(t % 8) * 2 + c % 2;
        for (int p = 0; p < 36; p++)
            v[(size_t)p * per_pos + at] = (int16_t)r[p];
    }
}

void i8_wino43_output_tile(const int32_t* m, int tt, int t, int nt, int o, int y0, const Int8WinoOutput& out) {
    const size_t pstride = (size_t)out.outch * nt;
    const int32_t* mo = m + (size_t)o * nt + t;
    uint32_t v[36], a[24], r[16];  // unsigned: the sums wrap modulo 2^32
    for (int p = 0; p < 36; p++)
        v[p] = (uint32_t)mo[(size_t)p * pstride];
    for (int j = 0; j < 6; j++)
        at6(v + j, a + j, 6);  // A'^T M: 4 rows of 6
    for (int i = 0; i < 4; i++)
        at6(a + i * 6, r + i * 4, 1);  // (A'^T M) A'
    const int ty = tt / out.tiles_w * 4, tx = tt % out.tiles_w * 4;
    for (int i = 0; i < 4 && ty + i < out.out_h; i++) {
        int32_t* row = out.sums + (size_t)o * out.ld + (size_t)(ty + i - y0) * out.out_w + tx;
        for (int j = 0; j < 4 && tx + j < out.out_w; j++)
            row[j] = (int32_t)(r[i * 4 + j] * 0x38E38E39u) >> 6;  // 576 S -> S (int8_wino43.h)
    }
}

void i8_wino43_input__scalar(const Int8WinoInput& in, int t0, int nt, int16_t* v) {
    std::memset(v, 0, i16_packed_b_count(in.inch, nt) * 36 * sizeof(int16_t));
    for (int t = 0; t < nt; t++)
        i8_wino43_input_tile(in, t0 + t, t, nt, v);
}

void i8_wino43_output__scalar(const int32_t* m, int t0, int nt, const Int8WinoOutput& out) {
    const int y0 = (t0 / out.tiles_w) * 4;
    for (int o = 0; o < out.outch; o++)
        for (int t = 0; t < nt; t++)
            i8_wino43_output_tile(m, t0 + t, t, nt, o, y0, out);
}

}  // namespace kernels
}  // namespace nnfold
