#include "layers/weighted_layer.h"

#include <string>

namespace nnfold {

Status WeightedLayer::load_model(const std::vector<WeightArray>& w) {
    if (dynamic_weight)
        return unsupported(type + " with dynamic_weight=1 (weights from an input blob) cannot be run by nnfold");
    NF_RETURN_IF_ERROR(check_runnable_int8(int8_scale_term, type.c_str()));
    if (w.size() < (bias_term ? 2u : 1u))
        return internal_error(type + ": missing weight arrays");
    if (w[0].storage == WeightStorage::Int8)
        return unsupported("int8-quantized " + type + " weights cannot be run by nnfold (fp32 compute only)");
    weight_data = w[0].data;
    if (bias_term)
        bias_data = w[1].data;
    return Status::ok();
}

void WeightedLayer::weight_bias_specs(std::vector<WeightSpec>& specs, int64_t fan_in) const {
    specs.push_back({"weight_data", (uint64_t)weight_data_size, true, WeightRole::Weight, fan_in});
    if (bias_term)
        specs.push_back({"bias_data", (uint64_t)num_output, false, WeightRole::Bias, 1});
}

Status WeightedLayer::check_num_output() const {
    if (num_output <= 0)
        return invalid_model("num_output (param 0) must be positive, got " + std::to_string(num_output));
    return Status::ok();
}

Status WeightedLayer::check_weight_data_size(int weight_size_id) const {
    if (weight_data_size <= 0)
        return invalid_model("weight_data_size (param " + std::to_string(weight_size_id) + ") must be positive, got " +
                             std::to_string(weight_data_size));
    return Status::ok();
}

const std::vector<ParamField<ConvWindowLayer>>& conv_window_fields() {
    using Self = ConvWindowLayer;
    static const std::vector<ParamField<Self>> fields = {
        NF_PARAM(0, num_output),
        NF_PARAM(1, kernel_w),
        NF_PARAM(2, dilation_w),
        NF_PARAM(3, stride_w),
        NF_PARAM(4, pad_left),
        NF_PARAM(5, bias_term),
        NF_PARAM(6, weight_data_size),
        {9, "activation_type", ParamType::Int, pint(0)},       // load_activation
        {10, "activation_params", ParamType::FloatArray, 0},  // load_activation
        NF_PARAM_FROM(11, kernel_h, 1),
        NF_PARAM_FROM(12, dilation_h, 2),
        NF_PARAM_FROM(13, stride_h, 3),
        NF_PARAM_FROM(14, pad_top, 4),
        NF_PARAM_FROM(15, pad_right, 4),
        NF_PARAM_FROM(16, pad_bottom, 14),
    };
    return fields;
}

Status ConvWindowLayer::check_group_window(int group) const {
    NF_RETURN_IF_ERROR(check_num_output());
    if (group <= 0)
        return invalid_model("group (param 7) must be positive, got " + std::to_string(group));
    if (num_output % group != 0)
        return invalid_model("num_output " + std::to_string(num_output) + " is not a multiple of group " +
                             std::to_string(group));
    return check_window(kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h);
}

Status ConvWindowLayer::conv_window_output(const Shape& in, int num_input, const std::string& detail, Shape& out,
                                           ConvGeometry* geometry) const {
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, type.c_str(), p));
    if (p.c != num_input)
        return shape_mismatch("input " + in.str() + " has " + std::to_string(p.c) + " channel(s), the weights expect " +
                              std::to_string(num_input) + " (weight_data_size " + std::to_string(weight_data_size) +
                              detail);
    ConvGeometry g;
    NF_RETURN_IF_ERROR(conv_geometry(p.w, p.h, kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h,
                                     pad_left, pad_right, pad_top, pad_bottom, g));
    out = Shape::d3(g.out_w, g.out_h, num_output);
    if (geometry)
        *geometry = g;
    return Status::ok();
}

Status ConvWindowLayer::forward_direct(const Mat& bottom, const ConvGeometry& g, float pad_value, int group, Mat& top,
                                       const Option& opt) const {
    Mat src = bottom;
    if (g.pads.any())
        NF_RETURN_IF_ERROR(make_border(bottom, src, g.pads, pad_value, opt.workspace_allocator));
    const int w = g.padded_w;
    const size_t plane = (size_t)g.padded_w * g.padded_h;
    const int maxk = kernel_w * kernel_h;
    const std::vector<int> ofs = kernel_offsets(kernel_w, kernel_h, dilation_w, dilation_h, w);
    const int outch_g = num_output / group;
    const int inch_g = (int)(weight_data_size / ((int64_t)maxk * num_output));  // input channels per group

    for (int oc = 0; oc < num_output; oc++) {
        const int gi = oc / outch_g;
        float* out = top.channel(oc);
        const float* kbase = weight_data.data() + (size_t)oc * inch_g * maxk;
        for (int i = 0; i < g.out_h; i++) {
            for (int j = 0; j < g.out_w; j++) {
                float sum = bias_term ? bias_data[oc] : 0.f;
                const float* kp = kbase;
                for (int q = 0; q < inch_g; q++) {
                    const float* sp =
                        src.data + (size_t)(gi * inch_g + q) * plane + (size_t)i * stride_h * w + (size_t)j * stride_w;
                    for (int k = 0; k < maxk; k++)
                        sum += sp[ofs[k]] * kp[k];
                    kp += maxk;
                }
                out[j] = activation.apply(sum);
            }
            out += g.out_w;
        }
        if (opt.cancel && *opt.cancel)
            return Status(ErrorCode::Cancelled, "cancelled");
    }
    return Status::ok();
}

Status ConvWindowLayer::check_grouped_weight_size(int group, bool name_group) const {
    NF_RETURN_IF_ERROR(check_weight_data_size(6));
    int64_t per_inch = (int64_t)kernel_w * kernel_h * (num_output / group);
    if (weight_data_size % per_inch != 0 || (weight_data_size / per_inch) % group != 0)
        return invalid_model("weight_data_size " + std::to_string(weight_data_size) + " is not input channels x " +
                             std::to_string(num_output / group) + " outputs per group x " + std::to_string(kernel_h) +
                             "x" + std::to_string(kernel_w) +
                             (name_group ? " with input channels a multiple of group " + std::to_string(group) : ""));
    return Status::ok();
}

}  // namespace nnfold
