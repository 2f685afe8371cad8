// ConvolutionDepthWise: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/int8_layers.h"

namespace nnfold {

class ConvolutionDepthWise : public Int8WeightedLayer<ConvWindowLayer> {
public:
    NF_PARAM_TABLE(ConvolutionDepthWise,
                   conv_window_fields(),
                   {NF_PARAM(7, group),
                   NF_PARAM(8, int8_scale_term),
                   NF_PARAM(18, pad_value),
                   NF_PARAM(19, dynamic_weight)})
    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;

    float pad_value = 0.f;
    int group = 1;
    // weight_data layout (ncnn): [group][num_output/group][num_input/group][kernel_h][kernel_w]; for
    // a true depthwise layer (group == channels == num_output) that is [channels][kernel_h][kernel_w].

    // Input channels the weights expect (all groups).
    int num_input() const { return weight_data_size / (kernel_w * kernel_h) / (num_output / group); }

protected:
    Status load_int8(const std::vector<WeightArray>& weights) override;  // src/layers/int8_forward.cpp
    Status forward_int8(const Mat& bottom, Mat& top, const Option& opt) const override;
    Status pack_int8() override;
    Status forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const override;
    Status output_shape(const Shape& in, Shape& out, ConvGeometry* geometry = nullptr) const;
    Status out_shape(const Shape& in, Shape& out) const override { return output_shape(in, out); }
};

}  // namespace nnfold
