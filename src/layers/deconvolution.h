// Deconvolution: declared in a header for SIMD subclasses and for DeconvolutionDepthWise
// (deconvolutiondepthwise.h), whose grouped form is the general one: Deconvolution is group 1, so
// both share this reference forward.
#pragma once

#include "layers/conv_common.h"
#include "layers/fused_activation.h"
#include "layers/layer.h"

namespace nnfold {

class Deconvolution : public Layer {
public:
    Deconvolution() { one_blob_only = true; }

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
    int output_pad_right = 0, output_pad_bottom = 0;
    int output_w = 0, output_h = 0;
    int bias_term = 0;
    int weight_data_size = 0;
    int group = 1;  // param 7 of DeconvolutionDepthWise; always 1 for Deconvolution
    int dynamic_weight = 0;
    FusedActivation activation;

    // ncnn layout: [group][num_output/group][num_input/group][kernel_h][kernel_w] (Deconvolution:
    // [num_output][num_input][kernel_h][kernel_w]). Tap (ki, kj) of input pixel (i, j) lands on
    // output pixel (i * stride_h + ki * dilation_h, j * stride_w + kj * dilation_w), no flip.
    std::vector<float> weight_data;
    std::vector<float> bias_data;

    int num_input() const { return weight_data_size / (kernel_w * kernel_h) / (num_output / group); }

protected:
    // Reads the params both types share; `grouped` reads param 7.
    Status load_common(const ParamDict& pd, bool grouped);
    Status output_shape(const Shape& in, Shape& out, DeconvGeometry* geometry = nullptr) const;
};

}  // namespace nnfold

// Param specs shared by Deconvolution and DeconvolutionDepthWise (which adds 7 group).
#define NF_DECONV_PARAM_SPECS                                              \
    NF_CONV_WINDOW_PARAM_SPECS,                                            \
        {18, "output_pad_right", ::nnfold::ParamType::Int, ::nnfold::pint(0)}, \
        {19, "output_pad_bottom", ::nnfold::ParamType::Int, 0, 18},        \
        {20, "output_w", ::nnfold::ParamType::Int, ::nnfold::pint(0)},     \
        {21, "output_h", ::nnfold::ParamType::Int, 0, 20},                 \
        {28, "dynamic_weight", ::nnfold::ParamType::Int, ::nnfold::pint(0)}
