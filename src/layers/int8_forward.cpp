// The int8 paths of Convolution, ConvolutionDepthWise and InnerProduct (layers/int8_layers.h):
// ncnn src/layer/convolution.cpp, convolutiondepthwise.cpp and innerproduct.cpp, load_model and
// forward_int8. Each quantizes its input (unless it is already int8), pads the codes, sums in
// int32 (kernels/int8.h) and dequantizes or requantizes per output channel.
#include <cstring>
#include <vector>

#include "kernels/int8.h"
#include "layers/convolution.h"
#include "layers/convolutiondepthwise.h"
#include "layers/innerproduct.h"

namespace nnfold {

namespace {

Status cancelled(const Option& opt) {
    if (opt.cancel && *opt.cancel)
        return Status(ErrorCode::Cancelled, "cancelled");
    return Status::ok();
}

// Input planes as int8 codes (1 byte per padded value: a quarter of the float input it came from,
// unless the border is wider than the plane) with the border added. ncnn quantizes first and pads the int8 blob
// (make_padding on elemsize 1: copy_make_border with pad_value converted to signed char), so the
// border holds (int8)pad_value, not a quantized pad_value.
Status padded_codes(const Mat& bottom, int channels, int w, int h, const ConvGeometry& g, float pad_value,
                    float bottom_scale, std::vector<int8_t>& out) {
    const size_t plane = (size_t)w * h;
    std::vector<int8_t> codes;
    if (!g.pads.any()) {
        out.resize(plane * channels);
        int8_input_codes(bottom, plane * channels, bottom_scale, out.data());
        return Status::ok();
    }
    const size_t pplane = (size_t)g.padded_w * g.padded_h;
    codes.resize(plane * channels);
    int8_input_codes(bottom, plane * channels, bottom_scale, codes.data());
    const int8_t pad = (int8_t)(int)pad_value;
    out.assign(pplane * channels, pad);
    for (int q = 0; q < channels; q++)
        for (int y = 0; y < h; y++)
            std::memcpy(out.data() + q * pplane + (size_t)(y + g.pads.top) * g.padded_w + g.pads.left,
                        codes.data() + q * plane + (size_t)y * w, (size_t)w);
    return Status::ok();
}

// Shared by Convolution (group 1) and ConvolutionDepthWise.
Status conv_int8(const ConvWindowLayer& l, const Int8Weights& q, int group, float pad_value, int inch,
                 const Mat& bottom, const Shape& os, const ConvGeometry& g, Mat& top, const Option& opt) {
    Planes in;
    NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), l.type.c_str(), in));
    if (bottom.elempack != 1)
        return internal_error(l.type + ": int8 path needs an unpacked input");
    // the top first: its size was checked by create; the scratch below is no larger than the
    // input (1 byte per padded value) and the top (4 bytes per sum)
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    std::vector<int8_t> src;
    NF_RETURN_IF_ERROR(padded_codes(bottom, inch, in.w, in.h, g, pad_value, q.bottom_scale, src));
    kernels::Int8ConvShape s;
    s.inch = inch;
    s.outch = l.num_output;
    s.group = group;
    s.padded_w = g.padded_w;
    s.padded_h = g.padded_h;
    s.out_w = g.out_w;
    s.out_h = g.out_h;
    s.stride_w = l.stride_w;
    s.stride_h = l.stride_h;
    s.maxk = l.kernel_w * l.kernel_h;
    const std::vector<int> ofs = kernel_offsets(l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, g.padded_w);
    const size_t out_plane = (size_t)g.out_w * g.out_h;
    std::vector<int32_t> sums;
    sums.resize(out_plane * l.num_output);
    kernels::int8_conv_sums(s, src.data(), q.weight.data(), ofs.data(), sums.data());
    NF_RETURN_IF_ERROR(cancelled(opt));
    for (int p = 0; p < l.num_output; p++)
        int8_store(q, p, sums.data() + (size_t)p * out_plane, out_plane, l.bias_data, l.activation, top.channel(p));
    top.int8 = q.requantize;
    return Status::ok();
}

