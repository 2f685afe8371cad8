// Depthwise convolution of one channel, vectorized along the output row (4 output pixels per
// f32x4), reading the unpadded input through kernels/window.h (no border copy). Every output is
//   act(((bias + x_0 k_0) + x_1 k_1) + ... )   taps in row-major kernel order,
// with the pad value for taps outside the plane: the reference ConvolutionDepthWise's sum, in its
// order, so results match it bit for bit apart from the fast exp of sigmoid/mish. Kernels:
//   f32_dwconv{3x3,5x5}{s1,s2}: fixed kernel and stride, dilation 1 (window fields ignored);
//     stride 1 computes two output rows per pass (their shared input rows loaded once, two
//     independent sums in flight); stride-2 lanes come from even/odd shuffles of contiguous loads;
//   f32_dwconv_general: any kernel, stride and dilation (stride-1 rows load contiguously, other
//     strides gather lanes).
// Loads never go past the last input element the outputs need.
#pragma once

#include <cstddef>

#include "kernels/activation.h"
#include "kernels/window.h"

namespace nnfold {
namespace kernels {

struct DwPlane {
    WindowGeometry win;
    float* dst = nullptr;           // out_h rows of out_w
    const float* kernel = nullptr;  // kernel_h * kernel_w taps, row-major
    float bias = 0.f;
    ActParams act;
};

#define NF_DWCONV_KERNELS(suffix)                        \
    void f32_dwconv3x3s1__##suffix(const DwPlane& p);    \
    void f32_dwconv3x3s2__##suffix(const DwPlane& p);    \
    void f32_dwconv5x5s1__##suffix(const DwPlane& p);    \
    void f32_dwconv5x5s2__##suffix(const DwPlane& p);    \
    void f32_dwconv_general__##suffix(const DwPlane& p);
NF_DWCONV_KERNELS(scalar)
#if NNFOLD_SIMD
NF_DWCONV_KERNELS(wasmsimd)
#define NF_DWCONV_DISPATCH(name) \
    inline void name(const DwPlane& p) { name##__wasmsimd(p); }
#else
#define NF_DWCONV_DISPATCH(name) \
    inline void name(const DwPlane& p) { name##__scalar(p); }
#endif
#undef NF_DWCONV_KERNELS

NF_DWCONV_DISPATCH(f32_dwconv3x3s1)
NF_DWCONV_DISPATCH(f32_dwconv3x3s2)
NF_DWCONV_DISPATCH(f32_dwconv5x5s1)
NF_DWCONV_DISPATCH(f32_dwconv5x5s2)
NF_DWCONV_DISPATCH(f32_dwconv_general)
#undef NF_DWCONV_DISPATCH

// The window of a fixed-size kernel (K x K, stride S, dilation 1) over p.win's plane and pads.
inline WindowGeometry dw_fixed_window(const DwPlane& p, int K, int S) {
    WindowGeometry g = p.win;
    g.kernel_w = g.kernel_h = K;
    g.stride_w = g.stride_h = S;
    g.dilation_w = g.dilation_h = 1;
    return g;
}

// One output pixel with bounds checks (the edge columns): the reference's sum.
inline float dw_edge_pixel(const WindowGeometry& g, const float* const* rows, int x, const float* kernel, float bias) {
    float sum = bias;
    for (int i = 0; i < g.kernel_h; i++)
        for (int j = 0; j < g.kernel_w; j++)
            sum += g.at(rows[i], x, j) * kernel[i * g.kernel_w + j];
    return sum;
}

}  // namespace kernels
}  // namespace nnfold
