// Convolution (ncnn src/layer/convolution.cpp). Params (docs/developer-guide/operators.md):
//   0 num_output, 1 kernel_w, 11 kernel_h(=kernel_w), 2 dilation_w, 12 dilation_h(=dilation_w),
//   3 stride_w, 13 stride_h(=stride_w), 4 pad_left, 15 pad_right(=pad_left), 14 pad_top(=pad_left),
//   16 pad_bottom(=pad_top), 18 pad_value, 5 bias_term, 6 weight_data_size, 8 int8_scale_term,
//   9 activation_type, 10 activation_params, 19 dynamic_weight.
// Weights: weight_data [num_output][num_input][kernel_h][kernel_w] (tagged), bias_data [num_output]
// (raw), then with int8_scale_term: weight_data_int8_scales [num_output], bottom_blob_int8_scales [1],
// and top_blob_int8_scales [1] when int8_scale_term > 100.
// Input: [c,h,w]; a 2D [h,w] or 1D [w] blob is one channel (ncnn reads c as 1). A 1D input of
// num_input values with a 1x1 kernel is computed as InnerProduct (ncnn does the same), giving a 1D
// output: this is what follows a global pooling.
// dynamic_weight=1 (weights from a second input blob) is read and written but not run.
#include "layers/convolution.h"

namespace nnfold {

Status Convolution::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    NF_RETURN_IF_ERROR(load_activation(pd));

    // ncnn: with dynamic_weight the weights (and bias) come as extra input blobs
    one_blob_only = dynamic_weight == 0;

    NF_RETURN_IF_ERROR(check_group_window(1));
    NF_RETURN_IF_ERROR(check_conv_pads(pad_left, pad_right, pad_top, pad_bottom));
    if (dynamic_weight)
        return Status::ok();
    NF_RETURN_IF_ERROR(check_weight_data_size(6));
    int64_t per_out = (int64_t)kernel_w * kernel_h;
    if (weight_data_size % num_output != 0 || (weight_data_size / num_output) % per_out != 0)
        return invalid_model("weight_data_size " + std::to_string(weight_data_size) + " is not num_output " +
                             std::to_string(num_output) + " x input channels x " + std::to_string(kernel_h) + "x" +
                             std::to_string(kernel_w));
    return Status::ok();
}

Status Convolution::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    if (dynamic_weight)
        return Status::ok();  // ncnn load_model reads nothing
    weight_bias_specs(specs, weight_data_size / num_output);
    if (int8_scale_term) {
        specs.push_back({"weight_data_int8_scales", (uint64_t)num_output, false, WeightRole::Gamma, 1});
        specs.push_back({"bottom_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
        if (int8_scale_term > 100)
            specs.push_back({"top_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
    }
    return Status::ok();
}

Status Convolution::output_shape(const Shape& in, Shape& out, ConvGeometry* geometry) const {
    if (dynamic_weight)
        return unsupported("Convolution with dynamic_weight=1 (weights from an input blob) is not supported");
    if (innerproduct_path(in)) {
        out = Shape::d1(num_output);
        return Status::ok();
    }
    const bool one_by_one_1d = in.dims == 1 && kernel_w == 1 && kernel_h == 1;
    const char* hint = one_by_one_1d ? "; a 1D input with a 1x1 kernel must have num_input values" : "";
    return conv_window_output(in, num_input(), std::string(")") + hint, out, geometry);
}

Status Convolution::forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape in = bottom.shape();
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(in, os, &g));
    NF_RETURN_IF_ERROR(check_weights_loaded());
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int inch = num_input();

    if (os.dims == 1) {  // InnerProduct form (ncnn forwards to an InnerProduct layer)
        for (int p = 0; p < num_output; p++) {
            float sum = bias_term ? bias_data[p] : 0.f;
            const float* wp = weight_data.data() + (size_t)p * inch;
            for (int i = 0; i < inch; i++)
                sum += bottom.data[i] * wp[i];
            top.data[p] = activation.apply(sum);
        }
        return Status::ok();
    }
    return forward_direct(bottom, g, pad_value, 1, top, opt);
}

NF_DEFINE_LAYER(Convolution)

}  // namespace nnfold
