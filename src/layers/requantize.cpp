// Requantize (ncnn src/layer/requantize.cpp, x86/requantize_x86.cpp): int32 sums -> int8 codes,
// v = x * scale_in + bias; v = activation(v); code = float2int8(v * scale_out).
// Params 0 scale_in_data_size (1), 1 scale_out_data_size (1), 2 bias_data_size (0),
// 3 activation_type (0), 4 activation_params (array; ncnn's fused activations 0..6, the formulas of
// layers/fused_activation.h). Weights, raw fp32 in this order: scale_in_data, scale_out_data,
// bias_data (when bias_data_size > 0). With a bias the x86 build computes fma(x, scale_in, bias)
// (_mm_comp_fmadd_ps on the oracle's FMA CPU), as here; without, x * scale_in. The input is an
// fp32 tensor of int32 values (layers/quantize_common.h); the output an int8 blob.
#include "kernels/int8.h"
#include "kernels/int8_quant.h"
#include "layers/fused_activation.h"
#include "layers/param_table.h"
#include "layers/quantize_common.h"

namespace nnfold {

class Requantize : public QuantLayer<Requantize> {
public:
    int scale_in_data_size = 1, scale_out_data_size = 1, bias_data_size = 0;
    FusedActivation activation;
    std::vector<float> scale_in_data, scale_out_data, bias_data;

    NF_PARAM_TABLE(Requantize,
                   NF_PARAM(0, scale_in_data_size),
                   NF_PARAM(1, scale_out_data_size),
                   NF_PARAM(2, bias_data_size),
                   {3, "activation_type", ParamType::Int, pint(0)},  // read with 4 by FusedActivation::set
                   {4, "activation_params", ParamType::FloatArray, 0})
    static const std::vector<QuantArray<Requantize>>& quant_arrays() {
        static const std::vector<QuantArray<Requantize>> a = {
            {"scale_in_data", 0, &Requantize::scale_in_data_size, true, &Requantize::scale_in_data},
            {"scale_out_data", 1, &Requantize::scale_out_data_size, true, &Requantize::scale_out_data},
            {"bias_data", 2, &Requantize::bias_data_size, false, &Requantize::bias_data}};
        return a;
    }

    Status load_param(const ParamDict& pd) override {
        NF_RETURN_IF_ERROR(QuantLayer::load_param(pd));
        const Status st = activation.set(pd.get_int(3, 0), pd.get_floats(4));
        if (!st)
            return st.with_context(type);
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        ChannelSlices cs;
        NF_RETURN_IF_ERROR(forward_start(bottom, top, true, opt, cs));
        // activations 0..3 in the kernel (kernels/int8_quant.h); sigmoid, mish and hardswish with
        // FusedActivation's formulas here
        const bool fast = activation.type >= 0 && activation.type <= 3;
        const kernels::ActParams act = kernels::make_act(activation.type, activation.p0, activation.p1);
        for_slice_ranges(cs, fast ? 6 : 40, [&](size_t q, size_t at, size_t n) {
            const float scale_in = quant_at(scale_in_data, q), scale_out = quant_at(scale_out_data, q);
            const float bias = quant_at(bias_data, q);
            const float* x = bottom.data + at;
            int8_t* y = top.int8_data() + at;
            if (fast) {
                kernels::i8_requantize(x, n, scale_in, bias_data.empty() ? nullptr : &bias, act, scale_out, y);
                return;
            }
            for (size_t i = 0; i < n; i++) {
                float v = bias_data.empty() ? x[i] * scale_in : std::fma(x[i], scale_in, bias);
                v = activation.apply(v);
                y[i] = kernels::float2int8(v * scale_out);
            }
        });
        return Status::ok();
    }
    using Layer::forward;
};

NF_DEFINE_LAYER(Requantize)

}  // namespace nnfold
