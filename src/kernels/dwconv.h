// Depthwise convolution kernels (fp32). Every output is
//   act(((bias + x_0 k_0) + x_1 k_1) + ... )   taps in row-major kernel order,
// with the pad value for taps outside the plane: the reference ConvolutionDepthWise's sum, in its
// order, so results match it bit for bit apart from the fast exp of sigmoid/mish. Two families:
//
//   f32_dwconv{3x3,5x5}{s1,s2}_pack4: fixed kernel and stride, dilation 1, FOUR channels at once
//     (ncnn's pack4 / XNNPACK's channel tile): the SIMD kernels interleave the block's four input
//     planes into a small ring of padded rows (pixel x of a row is one f32x4 of the four channels,
//     pads written as pad values, so no padded copy of the plane exists), compute several output
//     pixels per iteration from loads shared between neighbouring taps (stride 1 two output rows at
//     once), and apply bias and activation before transposing back into the planar output. The
//     vector lanes are channels, so small maps (8x8, 4x4) and stride 2 run as fast as large ones:
//     no lane is wasted on a row tail and no shuffle gathers even/odd columns. Except 3x3 with a
//     left pad of one column (the usual pad 1) or, at stride 2, none (TF-style SAME on an even
//     size), the right pad one column at most, out_w >= 4 and, at stride 2, planes up to 128x128:
//     its SIMD kernels take the block's channels one at a time, four output pixels a vector, straight
//     from the input plane, which measured faster than the ring (its transposing fill at stride 2
//     costs about as much as the taps it feeds; wasm/dwconv_wasmsimd.cpp).
//   f32_dwconv_general: one channel, any kernel, stride and dilation whose window spans at most
//     kMaxRingRows - 1 input rows, vectorized along the output row through a ring of padded rows
//     (kernels/window.h; stride-1 rows load contiguously, other strides gather lanes).
#pragma once

#include <algorithm>
#include <cstddef>

#include "kernels/activation.h"
#include "kernels/dispatch.h"
#include "kernels/window.h"

namespace nnfold {
namespace kernels {

// One channel (f32_dwconv_general).
struct DwPlane {
    WindowGeometry win;
    float* dst = nullptr;           // out_h rows of out_w
    const float* kernel = nullptr;  // kernel_h * kernel_w taps, row-major
    float bias = 0.f;
    ActParams act;
    float* scratch = nullptr;       // f32_dwconv_scratch_floats(win) floats
};

// Four consecutive channels (the last block of a layer may hold 1..3): win.src is the first
// channel's input plane, the others follow every src_stride floats; outputs likewise.
struct DwBlock4 {
    WindowGeometry win;              // dilation 1, the kernel and stride of the kernel called
    size_t src_stride = 0;           // floats from one channel's input plane to the next
    int channels = 4;                // 1..4 valid channels in the block
    float* dst = nullptr;            // channel c: out_h rows of out_w at dst + c * dst_stride
    size_t dst_stride = 0;
    const float* kernel = nullptr;   // f32_dwconv_pack4_weights: tap t of channel c at [t * 4 + c]
    const float* bias = nullptr;     // 4 floats (zeros past `channels`)
    ActParams act;
    float* scratch = nullptr;        // f32_dwconv_pack4_scratch_floats(win) floats
};

// Scratch the plane kernel needs for this window (a ring of padded rows), and whether the ring can
// hold the window at all.
inline int dw_ring_slots(const WindowGeometry& g) { return g.rows_spanned() + 1; }
inline size_t f32_dwconv_scratch_floats(const WindowGeometry& g) { return row_ring_floats(g, dw_ring_slots(g)); }
inline bool f32_dwconv_supported(const WindowGeometry& g) { return dw_ring_slots(g) <= kMaxRingRows; }

// Pixels of one interleaved padded row of the pack4 kernels: exactly the columns the outputs reach.
inline size_t dw_pack4_row_pixels(const WindowGeometry& g) {
    return (size_t)(g.out_w - 1) * g.stride_w + (size_t)(g.kernel_w - 1) * g.dilation_w + 1;
}
// Ring slots of the pack4 kernels: the rows of two output rows at once.
inline int dw_pack4_ring_slots(const WindowGeometry& g) { return g.rows_spanned() + g.stride_h; }
// Scratch of a pack4 kernel: its ring of interleaved rows (SIMD) or the plane ring its scalar twin
// runs each channel through, whichever is larger.
inline size_t f32_dwconv_pack4_scratch_floats(const WindowGeometry& g) {
    return std::max((size_t)dw_pack4_ring_slots(g) * dw_pack4_row_pixels(g) * 4, f32_dwconv_scratch_floats(g));
}
// Floats of the packed weights and biases of `channels` channels of `taps` taps each (channel
// count rounded up to whole blocks of four).
inline size_t dw_pack4_weight_floats(int channels, int taps) { return (size_t)(channels + 3) / 4 * 4 * taps; }
inline size_t dw_pack4_bias_floats(int channels) { return (size_t)(channels + 3) / 4 * 4; }
// Packs weights [channel][taps] and bias [channel] (nullptr: zeros) into blocks of four channels:
// block b's tap t of channel c at w4[(b * taps + t) * 4 + c], its bias c at b4[b * 4 + c]; the lanes
// of missing channels in the last block are zeros.
void f32_dwconv_pack4_weights(const float* w, const float* bias, int channels, int taps, float* w4, float* b4);

// The fixed-window pack4 kernels. Extra columns: kernel size K, stride S.
#define NNFOLD_DWCONV_PACK4_KERNELS(X)                                  \
    X(void, f32_dwconv3x3s1_pack4, (const DwBlock4& p), (p), 3, 1)      \
    X(void, f32_dwconv3x3s2_pack4, (const DwBlock4& p), (p), 3, 2)      \
    X(void, f32_dwconv5x5s1_pack4, (const DwBlock4& p), (p), 5, 1)      \
    X(void, f32_dwconv5x5s2_pack4, (const DwBlock4& p), (p), 5, 2)
// Any window (f32_dwconv_supported), one channel.
#define NNFOLD_DWCONV_GENERAL_KERNELS(X) X(void, f32_dwconv_general, (const DwPlane& p), (p))
NNFOLD_DWCONV_PACK4_KERNELS(NF_KERNEL_DECLARE)
NNFOLD_DWCONV_GENERAL_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
