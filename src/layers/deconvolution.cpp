// Deconvolution (ncnn src/layer/deconvolution.cpp), also the reference forward of
// DeconvolutionDepthWise (src/layer/deconvolutiondepthwise.cpp, see deconvolutiondepthwise.cpp). Params: 0 num_output, 1 kernel_w, 11 kernel_h, 2/12
// dilation, 3/13 stride, 4 pad_left, 15 pad_right, 14 pad_top, 16 pad_bottom (as Convolution),
// 5 bias_term, 6 weight_data_size, 7 group (DeconvolutionDepthWise only), 9/10 activation,
// 18 output_pad_right, 19 output_pad_bottom(=output_pad_right), 20 output_w, 21 output_h(=output_w),
// 28 dynamic_weight. Weights: weight_data (tagged), bias_data [num_output] (raw).
//
// Output: the full transposed convolution (w - 1) * stride + kernel_extent + output_pad, with the
// bias and fused activation applied, then cut as in conv_common.h (explicit pads, or the excess
// over output_w/output_h for SAME pads). Output is [num_output, out_h, out_w].
#include "layers/deconvolution.h"

namespace nnfold {

Status Deconvolution::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    return finish_load(pd);
}

Status Deconvolution::finish_load(const ParamDict& pd) {
    NF_RETURN_IF_ERROR(load_activation(pd));
    one_blob_only = dynamic_weight == 0;

    NF_RETURN_IF_ERROR(check_group_window(group));
    NF_RETURN_IF_ERROR(check_deconv_pads(pad_left, pad_right, pad_top, pad_bottom));
    if (output_pad_right < 0 || output_pad_bottom < 0)
        return invalid_model("output_pad_right/bottom (params 18/19) must be >= 0");
    if (dynamic_weight)
        return Status::ok();
    return check_grouped_weight_size(group, group > 1);
}

Status Deconvolution::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    if (dynamic_weight)
        return Status::ok();
    // Each output pixel sums about (inputs per group) * kernel area / stride^2 terms; the kernel
    // area per input channel is the conservative fan-in.
    weight_bias_specs(specs, (int64_t)weight_data_size / num_output);
    return Status::ok();
}

Status Deconvolution::output_shape(const Shape& in, Shape& out, DeconvGeometry* geometry) const {
    if (dynamic_weight)
        return unsupported(type + " with dynamic_weight=1 (weights from an input blob) is not supported");
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, type.c_str(), p));
    if (p.c != num_input())
        return shape_mismatch("input " + in.str() + " has " + std::to_string(p.c) + " channel(s), the weights expect " +
                              std::to_string(num_input()) + " (weight_data_size " + std::to_string(weight_data_size) +
                              (group > 1 ? ", group " + std::to_string(group) : std::string()) + ")");
    DeconvGeometry g;
    NF_RETURN_IF_ERROR(deconv_geometry(p.w, p.h, kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h,
                                       pad_left, pad_right, pad_top, pad_bottom, output_pad_right, output_pad_bottom,
                                       output_w, output_h, g));
    out = Shape::d3(g.out_w, g.out_h, num_output);
    if (geometry)
        *geometry = g;
    return Status::ok();
}

Status Deconvolution::forward(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    DeconvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    NF_RETURN_IF_ERROR(check_weights_loaded());

    const bool cut = g.cut.any();
    Mat full;
    NF_RETURN_IF_ERROR(full.create(Shape::d3(g.full_w, g.full_h, num_output),
                                   cut ? opt.workspace_allocator : opt.blob_allocator));
    Planes in;
    NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), type.c_str(), in));
    const int maxk = kernel_w * kernel_h;
    const std::vector<int> ofs = kernel_offsets(kernel_w, kernel_h, dilation_w, dilation_h, g.full_w);
    const int inch_g = num_input() / group;
    const int outch_g = num_output / group;
    const size_t in_plane = (size_t)in.w * in.h;
    const size_t out_plane = (size_t)g.full_w * g.full_h;

    // Scatter form, in ncnn's order (input row, input column, input channel, tap) so each output
    // sums its terms in the same order as ncnn's reference.
    for (int gi = 0; gi < group; gi++) {
        for (int p = 0; p < outch_g; p++) {
            const int oc = gi * outch_g + p;
            float* out = full.data + (size_t)oc * out_plane;
            const float bias = bias_term ? bias_data[oc] : 0.f;
            for (size_t k = 0; k < out_plane; k++)
                out[k] = bias;
            const float* kbase = weight_data.data() + ((size_t)gi * outch_g + p) * inch_g * maxk;
            for (int i = 0; i < in.h; i++) {
                for (int j = 0; j < in.w; j++) {
                    float* op = out + (size_t)i * stride_h * g.full_w + (size_t)j * stride_w;
                    const float* kp = kbase;
                    for (int q = 0; q < inch_g; q++) {
                        const float val = bottom.data[(size_t)(gi * inch_g + q) * in_plane + (size_t)i * in.w + j];
                        for (int k = 0; k < maxk; k++)
                            op[ofs[k]] += val * kp[k];
                        kp += maxk;
                    }
                }
            }
            activation.apply(out, out_plane);
        }
        if (opt.cancel && *opt.cancel)
            return Status(ErrorCode::Cancelled, "cancelled");
    }
    if (!cut) {
        top = full;
        return Status::ok();
    }
    return cut_border(full, top, g.cut, opt.blob_allocator);
}

const std::vector<ParamField<Deconvolution>>& deconv_fields() {
    using Self = Deconvolution;
    static const std::vector<ParamField<Self>> fields = [] {
        std::vector<ParamField<Deconvolution>> f(conv_window_fields().begin(), conv_window_fields().end());
        f.insert(f.end(), {NF_PARAM(18, output_pad_right),
                           NF_PARAM_FROM(19, output_pad_bottom, 18),
                           NF_PARAM(20, output_w),
                           NF_PARAM_FROM(21, output_h, 20),
                           NF_PARAM(28, dynamic_weight)});
        return f;
    }();
    return fields;
}

NF_DEFINE_LAYER(Deconvolution)

}  // namespace nnfold
