// ConvolutionDepthWise (ncnn src/layer/convolutiondepthwise.cpp): grouped convolution. Params as
// Convolution plus 7 group (default 1); ncnn rejects num_output % group != 0 in load_param.
// Weights: weight_data [group][num_output/group][num_input/group][kernel_h][kernel_w] (tagged),
// bias_data [num_output] (raw); with int8_scale_term 1/101: weight_data_int8_scales [group] and
// bottom_blob_int8_scales [1]; with 2/102: one weight scale [1] and bottom_blob_int8_scales [1];
// with > 100 also top_blob_int8_scales [1].
// group == channels == num_output is the depthwise case (one kernel per channel); otherwise each
// group convolves channels/group inputs into num_output/group outputs.
#include "layers/convolutiondepthwise.h"

namespace nnfold {

Status ConvolutionDepthWise::load_param(const ParamDict& pd) {
    pad_value = pd.get_float(18, 0.f);
    group = pd.get_int(7, 1);
    int8_scale_term = pd.get_int(8, 0);
    dynamic_weight = pd.get_int(19, 0);
    NF_RETURN_IF_ERROR(load_window_params(pd));
    one_blob_only = dynamic_weight == 0;

    NF_RETURN_IF_ERROR(check_group_window(group));
    NF_RETURN_IF_ERROR(check_conv_pads(pad_left, pad_right, pad_top, pad_bottom));
    if (dynamic_weight)
        return Status::ok();
    return check_grouped_weight_size(group, true);
}

Status ConvolutionDepthWise::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    if (dynamic_weight)
        return Status::ok();
    weight_bias_specs(specs, (int64_t)weight_data_size / num_output);  // (num_input / group) * kernel area
    if (int8_scale_term == 1 || int8_scale_term == 101) {
        specs.push_back({"weight_data_int8_scales", (uint64_t)group, false, WeightRole::Gamma, 1});
        specs.push_back({"bottom_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
    } else if (int8_scale_term == 2 || int8_scale_term == 102) {
        specs.push_back({"weight_data_int8_scales", 1, false, WeightRole::Gamma, 1});
        specs.push_back({"bottom_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
    }
    if (int8_scale_term > 100)
        specs.push_back({"top_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
    return Status::ok();
}

Status ConvolutionDepthWise::output_shape(const Shape& in, Shape& out, ConvGeometry* geometry) const {
    if (dynamic_weight)
        return unsupported("ConvolutionDepthWise with dynamic_weight=1 (weights from an input blob) is not supported");
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, "ConvolutionDepthWise", p));
    if (p.c != num_input())
        return shape_mismatch("input " + in.str() + " has " + std::to_string(p.c) + " channel(s), the weights expect " +
                              std::to_string(num_input()) + " (weight_data_size " + std::to_string(weight_data_size) +
                              ", group " + std::to_string(group) + ")");
    ConvGeometry g;
    NF_RETURN_IF_ERROR(conv_geometry(p.w, p.h, kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h,
                                     pad_left, pad_right, pad_top, pad_bottom, g));
    out = Shape::d3(g.out_w, g.out_h, num_output);
    if (geometry)
        *geometry = g;
    return Status::ok();
}

Status ConvolutionDepthWise::forward(const Mat& bottom, Mat& top, const Option& opt) const {
    if (int8_scale_term)
        return forward_int8(bottom, top, opt);  // src/layers/int8_forward.cpp
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    if (weight_data.size() != (size_t)weight_data_size)
        return internal_error("ConvolutionDepthWise: weights not loaded");
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));

    Mat src = bottom;
    if (g.pads.any())
        NF_RETURN_IF_ERROR(make_border(bottom, src, g.pads, pad_value, opt.workspace_allocator));
    const int w = g.padded_w;
    const size_t plane = (size_t)g.padded_w * g.padded_h;
    const int maxk = kernel_w * kernel_h;
    const std::vector<int> ofs = kernel_offsets(kernel_w, kernel_h, dilation_w, dilation_h, w);
    const int inch_g = num_input() / group;
    const int outch_g = num_output / group;

    // One loop covers both ncnn branches: the depthwise case is inch_g == outch_g == 1.
    for (int gi = 0; gi < group; gi++) {
        for (int p = 0; p < outch_g; p++) {
            const int oc = gi * outch_g + p;
            float* out = top.channel(oc);
            const float* kbase = weight_data.data() + ((size_t)gi * outch_g + p) * inch_g * maxk;
            for (int i = 0; i < g.out_h; i++) {
                for (int j = 0; j < g.out_w; j++) {
                    float sum = bias_term ? bias_data[oc] : 0.f;
                    const float* kp = kbase;
                    for (int q = 0; q < inch_g; q++) {
                        const float* sp = src.data + (size_t)(gi * inch_g + q) * plane + (size_t)i * stride_h * w +
                                          (size_t)j * stride_w;
                        for (int k = 0; k < maxk; k++)
                            sum += sp[ofs[k]] * kp[k];
                        kp += maxk;
                    }
                    out[j] = activation.apply(sum);
                }
                out += g.out_w;
            }
        }
        if (opt.cancel && *opt.cancel)
            return Status(ErrorCode::Cancelled, "cancelled");
    }
    return Status::ok();
}

NF_DEFINE_LAYER(ConvolutionDepthWise,
                NF_CONV_WINDOW_PARAM_SPECS,
                {7, "group", ParamType::Int, pint(1)},
                {8, "int8_scale_term", ParamType::Int, pint(0)},
                {18, "pad_value", ParamType::Float, pfloat(0.f)},
                {19, "dynamic_weight", ParamType::Int, pint(0)})

}  // namespace nnfold
