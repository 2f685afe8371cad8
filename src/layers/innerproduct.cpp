// InnerProduct (ncnn src/layer/innerproduct.cpp). Params: 0 num_output, 1 bias_term,
// 2 weight_data_size, 8 int8_scale_term, 9 activation_type, 10 activation_params.
// Weights: weight_data [num_output][num_input] (tagged), bias_data [num_output] (raw), then with
// int8_scale_term: weight_data_int8_scales [num_output], bottom_blob_int8_scales [1].
// Inputs: 2D [h, num_input] with h > 1 -> [h, num_output] (one product per row); anything else
// (1D, 2D with one row or another width, 3D [c,h,w]) is flattened in c,h,w order and must hold
// num_input values -> [num_output]. ncnn ignores d for a 4D input, so 4D is rejected.
#include "layers/innerproduct.h"

#include "layers/conv_common.h"

namespace nnfold {

Status InnerProduct::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    NF_RETURN_IF_ERROR(load_activation(pd));
    NF_RETURN_IF_ERROR(check_num_output());
    if (weight_data_size <= 0 || weight_data_size % num_output != 0)
        return invalid_model("weight_data_size (param 2) " + std::to_string(weight_data_size) +
                             " must be a positive multiple of num_output " + std::to_string(num_output));
    return Status::ok();
}

Status InnerProduct::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    weight_bias_specs(specs, num_input());
    if (int8_scale_term) {
        specs.push_back({"weight_data_int8_scales", (uint64_t)num_output, false, WeightRole::Gamma, 1});
        specs.push_back({"bottom_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
    }
    return Status::ok();
}

Status InnerProduct::output_shape(const Shape& in, Shape& out) const {
    if (in.dims < 1 || in.dims > 3)
        return shape_mismatch("InnerProduct needs a 1D, 2D or 3D input, got " + in.str());
    if (rowwise(in)) {
        out = Shape::d2(num_output, in.h);
        return Status::ok();
    }
    if (in.total() != (uint64_t)num_input())
        return shape_mismatch("input " + in.str() + " has " + std::to_string(in.total()) + " values, the weights expect " +
                              std::to_string(num_input()) + (in.dims == 2 ? " (or rows of " + std::to_string(num_input()) + ")" : std::string()));
    out = Shape::d1(num_output);
    return Status::ok();
}

Status InnerProduct::forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os));
    NF_RETURN_IF_ERROR(check_weights_loaded());
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int n = num_input();
    const int rows = os.dims == 2 ? os.h : 1;
    for (int r = 0; r < rows; r++) {
        const float* x = bottom.data + (size_t)r * n;
        float* y = top.data + (size_t)r * num_output;
        for (int p = 0; p < num_output; p++) {
            const float* wp = weight_data.data() + (size_t)p * n;
            float sum = bias_term ? bias_data[p] : 0.f;
            for (int i = 0; i < n; i++)
                sum += x[i] * wp[i];
            y[p] = activation.apply(sum);
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(InnerProduct)  // load_activation

}  // namespace nnfold
