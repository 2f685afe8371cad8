// InnerProduct: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/int8_layers.h"

namespace nnfold {

class InnerProduct : public Int8WeightedLayer<WeightedLayer> {
public:
    NF_PARAM_TABLE(InnerProduct,
                   NF_PARAM(0, num_output),
                   NF_PARAM(1, bias_term),
                   NF_PARAM(2, weight_data_size),
                   NF_PARAM(8, int8_scale_term),
                   {9, "activation_type", ParamType::Int, pint(0)},       // load_activation
                   {10, "activation_params", ParamType::FloatArray, 0})
    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;

    // weight_data layout (ncnn): [num_output][num_input]

    int num_input() const { return weight_data_size / num_output; }
    // ncnn's row-wise form: a 2D [h,w] input with w == num_input and h > 1 gives [h, num_output];
    // every other input is flattened (its element count must be num_input) and gives [num_output].
    bool rowwise(const Shape& in) const { return in.dims == 2 && in.w == num_input() && in.h > 1; }

protected:
    Status load_int8(const std::vector<WeightArray>& weights) override;  // src/layers/int8_forward.cpp
    Status pack_int8() override;
    Status forward_int8(const Mat& bottom, Mat& top, const Option& opt) const override;
    Status forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const override;
    Status output_shape(const Shape& in, Shape& out) const;
    Status out_shape(const Shape& in, Shape& out) const override { return output_shape(in, out); }
};

}  // namespace nnfold
