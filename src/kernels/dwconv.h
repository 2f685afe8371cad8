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
#include "kernels/dispatch.h"
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

// The fixed-window kernels. Extra columns: kernel size K, stride S.
#define NNFOLD_DWCONV_FIXED_KERNELS(X)                          \
    X(void, f32_dwconv3x3s1, (const DwPlane& p), (p), 3, 1)     \
    X(void, f32_dwconv3x3s2, (const DwPlane& p), (p), 3, 2)     \
    X(void, f32_dwconv5x5s1, (const DwPlane& p), (p), 5, 1)     \
    X(void, f32_dwconv5x5s2, (const DwPlane& p), (p), 5, 2)
// Any window (f32_dwconv_supported).
#define NNFOLD_DWCONV_GENERAL_KERNELS(X) X(void, f32_dwconv_general, (const DwPlane& p), (p))
NNFOLD_DWCONV_FIXED_KERNELS(NF_KERNEL_DECLARE)
NNFOLD_DWCONV_GENERAL_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
