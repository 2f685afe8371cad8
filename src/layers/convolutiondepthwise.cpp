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
    param_table().read(pd, *this);
    NF_RETURN_IF_ERROR(load_activation(pd));
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
    return conv_window_output(in, num_input(), ", group " + std::to_string(group) + ")", out, geometry);
}

Status ConvolutionDepthWise::forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    NF_RETURN_IF_ERROR(check_weights_loaded());
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    // One loop covers both ncnn branches: the depthwise case is inch_g == outch_g == 1.
    return forward_direct(bottom, g, pad_value, group, top, opt);
}

NF_DEFINE_LAYER(ConvolutionDepthWise)

}  // namespace nnfold
