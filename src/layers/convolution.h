// Convolution: declared in a header because the SIMD version (src/layers/wasm/) subclasses it.
#pragma once

#include "layers/int8_layers.h"

namespace nnfold {

class Convolution : public Int8WeightedLayer<ConvWindowLayer> {
public:
    NF_PARAM_TABLE(Convolution,
                   conv_window_fields(),
                   {NF_PARAM(8, int8_scale_term),
                   NF_PARAM(18, pad_value),
                   NF_PARAM(19, dynamic_weight)})
    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;

    float pad_value = 0.f;
    // weight_data layout (ncnn): [num_output][num_input][kernel_h][kernel_w]

    // Input channels the weights expect.
    int num_input() const { return weight_data_size / num_output / (kernel_w * kernel_h); }
    // True when this input takes ncnn's "flattened blob as InnerProduct" path: a 1D input of
    // num_input values with a 1x1 kernel gives a 1D output of num_output values.
    bool innerproduct_path(const Shape& in) const {
        return in.dims == 1 && kernel_w == 1 && kernel_h == 1 && in.w == num_input();
    }

protected:
    Status load_int8(const std::vector<WeightArray>& weights) override;  // src/layers/int8_forward.cpp
    Status forward_int8(const Mat& bottom, Mat& top, const Option& opt) const override;
    Status pack_int8() override;
    Status forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const override;
    // Output shape, and for the spatial path the window geometry.
    Status output_shape(const Shape& in, Shape& out, ConvGeometry* geometry = nullptr) const;
    Status out_shape(const Shape& in, Shape& out) const override { return output_shape(in, out); }
};

}  // namespace nnfold
