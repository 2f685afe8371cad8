// One-tile Winograd F(4,3) transforms in scalar code, shared by the scalar kernels and by the SIMD
// kernels for the tiles they do not batch (so both give the same bits). Internal to src/kernels/.
#pragma once

#include <cstddef>

#include "kernels/activation.h"

namespace nnfold {
namespace kernels {
namespace wino {

// B^T x for 6 values (winograd.h); the SIMD kernels evaluate the same expressions.
inline void bt6(const float d[6], float r[6]) {
    r[0] = (d[0] * 4.f - d[2] * 5.f) + d[4];
    r[1] = (d[3] + d[4]) - (d[1] + d[2]) * 4.f;
    r[2] = (d[4] - d[3]) + (d[1] - d[2]) * 4.f;
    r[3] = (d[4] - d[2]) + (d[3] - d[1]) * 2.f;
    r[4] = (d[4] - d[2]) - (d[3] - d[1]) * 2.f;
    r[5] = (d[1] * 4.f - d[3] * 5.f) + d[5];
}

// A^T m for 6 values -> 4.
inline void at6(const float m[6], float r[4]) {
    const float a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
    r[0] = (m[0] + a) + c;
    r[1] = b + d * 2.f;
    r[2] = a + c * 4.f;
    r[3] = (b + d * 8.f) + m[5];
}

// V = B^T d B for the 6x6 tile at s (rows in_w apart): rows first (d B), then columns; V[k][c]
// goes to dst[(k * 6 + c) * pos_stride].
inline void input_tile(const float* s, int in_w, float* dst, size_t pos_stride) {
    float tmp[6][6];
    for (int k = 0; k < 6; k++)
        bt6(s + (size_t)k * in_w, tmp[k]);
    for (int c = 0; c < 6; c++) {
        float col[6], r[6];
        for (int k = 0; k < 6; k++)
            col[k] = tmp[k][c];
        bt6(col, r);
        for (int k = 0; k < 6; k++)
            dst[(size_t)(k * 6 + c) * pos_stride] = r[k];
    }
}

// Y = A^T M A (M[k][c] at mp[(k * 6 + c) * pos_stride]): columns first, then rows; writes
// act(Y + bias) for the rows x cols part that lies inside the output (rows of out_w floats).
inline void output_tile(const float* mp, size_t pos_stride, float* d, int out_w, int rows, int cols, float bias,
                        const ActParams& act) {
    float tmp[4][6];
    for (int c = 0; c < 6; c++) {
        float col[6], r[4];
        for (int k = 0; k < 6; k++)
            col[k] = mp[(size_t)(k * 6 + c) * pos_stride];
        at6(col, r);
        for (int k = 0; k < 4; k++)
            tmp[k][c] = r[k];
    }
    for (int k = 0; k < rows; k++) {
        float r[4];
        at6(tmp[k], r);
        for (int c = 0; c < cols; c++)
            d[(size_t)k * out_w + c] = act_scalar(r[c] + bias, act);
    }
}

}  // namespace wino
}  // namespace kernels
}  // namespace nnfold
