// Deconvolution: declared in a header for SIMD subclasses and for DeconvolutionDepthWise
// (deconvolutiondepthwise.h), whose grouped form is the general one: Deconvolution is group 1, so
// both share this reference forward.
#pragma once

#include "layers/weighted_layer.h"

namespace nnfold {

class Deconvolution;
// The fields both types' tables hold: the window params, then 18-21 and 28 (DeconvolutionDepthWise
// adds 7 group).
const std::vector<ParamField<Deconvolution>>& deconv_fields();

class Deconvolution : public ConvWindowLayer {
public:
    NF_PARAM_TABLE(Deconvolution, deconv_fields())
    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;
    using Layer::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override;

    int output_pad_right = 0, output_pad_bottom = 0;
    int output_w = 0, output_h = 0;
    int group = 1;  // param 7 of DeconvolutionDepthWise; always 1 for Deconvolution
    // weight_data layout (ncnn): [group][num_output/group][num_input/group][kernel_h][kernel_w]
    // (Deconvolution: [num_output][num_input][kernel_h][kernel_w]). Tap (ki, kj) of input pixel
    // (i, j) lands on output pixel (i * stride_h + ki * dilation_h, j * stride_w + kj * dilation_w),
    // no flip.

    int num_input() const { return weight_data_size / (kernel_w * kernel_h) / (num_output / group); }

protected:
    // The load checks both types share, once their param table is read.
    Status finish_load(const ParamDict& pd);
    Status output_shape(const Shape& in, Shape& out, DeconvGeometry* geometry = nullptr) const;
    Status out_shape(const Shape& in, Shape& out) const override { return output_shape(in, out); }
};

}  // namespace nnfold
