// InnerProduct: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/fused_activation.h"
#include "layers/layer.h"

namespace nnfold {

class InnerProduct : public Layer {
public:
    InnerProduct() { one_blob_only = true; }

    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;
    Status load_model(const std::vector<WeightArray>& weights) override;
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    using Layer::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override;

    int num_output = 0;
    int bias_term = 0;
    int weight_data_size = 0;
    int int8_scale_term = 0;
    FusedActivation activation;

    // ncnn layout: [num_output][num_input]
    std::vector<float> weight_data;
    std::vector<float> bias_data;

    int num_input() const { return weight_data_size / num_output; }
    // ncnn's row-wise form: a 2D [h,w] input with w == num_input and h > 1 gives [h, num_output];
    // every other input is flattened (its element count must be num_input) and gives [num_output].
    bool rowwise(const Shape& in) const { return in.dims == 2 && in.w == num_input() && in.h > 1; }

protected:
    Status output_shape(const Shape& in, Shape& out) const;
};

}  // namespace nnfold
