// Shared geometry for the sliding-window layers (Convolution, ConvolutionDepthWise, Deconvolution,
// DeconvolutionDepthWise, Pooling): ncnn's padding rules, output sizes, kernel offsets, border
// copies. The scalar references and the SIMD subclasses both call these, so the shape rules live
// in one place.
//
// Convolution-family pads (ncnn src/layer/convolution.cpp make_padding):
//   any pad > 0                explicit constant padding (pad_left 4, pad_right 15, pad_top 14,
//                              pad_bottom 16) with pad_value (param 18)
//   all pads -233              SAME_UPPER (TensorFlow SAME, ONNX SAME_UPPER): the odd pixel at the end
//   all pads -234              SAME_LOWER (ONNX SAME_LOWER): the odd pixel at the start
//   SAME total pad = kernel_extent + (w - 1) / stride * stride - w, split half / rest.
// Deconvolution-family cuts (ncnn src/layer/deconvolution.cpp cut_padding): the full output
// (w - 1) * stride + kernel_extent + output_pad is cut by the pads when any pad > 0; otherwise,
// when output_w and output_h are set and a pad is -233 (-234), the excess over output_w/h is cut
// half / rest with the odd pixel at the end (start); otherwise nothing is cut.
#pragma once

#include <cstdint>
#include <vector>

#include "core/mat.h"
#include "layers/layer.h"

namespace nnfold {

struct Pads {
    int left = 0, right = 0, top = 0, bottom = 0;
    bool any() const { return left != 0 || right != 0 || top != 0 || bottom != 0; }
};

// dilation * (kernel - 1) + 1, or -1 when it does not fit an int.
int kernel_extent(int kernel, int dilation);

// Resolve ncnn's convolution pad params into concrete pads for an input of w x h.
// kernel_extent_* is dilation * (kernel - 1) + 1. A negative SAME total (stride larger than the
// kernel extent) pads nothing: ncnn would call copy_make_border with a negative border there,
// which crops and overruns its buffer, so nnfold keeps TensorFlow's SAME meaning instead.
Pads resolve_conv_pads(int w, int h, int kernel_extent_w, int kernel_extent_h, int stride_w, int stride_h,
                       int pad_left, int pad_right, int pad_top, int pad_bottom);

// Validates that the convolution pad params are either all >= 0 or one of ncnn's SAME modes.
Status check_conv_pads(int pad_left, int pad_right, int pad_top, int pad_bottom);

// Validates kernel/dilation/stride (positive, extent within int range).
Status check_window(int kernel_w, int kernel_h, int dilation_w, int dilation_h, int stride_w, int stride_h);

// Where a convolution window slides for an input of w x h.
struct ConvGeometry {
    Pads pads;              // border added to the input
    int padded_w = 0, padded_h = 0;
    int kernel_extent_w = 0, kernel_extent_h = 0;
    int out_w = 0, out_h = 0;
};
// Fills `g`; shape_mismatch when the (padded) input is smaller than the kernel extent.
Status conv_geometry(int w, int h, int kernel_w, int kernel_h, int dilation_w, int dilation_h, int stride_w,
                     int stride_h, int pad_left, int pad_right, int pad_top, int pad_bottom, ConvGeometry& g);

// Offsets of the kernel taps inside a plane of row length `row_stride` (ncnn's space_ofs):
// tap (i, j) -> i * dilation_h * row_stride + j * dilation_w, row-major over the kernel.
std::vector<int> kernel_offsets(int kernel_w, int kernel_h, int dilation_w, int dilation_h, int row_stride);

// Validates deconvolution pads: all >= 0, or SAME markers (-233/-234) mixed only with 0.
Status check_deconv_pads(int pad_left, int pad_right, int pad_top, int pad_bottom);

// The output of a deconvolution for an input of w x h.
struct DeconvGeometry {
    int kernel_extent_w = 0, kernel_extent_h = 0;
    int full_w = 0, full_h = 0;  // (w - 1) * stride + kernel_extent + output_pad
    Pads cut;                    // removed from full_w x full_h
    int out_w = 0, out_h = 0;
};
Status deconv_geometry(int w, int h, int kernel_w, int kernel_h, int dilation_w, int dilation_h, int stride_w,
                       int stride_h, int pad_left, int pad_right, int pad_top, int pad_bottom, int output_pad_right,
                       int output_pad_bottom, int output_w, int output_h, DeconvGeometry& g);

// Copy of `src` (planes of w*h; d and c folded into planes) with a constant border: dst is 3D
// [planes, h + top + bottom, w + left + right]. Pads must be >= 0.
Status make_border(const Mat& src, Mat& dst, const Pads& p, float value, Allocator* alloc);

// Copy of the planes of `src` with `p` removed from each side: dst is 3D
// [planes, h - top - bottom, w - left - right]. Pads must be >= 0 and leave a non-empty plane.
Status cut_border(const Mat& src, Mat& dst, const Pads& p, Allocator* alloc);

// Output extent of a sliding window; 0 means the input is too small.
inline int conv_out_size(int in_padded, int kernel_extent, int stride) {
    if (in_padded < kernel_extent)
        return 0;
    return (in_padded - kernel_extent) / stride + 1;
}

// The spatial view ncnn's convolution family takes of a blob: 3D [c,h,w] as is, 2D [h,w] as one
// channel, 1D [w] as one row of one channel. 4D is rejected.
struct Planes {
    int w = 0, h = 0, c = 0;
};
Status conv_input_planes(const Shape& s, const char* layer_type, Planes& p);

// A layer with int8_scale_term != 0 runs quantized in ncnn. nnfold runs the int8 paths of
// Convolution, ConvolutionDepthWise and InnerProduct (layers/int8_layers.h); the other types with an
// int8_scale_term (Gemm, MultiHeadAttention) call this: read and written unchanged, not run.
// ok() when int8_scale_term is 0.
Status check_runnable_int8(int int8_scale_term, const char* layer_type);

}  // namespace nnfold
