// Pooling of one channel, vectorized along the output row, reading the unpadded input through
// kernels/window.h with the reference Pooling's border value as the pad value (-FLT_MAX for max,
// 0 for average):
//   f32_{max,avg}pool{2x2s2,3x3s1,3x3s2}: square windows, four output pixels per f32x4;
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
    WindowGeometry win;  // kernel/stride fields are set by the fixed kernels
    float* dst = nullptr;
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

// The K x K, stride S window over p.win's plane and pads.
inline WindowGeometry pool_window(const PoolPlane& p, int K, int S) {
    WindowGeometry g = p.win;
    g.kernel_w = g.kernel_h = K;
    g.stride_w = g.stride_h = S;
    g.dilation_w = g.dilation_h = 1;
    return g;
}

// One output pixel with bounds checks (edge columns), max or average, as the reference.
template <bool Max>
inline float pool_edge_pixel(const PoolPlane& p, const WindowGeometry& g, const float* const* rows, int y, int x) {
    const int K = g.kernel_w;
    if (Max) {
        float m = g.at(rows[0], x, 0);
        for (int i = 0; i < g.kernel_h; i++)
            for (int j = 0; j < K; j++) {
                const float v = g.at(rows[i], x, j);
                m = m < v ? v : m;  // std::max(m, v)
            }
        return m;
    }
    float sum = 0.f;
    for (int i = 0; i < g.kernel_h; i++)
        for (int j = 0; j < K; j++)
            sum += g.at(rows[i], x, j);
    const float area = p.row_count ? (float)(p.row_count[y] * p.col_count[x]) : (float)(K * g.kernel_h);
    return sum / area;
}

}  // namespace kernels
}  // namespace nnfold
