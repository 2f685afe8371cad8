// Depthwise convolution of one channel over an already padded plane, vectorized along the output
// row (4 output pixels per f32x4). Every output pixel is
//   act(((bias + x_0 k_0) + x_1 k_1) + ... )   taps in row-major kernel order,
// the reference ConvolutionDepthWise's order, so results match it bit for bit apart from the
// fast exp of sigmoid/mish. Kernels:
//   f32_dwconv{3x3,5x5}{s1,s2}: fixed kernel and stride, dilation 1 (stride-2 lanes come from
//     even/odd shuffles of contiguous loads);
//   f32_dwconv_general: any kernel, stride and dilation (stride-1 rows load contiguously, other
//     strides gather lanes).
// Loads never go past the last input element the outputs need.
#pragma once

#include <cstddef>

#include "kernels/activation.h"

namespace nnfold {
namespace kernels {

struct DwPlane {
    const float* src = nullptr;  // padded input plane, rows in_w apart
    int in_w = 0;
    float* dst = nullptr;        // out_h rows of out_w
    int out_w = 0, out_h = 0;
    const float* kernel = nullptr;  // kernel_h * kernel_w taps, row-major
    float bias = 0.f;
    ActParams act;
    // f32_dwconv_general only
    int kernel_w = 1, kernel_h = 1, stride_w = 1, stride_h = 1, dilation_w = 1, dilation_h = 1;
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

}  // namespace kernels
}  // namespace nnfold
