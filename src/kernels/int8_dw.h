// int8 depthwise convolution (ConvolutionDepthWise with group == channels, int8_scale_term != 0):
// the sums of one channel plane and ncnn's dequantize/requantize store (kernels/int8.h Int8Out).
// SIMD-128 form in kernels/wasm/int8_dw_wasmsimd.cpp, scalar twin in kernels/int8_dw.cpp; both give
// the same bits (integer sums are exact; the store computes the same float operations in the same
// order as i8_store).
//
// Layout: planar, one padded plane of int8 codes per channel, as the layer pads its input
// (layers/int8_forward.cpp: conv_int8_dw_codes pads an int8 input one channel at a time into a
// scratch plane with i8_pad_plane; padded_codes_ws quantizes and pads a float input) and as the
// next int8 layer reads its output. A
// channel-interleaved layout was weighed: with i32x4.dot_i16x8_s pairing two taps of one channel, it
// needs each input pixel's codes duplicated (pairs of neighbouring pixels) plus a transpose in the
// store to give the next layer its planes, for no fewer dot products than pairing taps in the planar
// layout (five dot products per 4 outputs of a 3x3 window either way); so the kernel stays planar.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/dispatch.h"
#include "kernels/int8.h"

namespace nnfold {
namespace kernels {

// One depthwise channel: out(y, x) = sum_t k[t] * src[y * stride_h * padded_w + x * stride_w +
// ofs[t]] over the padded plane `src`, stored with o's row `channel` at o.ld * channel + y * out_w + x.
// The SIMD kernel loads whole vectors of 8 output pixels: `src` must stay readable for
// i8_dwconv_slack(stride_w) bytes past the plane's end. `rowsums` (scratch for the sums before the
// store) holds i8_dwconv_sum_ints(out_w, out_h) ints.
struct Int8DwPlane {
    const int8_t* src = nullptr;
    const int8_t* kernel = nullptr;  // maxk taps
    const int* ofs = nullptr;        // maxk tap offsets in the padded plane
    int maxk = 1;
    int padded_w = 0, out_w = 0, out_h = 0, stride_w = 1, stride_h = 1;
    int channel = 0;
    int32_t* rowsums = nullptr;
};
inline size_t i8_dwconv_slack(int stride_w) { return (size_t)8 * (size_t)stride_w + 16; }
// The SIMD 3x3 kernels sum a chunk of this many output rows (even unless it is the whole plane:
// they step two rows at a time) into `rowsums` as dense rows, then store the chunk in one pass:
// about 2048 sums (8 KB, in L1), so that a small map (7x7, 14x14) is stored in one pass of 16
// codes per step rather than row by row with partial vectors.
inline int i8_dwconv_chunk_rows(int out_w, int out_h) {
    const int r = std::max(2, 2048 / std::max(out_w, 1) / 2 * 2);
    return std::min(r, std::max(out_h, 1));
}
// A chunk's dense rows, plus 16 ints: the last 8-pixel block of a row writes up to 7 sums past
// it, and the store reads whole vectors of 16 sums.
inline size_t i8_dwconv_sum_ints(int out_w, int out_h) {
    return (size_t)i8_dwconv_chunk_rows(out_w, out_h) * (size_t)std::max(out_w, 1) + 16;
}

// One padded plane of codes, as an int8 layer pads its int8 input (ncnn make_padding on an elemsize-1
// blob): the h rows of w codes at src (dense) placed at (left, top) of the padded_w x padded_h plane
// dst, every other byte `pad`. The SIMD twin copies rows in 16-byte vectors (Emscripten's memcpy
// copies byte by byte when source and destination differ in alignment, as a one-byte left border
// makes them).
struct Int8PadPlane {
    int w = 0, h = 0, left = 0, top = 0, padded_w = 0, padded_h = 0;
    int8_t pad = 0;
};

#define NNFOLD_INT8_DW_KERNELS(X)                                                              \
    X(void, i8_dwconv, (const Int8DwPlane& p, const Int8Out& o), (p, o))                       \
    X(void, i8_pad_plane, (const int8_t* src, const Int8PadPlane& g, int8_t* dst), (src, g, dst))
NNFOLD_INT8_DW_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
