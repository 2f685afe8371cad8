// Convolution: declared in a header because the SIMD version (src/layers/wasm/) subclasses it.
#pragma once

#include "layers/fused_activation.h"
#include "layers/layer.h"

namespace nnfold {

class Convolution : public Layer {
public:
    Convolution() { one_blob_only = true; }

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
    int int8_scale_term = 0;
    int dynamic_weight = 0;
    FusedActivation activation;

    std::vector<float> weight_data;
    std::vector<float> bias_data;

protected:
    Status output_shape(const Shape& in, Shape& out) const;
};

}  // namespace nnfold
