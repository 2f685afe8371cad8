// Shared geometry for the convolution family (Convolution, ConvolutionDepthWise, Deconvolution*,
// Pooling): ncnn's padding rules and output sizes.
//   pad > 0 on any side: explicit constant padding (pad_left 4, pad_right 15, pad_top 14, pad_bottom 16)
//   all pads -233: SAME_UPPER (TensorFlow SAME / ONNX SAME_UPPER): extra pixel at the end
//   all pads -234: SAME_LOWER (ONNX SAME_LOWER): extra pixel at the start
// (ncnn src/layer/convolution.cpp, make_padding).
#pragma once

#include "core/mat.h"
#include "layers/layer.h"

namespace nnfold {

struct Pads {
    int left = 0, right = 0, top = 0, bottom = 0;
    bool any() const { return left > 0 || right > 0 || top > 0 || bottom > 0; }
};

// Resolve ncnn's pad params into concrete pads for an input of w x h.
Pads resolve_conv_pads(int w, int h, int kernel_extent_w, int kernel_extent_h, int stride_w, int stride_h,
                       int pad_left, int pad_right, int pad_top, int pad_bottom);

// Validates that the pad params are either all >= 0 or one of ncnn's SAME modes.
Status check_conv_pads(int pad_left, int pad_right, int pad_top, int pad_bottom);

// Copy with a constant border (per-channel planes of w*h; d folded into channels).
Status make_border(const Mat& src, Mat& dst, const Pads& p, float value, Allocator* alloc);

// Output extent of a sliding window; <= 0 means the input is too small.
inline int conv_out_size(int in_padded, int kernel_extent, int stride) {
    if (in_padded < kernel_extent)
        return 0;
    return (in_padded - kernel_extent) / stride + 1;
}

}  // namespace nnfold
