// ConvolutionDepthWise: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/conv_common.h"
#include "layers/fused_activation.h"
#include "layers/layer.h"

namespace nnfold {

class ConvolutionDepthWise : public Layer {
public:
    ConvolutionDepthWise() { one_blob_only = true; }

    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;
    Status load_model(const std::vector<WeightArray>& weights) override;
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    using Layer::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override;

    int num_output = 0;
    int kernel_w = 0, kernel_h = 0;
    int dilation_w = 1, dilation_h = 1;
    int stride_w = 1, stride_h = 1;
    int pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
    float pad_value = 0.f;
    int bias_term = 0;
    int weight_data_size = 0;
    int group = 1;
    int int8_scale_term = 0;
    int dynamic_weight = 0;
    FusedActivation activation;

    // ncnn layout: [group][num_output/group][num_input/group][kernel_h][kernel_w]; for a true
    // depthwise layer (group == channels == num_output) that is [channels][kernel_h][kernel_w].
    std::vector<float> weight_data;
    std::vector<float> bias_data;

    // Input channels the weights expect (all groups).
    int num_input() const { return weight_data_size / (kernel_w * kernel_h) / (num_output / group); }

protected:
    Status output_shape(const Shape& in, Shape& out, ConvGeometry* geometry = nullptr) const;
};

}  // namespace nnfold
