// Dequantize (ncnn src/layer/dequantize.cpp, x86/dequantize_x86.cpp): int32 sums -> fp32,
// y = x * scale + bias. Params 0 scale_data_size (1), 1 bias_data_size (0); weights: scale_data,
// then bias_data when bias_data_size > 0, raw fp32 (layers/quantize_common.h: per-slice rule, and
// the int32 input carried as fp32 integers). With a bias, ncnn's x86 build (the oracle's, an FMA
// CPU) computes fma(x, scale, bias) (_mm_comp_fmadd_ps): one rounding, as here; without, x * scale.
#include "layers/one_input_layer.h"
#include "layers/quantize_common.h"

namespace nnfold {

class Dequantize : public OneInputLayer {
public:
    int scale_data_size = 1, bias_data_size = 0;
    std::vector<float> scale_data, bias_data;

    Status load_param(const ParamDict& pd) override {
        scale_data_size = pd.get_int(0, 1);
        bias_data_size = pd.get_int(1, 0);
        NF_RETURN_IF_ERROR(check_quant_size(type, "scale_data_size", 0, scale_data_size, 1));
        return check_quant_size(type, "bias_data_size", 1, bias_data_size, 0);
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs = {{"scale_data", (uint64_t)scale_data_size, false, WeightRole::Gamma, 1}};
        if (bias_data_size)
            specs.push_back({"bias_data", (uint64_t)bias_data_size, false, WeightRole::Bias, 1});
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        NF_RETURN_IF_ERROR(load_quant_array(type, w, 0, "scale_data", (size_t)scale_data_size, true, scale_data));
        if (bias_data_size)
            return load_quant_array(type, w, 1, "bias_data", (size_t)bias_data_size, false, bias_data);
        bias_data.clear();
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        Shape s;
        NF_RETURN_IF_ERROR(out_shape(bottom.shape(), s));
        if (bottom.elempack != 1)
            return internal_error("Dequantize needs an unpacked input");
        if (scale_data.size() != (size_t)scale_data_size)
            return internal_error("Dequantize: weights not loaded");
        NF_RETURN_IF_ERROR(top.create(s, opt.blob_allocator));
        const ChannelSlices cs = s.dims == 1 ? ChannelSlices{1, (size_t)s.w} : channel_slices(s);
        for (size_t q = 0; q < cs.count; q++) {
            const float scale = quant_at(scale_data, q), bias = quant_at(bias_data, q);
            const float* x = bottom.data + q * cs.size;
            float* y = top.data + q * cs.size;
            if (bias_data.empty())
                for (size_t i = 0; i < cs.size; i++)
                    y[i] = x[i] * scale;
            else
                for (size_t i = 0; i < cs.size; i++)
                    y[i] = std::fma(x[i], scale, bias);
        }
        return Status::ok();
    }
    using Layer::forward;

protected:
    Status out_shape(const Shape& in, Shape& out) const override {
        NF_RETURN_IF_ERROR(check_quant_array(in, type, "scale_data", scale_data_size));
        if (bias_data_size)
            NF_RETURN_IF_ERROR(check_quant_array(in, type, "bias_data", bias_data_size));
        out = in;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Dequantize,
                {0, "scale_data_size", ParamType::Int, pint(1)},
                {1, "bias_data_size", ParamType::Int, pint(0)})

}  // namespace nnfold
