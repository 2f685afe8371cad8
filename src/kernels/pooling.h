// Pooling of one channel over an already bordered plane (max: -FLT_MAX border, avg: 0 border, as
// the reference Pooling builds it), vectorized along the output row:
//   f32_{max,avg}pool{2x2s2,3x3s1,3x3s2}: square windows, four output pixels per f32x4;
//   f32_global_{max,avg}pool: one value per plane.
// Max takes the window in row-major order with std::max semantics (a NaN window cell is skipped
// unless it is the first), exactly as the reference does. Average sums the window row-major from
// 0 (border cells add 0) and divides by the kernel area, or - without count_include_pad - by
// row_count[y] * col_count[x], the window cells inside the pads (Pooling::Geometry): the
// reference's sum and divisor, so both agree bit for bit. The global average sums in 4 interleaved
// partial sums (lanes), combined as (s0 + s2) + (s1 + s3), then the tail: a reordered sum.
#pragma once

#include <cstddef>

namespace nnfold {
namespace kernels {

struct PoolPlane {
    const float* src = nullptr;  // bordered plane, rows in_w apart
    int in_w = 0;
    float* dst = nullptr;
    int out_w = 0, out_h = 0;
    // avg only: null = divide by the kernel area; else by row_count[y] * col_count[x]
    const int* row_count = nullptr;
    const int* col_count = nullptr;
};

#define NF_POOL_KERNELS(suffix)                                    \
    void f32_maxpool2x2s2__##suffix(const PoolPlane& p);           \
    void f32_maxpool3x3s1__##suffix(const PoolPlane& p);           \
    void f32_maxpool3x3s2__##suffix(const PoolPlane& p);           \
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

inline void f32_maxpool2x2s2(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool2x2s2)(p); }
inline void f32_maxpool3x3s1(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool3x3s1)(p); }
inline void f32_maxpool3x3s2(const PoolPlane& p) { NF_POOL_IMPL(f32_maxpool3x3s2)(p); }
inline void f32_avgpool2x2s2(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool2x2s2)(p); }
inline void f32_avgpool3x3s1(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool3x3s1)(p); }
inline void f32_avgpool3x3s2(const PoolPlane& p) { NF_POOL_IMPL(f32_avgpool3x3s2)(p); }
inline float f32_global_maxpool(const float* p, size_t n) { return NF_POOL_IMPL(f32_global_maxpool)(p, n); }
inline float f32_global_avgpool(const float* p, size_t n) { return NF_POOL_IMPL(f32_global_avgpool)(p, n); }
#undef NF_POOL_IMPL

}  // namespace kernels
}  // namespace nnfold
