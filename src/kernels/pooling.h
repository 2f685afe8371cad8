// Pooling of one channel, vectorized along the output row, reading the input through a ring of
// padded rows (kernels/window.h; no border copy, edges and tails in the vector loop) with the
// reference Pooling's border value as the pad value (-FLT_MAX for max, 0 for average):
//   f32_{max,avg}pool{2x2s1,2x2s2,3x3s1,3x3s2}: square windows, four output pixels per f32x4;
//   f32_global_{max,avg}pool: one value per plane.
// Max takes the window in row-major order with std::max semantics (a NaN window cell is skipped
// unless it is the first), exactly as the reference does. Average sums the window row-major from
// 0 (border cells add 0) and divides by the kernel area, or - without count_include_pad - by
// row_count[y] * col_count[x], the window cells inside the pad params (Pooling::Geometry): the
// reference's sum and divisor, so both agree bit for bit. The global average sums in 4 interleaved
// partial sums (lanes), combined as (s0 + s2) + (s1 + s3), then the tail: a reordered sum.
#pragma once

#include <cstddef>

#include "kernels/dispatch.h"
#include "kernels/window.h"

namespace nnfold {
namespace kernels {

struct PoolPlane {
    WindowGeometry win;  // must describe the kernel's window (K x K, stride S)
    float* dst = nullptr;
    // avg only: null = divide by the kernel area; else by row_count[y] * col_count[x]
    // (col_count holds out_w rounded up to 4 entries: the vector loop reads whole vectors)
    const int* row_count = nullptr;
    const int* col_count = nullptr;
    float* scratch = nullptr;  // f32_pool_scratch_floats(win) floats
};

inline size_t f32_pool_scratch_floats(const WindowGeometry& g) { return row_ring_floats(g, g.rows_spanned()); }

// The square-window kernels. Extra columns: is_max, kernel size K, stride S.
#define NNFOLD_POOL_WINDOW_KERNELS(X)                                            \
    X(void, f32_maxpool2x2s1, (const PoolPlane& p), (p), true, 2, 1)             \
    X(void, f32_maxpool2x2s2, (const PoolPlane& p), (p), true, 2, 2)             \
    X(void, f32_maxpool3x3s1, (const PoolPlane& p), (p), true, 3, 1)             \
    X(void, f32_maxpool3x3s2, (const PoolPlane& p), (p), true, 3, 2)             \
    X(void, f32_avgpool2x2s1, (const PoolPlane& p), (p), false, 2, 1)            \
    X(void, f32_avgpool2x2s2, (const PoolPlane& p), (p), false, 2, 2)            \
    X(void, f32_avgpool3x3s1, (const PoolPlane& p), (p), false, 3, 1)            \
    X(void, f32_avgpool3x3s2, (const PoolPlane& p), (p), false, 3, 2)
// The global kernels. Extra column: is_max.
#define NNFOLD_POOL_GLOBAL_KERNELS(X)                                            \
    X(float, f32_global_maxpool, (const float* p, size_t n), (p, n), true)       \
    X(float, f32_global_avgpool, (const float* p, size_t n), (p, n), false)
NNFOLD_POOL_WINDOW_KERNELS(NF_KERNEL_DECLARE)
NNFOLD_POOL_GLOBAL_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
