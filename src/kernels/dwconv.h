// Depthwise convolution of one channel, vectorized along the output row (4 output pixels per
// f32x4). The input is read through a ring of padded rows (kernels/window.h): no border copy of
// the plane, and edges and tails run the same vector loop as the interior. Every output is
//   act(((bias + x_0 k_0) + x_1 k_1) + ... )   taps in row-major kernel order,
// with the pad value for taps outside the plane: the reference ConvolutionDepthWise's sum, in its
// order, so results match it bit for bit apart from the fast exp of sigmoid/mish. Kernels:
//   f32_dwconv{3x3,5x5}{s1,s2}: fixed kernel and stride, dilation 1 (p.win must describe that
//     window); stride 1 computes two output rows per pass (their shared input rows loaded once, two
//     independent sums in flight), stride 2 two vectors side by side with lanes from even/odd
//     shuffles of contiguous loads;
//   f32_dwconv_general: any kernel, stride and dilation whose window spans at most
//     kMaxRingRows - 1 input rows (stride-1 rows load contiguously, other strides gather lanes).
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
    float* scratch = nullptr;       // f32_dwconv_scratch_floats(win) floats
};

// Scratch the kernels need for this window (a ring of padded rows), and whether the ring can hold
// the window at all.
inline int dw_ring_slots(const WindowGeometry& g) { return g.rows_spanned() + 1; }
inline size_t f32_dwconv_scratch_floats(const WindowGeometry& g) { return row_ring_floats(g, dw_ring_slots(g)); }
inline bool f32_dwconv_supported(const WindowGeometry& g) { return dw_ring_slots(g) <= kMaxRingRows; }

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
