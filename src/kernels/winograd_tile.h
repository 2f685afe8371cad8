// One-tile Winograd transforms in scalar code, F(4,3) and F(6,3), shared by the scalar kernels and
// by the SIMD kernels for the tiles they do not batch (so both give the same bits). Internal to
// src/kernels/.
#pragma once

#include <cstddef>

#include "kernels/activation.h"

namespace nnfold {
namespace kernels {
namespace wino {

// F(4,3): 6x6 input tile -> 4x4 output tile (winograd.h has B^T, G, A^T).
struct F43 {
    static constexpr int m = 4, a = 6;
    // B^T x for 6 values; the SIMD kernels evaluate the same expressions.
    static void bt(const float d[6], float r[6]) {
        r[0] = (d[0] * 4.f - d[2] * 5.f) + d[4];
        r[1] = (d[3] + d[4]) - (d[1] + d[2]) * 4.f;
        r[2] = (d[4] - d[3]) + (d[1] - d[2]) * 4.f;
        r[3] = (d[4] - d[2]) + (d[3] - d[1]) * 2.f;
        r[4] = (d[4] - d[2]) - (d[3] - d[1]) * 2.f;
        r[5] = (d[1] * 4.f - d[3] * 5.f) + d[5];
    }
    // A^T m for 6 values -> 4.
    static void at(const float m[6], float r[4]) {
        const float a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
        r[0] = (m[0] + a) + c;
        r[1] = b + d * 2.f;
        r[2] = a + c * 4.f;
        r[3] = (b + d * 8.f) + m[5];
    }
};

// F(6,3): 8x8 input tile -> 6x6 output tile, interpolation points 0, +-1, +-1/2, +-2, infinity
// (ncnn src/layer/x86/convolution_3x3_winograd.h, conv3x3s1_winograd63_*: the same B^T and A^T,
// the rows of B^T paired as (a + b, a - b) so each pair shares its even and odd parts).
struct F63 {
    static constexpr int m = 6, a = 8;
    static void bt(const float d[8], float r[8]) {
        r[0] = (d[0] - d[6]) + (d[4] - d[2]) * 5.25f;
        const float a12 = (d[2] + d[6]) - d[4] * 4.25f, b12 = (d[1] + d[5]) - d[3] * 4.25f;
        r[1] = a12 + b12;
        r[2] = a12 - b12;
        const float a34 = (d[6] + d[2] * 0.25f) - d[4] * 1.25f, b34 = (d[1] * 0.5f - d[3] * 2.5f) + d[5] * 2.f;
        r[3] = a34 + b34;
        r[4] = a34 - b34;
        const float a56 = (d[2] * 4.f - d[4] * 5.f) + d[6], b56 = (d[1] * 2.f - d[3] * 2.5f) + d[5] * 0.5f;
        r[5] = a56 + b56;
        r[6] = a56 - b56;
        r[7] = (d[7] - d[1]) + (d[3] - d[5]) * 5.25f;
    }
    static void at(const float m[8], float r[6]) {
        const float a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4], e = m[5] + m[6],
                    f = m[5] - m[6];
        r[0] = ((m[0] + a) + c) + e * 32.f;
        r[1] = (b + d * 2.f) + f * 16.f;
        r[2] = (a + c * 4.f) + e * 8.f;
        r[3] = (b + d * 8.f) + f * 4.f;
        r[4] = (a + c * 16.f) + e * 2.f;
        r[5] = ((m[7] + b) + d * 32.f) + f;
    }
};

// V = B^T d B for the a x a tile at s (rows in_w apart): rows first (d B), then columns; V[k][c]
// goes to dst[(k * a + c) * pos_stride].
template <class F>
inline void input_tile(const float* s, int in_w, float* dst, size_t pos_stride) {
    constexpr int A = F::a;
    float tmp[A][A];
    for (int k = 0; k < A; k++)
        F::bt(s + (size_t)k * in_w, tmp[k]);
    for (int c = 0; c < A; c++) {
        float col[A], r[A];
        for (int k = 0; k < A; k++)
            col[k] = tmp[k][c];
        F::bt(col, r);
        for (int k = 0; k < A; k++)
            dst[(size_t)(k * A + c) * pos_stride] = r[k];
    }
}

// Y = A^T M A (M[k][c] at mp[(k * a + c) * pos_stride]): columns first, then rows; writes
// act(Y + bias) for the rows x cols part that lies inside the output (rows of out_w floats).
template <class F>
inline void output_tile(const float* mp, size_t pos_stride, float* d, int out_w, int rows, int cols, float bias,
                        const ActParams& act) {
    constexpr int A = F::a, M = F::m;
    float tmp[M][A];
    for (int c = 0; c < A; c++) {
        float col[A], r[M];
        for (int k = 0; k < A; k++)
            col[k] = mp[(size_t)(k * A + c) * pos_stride];
        F::at(col, r);
        for (int k = 0; k < M; k++)
            tmp[k][c] = r[k];
    }
    for (int k = 0; k < rows; k++) {
        float r[M];
        F::at(tmp[k], r);
        for (int c = 0; c < cols; c++)
            d[(size_t)k * out_w + c] = act_scalar(r[c] + bias, act);
    }
}

}  // namespace wino
}  // namespace kernels
}  // namespace nnfold
