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

#define NF_POOL_KERNELS(suffix)                                    \
    void f32_maxpool2x2s1__##suffix(const PoolPlane& p);           \
    void f32_maxpool2x2s2__##suffix(const PoolPlane& p);           \
    void f32_maxpool3x3s1__##suffix(const PoolPlane& p);           \
    void f32_maxpool3x3s2__##suffix(const PoolPlane& p);           \
    void f32_avgpool2x2s1__##suffix(const PoolPlane& p);           \
    void f32_avgpool2x2s2__##suffix(const PoolPlane& p);           \
    void f32_avgpool3x3s1__##suffix(const PoolPlane& p);           \
    void f32_avgpool3x3s2__##suffix(const PoolPlane& p);           \
    float f32_global_maxpool__##suffix(const float* p, size_t n);  \
    float f32_global_avgpool__##suffix(const float* p, size_t n);
NF_POOL_KERNELS(scalar)
#if NNFOLD_SIMD
NF_POOL_KERNELS(wasmsimd)
#define NF_POOL_IMPL(name) name##__wasmsimd
#else
#define NF_POOL_IMPL(name) name##__scalar
#endif
#undef NF_POOL_KERNELS

inline void f32_maxpool2x2s1(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool2x2s1)(p); }
inline void f32_maxpool2x2s2(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool2x2s2)(p); }
inline void f32_maxpool3x3s1(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool3x3s1)(p); }
inline void f32_maxpool3x3s2(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool3x3s2)(p); }
inline void f32_avgpool2x2s1(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool2x2s1)(p); }
inline void f32_avgpool2x2s2(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool2x2s2)(p); }
inline void f32_avgpool3x3s1(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool3x3s1)(p); }
inline void f32_avgpool3x3s2(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool3x3s2)(p); }
inline float f32_global_maxpool(const float* p, size_t n) { return NF_POOL_IMPL(f32_global_maxpool)(p, n); }
inline float f32_global_avgpool(const float* p, size_t n) { return NF_POOL_IMPL(f32_global_avgpool)(p, n); }
#undef NF_POOL_IMPL

}  // namespace kernels
}  // namespace nnfold
