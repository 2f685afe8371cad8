// Convolution: declared in a header because the SIMD version (src/layers/wasm/) subclasses it.
#pragma once

#include "layers/conv_common.h"
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

    // ncnn layout: [num_output][num_input][kernel_h][kernel_w]
    std::vector<float> weight_data;
    std::vector<float> bias_data;

    // Input channels the weights expect.
    int num_input() const { return weight_data_size / num_output / (kernel_w * kernel_h); }
    // True when this input takes ncnn's "flattened blob as InnerProduct" path: a 1D input of
    // num_input values with a 1x1 kernel gives a 1D output of num_output values.
    bool innerproduct_path(const Shape& in) const {
        return in.dims == 1 && kernel_w == 1 && kernel_h == 1 && in.w == num_input();
    }

protected:
    // Output shape, and for the spatial path the window geometry.
    Status output_shape(const Shape& in, Shape& out, ConvGeometry* geometry = nullptr) const;
};

}  // namespace nnfold
