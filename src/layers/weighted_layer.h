// The members and steps shared by the layers that hold a weight array and an optional bias:
// InnerProduct and the convolution family (Convolution, ConvolutionDepthWise, Deconvolution,
// DeconvolutionDepthWise). ncnn gives each its own copy of these; nnfold keeps one, so the
// param ids, the .bin array order and the load checks cannot drift apart between the types.
// Member names are ncnn's, public, as passes and optimized subclasses read them.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/conv_common.h"
#include "layers/fused_activation.h"
#include "layers/one_input_layer.h"
#include "layers/param_table.h"

namespace nnfold {

// One input, one output of out_shape's shape (OneInputLayer).
class WeightedLayer : public OneInputLayer {
public:
    // Takes fp32 weight_data (and bias_data with bias_term); refuses dynamic weights and int8
    // storage. Convolution, ConvolutionDepthWise and InnerProduct override it to load their int8
    // form when int8_scale_term != 0 (layers/int8_layers.h).
    Status load_model(const std::vector<WeightArray>& weights) override;

    int num_output = 0;
    int bias_term = 0;
    int weight_data_size = 0;
    int int8_scale_term = 0;  // Convolution, ConvolutionDepthWise, InnerProduct (ncnn's Deconvolution has none)
    int dynamic_weight = 0;   // the convolution family (InnerProduct has none)
    FusedActivation activation;

    std::vector<float> weight_data;
    std::vector<float> bias_data;

    // The weights load_model took are there to compute with (not dynamic, the declared size). The
    // optimized subclasses repack only then; otherwise the reference forward reports the problem.
    bool weights_ready() const { return !dynamic_weight && weight_data.size() == (size_t)weight_data_size; }

protected:
    // Params 9 activation_type and 10 activation_params, read here rather than by the param table
    // because FusedActivation::set validates them together.
    Status load_activation(const ParamDict& pd) { return activation.set(pd.get_int(9, 0), pd.get_floats(10)); }
    // weight_data (tagged, random-filled with `fan_in`) then bias_data [num_output] when bias_term:
    // the first arrays of every type's .bin record.
    void weight_bias_specs(std::vector<WeightSpec>& specs, int64_t fan_in) const;
    // num_output > 0; weight_data_size > 0.
    Status check_num_output() const;
    Status check_weight_data_size(int weight_size_id) const;
    // The reference forwards' guard: internal_error unless weight_data has weight_data_size values.
    Status check_weights_loaded() const {
        if (weight_data.size() != (size_t)weight_data_size)
            return internal_error(type + ": weights not loaded");
        return Status::ok();
    }
};

// The sliding-window members of the convolution family and their params (ids and defaults as in
// ncnn's load_param: 0 num_output, 1/11 kernel, 2/12 dilation, 3/13 stride, 4/15/14/16 pads,
// 5 bias_term, 6 weight_data_size, 9/10 activation): conv_window_fields() below, which each
// type's param table starts with.
class ConvWindowLayer : public WeightedLayer {
public:
    int kernel_w = 0, kernel_h = 0;
    int dilation_w = 1, dilation_h = 1;
    int stride_w = 1, stride_h = 1;
    int pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;

protected:
    // num_output and group positive, num_output a multiple of group, a valid window.
    Status check_group_window(int group) const;
    // weight_data_size is input channels x (num_output / group) x kernel area, with the input
    // channels a multiple of group (the grouped types; `name_group` adds it to the message).
    Status check_grouped_weight_size(int group, bool name_group) const;
    // The reference direct convolution (ncnn's naive loops) of `bottom` into `top` (created by the
    // caller, g's output size), weights [group][outch_g][inch_g][kernel_h][kernel_w]: per output
    // channel and pixel, bias + the sum over the group's input channels and taps in (channel, ki,
    // kj) order, then the activation. Convolution is group 1; ConvolutionDepthWise's depthwise
    // case is inch_g == outch_g == 1.
    // The output [num_output, out_h, out_w] of the convolution window for an input of
    // `num_input` channels (conv_input_planes' view; `detail` closes the channel-count message).
    Status conv_window_output(const Shape& in, int num_input, const std::string& detail, Shape& out,
                              ConvGeometry* geometry) const;
    Status forward_direct(const Mat& bottom, const ConvGeometry& g, float pad_value, int group, Mat& top,
                          const Option& opt) const;
};

// The params every convolution-family type starts its table with (ncnn's ids, names and order).
const std::vector<ParamField<ConvWindowLayer>>& conv_window_fields();

}  // namespace nnfold
