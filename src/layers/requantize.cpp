// Requantize (ncnn src/layer/requantize.cpp, x86/requantize_x86.cpp): int32 sums -> int8 codes,
// v = x * scale_in + bias; v = activation(v); code = float2int8(v * scale_out).
// Params 0 scale_in_data_size (1), 1 scale_out_data_size (1), 2 bias_data_size (0),
// 3 activation_type (0), 4 activation_params (array; ncnn's fused activations 0..6, the formulas of
// layers/fused_activation.h). Weights, raw fp32 in this order: scale_in_data, scale_out_data,
// bias_data (when bias_data_size > 0). With a bias the x86 build computes fma(x, scale_in, bias)
// (_mm_comp_fmadd_ps on the oracle's FMA CPU), as here; without, x * scale_in. The input is an
// fp32 tensor of int32 values (layers/quantize_common.h); the output an int8 blob.
#include "kernels/int8.h"
#include "layers/fused_activation.h"
#include "layers/one_input_layer.h"
#include "layers/quantize_common.h"

namespace nnfold {

class Requantize : public OneInputLayer {
public:
    int scale_in_data_size = 1, scale_out_data_size = 1, bias_data_size = 0;
    FusedActivation activation;
    std::vector<float> scale_in_data, scale_out_data, bias_data;

    Status load_param(const ParamDict& pd) override {
        scale_in_data_size = pd.get_int(0, 1);
        scale_out_data_size = pd.get_int(1, 1);
        bias_data_size = pd.get_int(2, 0);
        NF_RETURN_IF_ERROR(check_quant_size(type, "scale_in_data_size", 0, scale_in_data_size, 1));
        NF_RETURN_IF_ERROR(check_quant_size(type, "scale_out_data_size", 1, scale_out_data_size, 1));
        NF_RETURN_IF_ERROR(check_quant_size(type, "bias_data_size", 2, bias_data_size, 0));
        const Status st = activation.set(pd.get_int(3, 0), pd.get_floats(4));
        if (!st)
            return st.with_context(type);
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs = {{"scale_in_data", (uint64_t)scale_in_data_size, false, WeightRole::Gamma, 1},
                 {"scale_out_data", (uint64_t)scale_out_data_size, false, WeightRole::Gamma, 1}};
        if (bias_data_size)
            specs.push_back({"bias_data", (uint64_t)bias_data_size, false, WeightRole::Bias, 1});
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        NF_RETURN_IF_ERROR(
            load_quant_array(type, w, 0, "scale_in_data", (size_t)scale_in_data_size, true, scale_in_data));
        NF_RETURN_IF_ERROR(
            load_quant_array(type, w, 1, "scale_out_data", (size_t)scale_out_data_size, true, scale_out_data));
        if (bias_data_size)
            return load_quant_array(type, w, 2, "bias_data", (size_t)bias_data_size, false, bias_data);
        bias_data.clear();
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        Shape s;
        NF_RETURN_IF_ERROR(out_shape(bottom.shape(), s));
        if (bottom.elempack != 1)
            return internal_error("Requantize needs an unpacked input");
        if (scale_in_data.size() != (size_t)scale_in_data_size || scale_out_data.size() != (size_t)scale_out_data_size)
            return internal_error("Requantize: weights not loaded");
        NF_RETURN_IF_ERROR(top.create_int8(s, opt.blob_allocator));
        const ChannelSlices cs = s.dims == 1 ? ChannelSlices{1, (size_t)s.w} : channel_slices(s);
        for (size_t q = 0; q < cs.count; q++) {
            const float scale_in = quant_at(scale_in_data, q), scale_out = quant_at(scale_out_data, q);
            const float bias = quant_at(bias_data, q);
            const float* x = bottom.data + q * cs.size;
            int8_t* y = top.int8_data() + q * cs.size;
            for (size_t i = 0; i < cs.size; i++) {
                float v = bias_data.empty() ? x[i] * scale_in : std::fma(x[i], scale_in, bias);
                v = activation.apply(v);
                y[i] = kernels::float2int8(v * scale_out);
            }
        }
        return Status::ok();
    }
    using Layer::forward;

protected:
    Status out_shape(const Shape& in, Shape& out) const override {
        NF_RETURN_IF_ERROR(check_quant_array(in, type, "scale_in_data", scale_in_data_size));
        NF_RETURN_IF_ERROR(check_quant_array(in, type, "scale_out_data", scale_out_data_size));
        if (bias_data_size)
            NF_RETURN_IF_ERROR(check_quant_array(in, type, "bias_data", bias_data_size));
        out = in;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Requantize,
                {0, "scale_in_data_size", ParamType::Int, pint(1)},
                {1, "scale_out_data_size", ParamType::Int, pint(1)},
                {2, "bias_data_size", ParamType::Int, pint(0)},
                {3, "activation_type", ParamType::Int, pint(0)},
                {4, "activation_params", ParamType::FloatArray, 0})

}  // namespace nnfold