// ncnn InnerProduct::forward_int8 (and Convolution's 1D-input path, which ncnn hands to an
// InnerProduct layer): one dot product per output, dequantized; InnerProduct has no top scale.
Status dot_int8(const WeightedLayer& l, const Int8Weights& q, int n, int rows, const Mat& bottom, const Shape& os,
                Mat& top) {
    if (bottom.elempack != 1)
        return internal_error(l.type + ": int8 path needs an unpacked input");
    std::vector<int8_t> x((size_t)n * rows);
    int8_input_codes(bottom, x.size(), q.bottom_scale, x.data());
    std::vector<int32_t> sums((size_t)l.num_output);
    Int8Weights dq = q;
    dq.requantize = false;
    dq.fused_bias = false;  // ncnn's x86 InnerProduct multiplies, then adds
    for (int r = 0; r < rows; r++) {
        kernels::int8_dot_rows(x.data() + (size_t)r * n, n, q.weight.data(), l.num_output, sums.data());
        float* out = top.data + (size_t)r * l.num_output;
        for (int p = 0; p < l.num_output; p++)
            int8_store(dq, p, sums.data() + p, 1, l.bias_data, l.activation, out + p);
    }
    (void)os;
    return Status::ok();
}

}  // namespace

Status Convolution::load_int8(const std::vector<WeightArray>& w) {
    Int8Flavor f;
    f.fused_bias = true;  // x86 Requantize / Dequantize
    return load_int8_weights(*this, w, num_output, num_output, 1, f, int8);
}

Status Convolution::forward_int8(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    if (int8.weight.size() != (size_t)weight_data_size)
        return internal_error("Convolution: int8 weights not loaded");
    if (os.dims == 1) {
        NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
        return dot_int8(*this, int8, num_input(), 1, bottom, os, top);
    }
    return conv_int8(*this, int8, 1, pad_value, num_input(), bottom, os, g, top, opt);
}

Status ConvolutionDepthWise::load_int8(const std::vector<WeightArray>& w) {
    // ncnn ConvolutionDepthWise::load_model reads weight scales only for these four values
    if (int8_scale_term != 1 && int8_scale_term != 2 && int8_scale_term != 101 && int8_scale_term != 102)
        return invalid_model("ConvolutionDepthWise int8_scale_term (param 8) must be 1, 2, 101 or 102, got " +
                             std::to_string(int8_scale_term));
    const int per_group_scales = (int8_scale_term == 1 || int8_scale_term == 101) ? group : 1;
    // ncnn's x86 depthwise path (elempack 8 when the channels are a multiple of 8) takes
    // _mm_rcp_ps of the scale product and multiplies, then adds; a grouped layer runs one int8
    // Convolution per group, with its fused epilogue
    const bool depthwise = group == num_output && num_input() == group;
    Int8Flavor f;
    f.x86_rcp = depthwise && group % 8 == 0;
    f.fused_bias = !depthwise;
    return load_int8_weights(*this, w, group, per_group_scales, num_output / group, f, int8);
}

Status ConvolutionDepthWise::forward_int8(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    if (int8.weight.size() != (size_t)weight_data_size)
        return internal_error("ConvolutionDepthWise: int8 weights not loaded");
    return conv_int8(*this, int8, group, pad_value, num_input(), bottom, os, g, top, opt);
}

Status InnerProduct::load_int8(const std::vector<WeightArray>& w) {
    return load_int8_weights(*this, w, num_output, num_output, 1, Int8Flavor(), int8);
}

Status InnerProduct::forward_int8(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os));
    if (int8.weight.size() != (size_t)weight_data_size)
        return internal_error("InnerProduct: int8 weights not loaded");
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int rows = os.dims == 2 ? os.h : 1;
    NF_RETURN_IF_ERROR(dot_int8(*this, int8, num_input(), rows, bottom, os, top));
    return cancelled(opt);
}

}  // namespace nnfold
