// Dequantize (ncnn src/layer/dequantize.cpp, x86/dequantize_x86.cpp): int32 sums -> fp32,
// y = x * scale + bias. Params 0 scale_data_size (1), 1 bias_data_size (0); weights: scale_data,
// then bias_data when bias_data_size > 0, raw fp32 (layers/quantize_common.h: per-slice rule, and
// the int32 input carried as fp32 integers). With a bias, ncnn's x86 build (the oracle's, an FMA
// CPU) computes fma(x, scale, bias) (_mm_comp_fmadd_ps): one rounding, as here; without, x * scale
// (kernels/int8_quant.h i8_dequantize, split across threads).
#include "kernels/int8_quant.h"
#include "layers/param_table.h"
#include "layers/quantize_common.h"

namespace nnfold {

class Dequantize : public QuantLayer<Dequantize> {
public:
    int scale_data_size = 1, bias_data_size = 0;
    std::vector<float> scale_data, bias_data;

    NF_PARAM_TABLE(Dequantize, NF_PARAM(0, scale_data_size), NF_PARAM(1, bias_data_size))
    static const std::vector<QuantArray<Dequantize>>& quant_arrays() {
        static const std::vector<QuantArray<Dequantize>> a = {
            {"scale_data", 0, &Dequantize::scale_data_size, true, &Dequantize::scale_data},
            {"bias_data", 1, &Dequantize::bias_data_size, false, &Dequantize::bias_data}};
        return a;
    }

    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        ChannelSlices cs;
        NF_RETURN_IF_ERROR(forward_start(bottom, top, false, opt, cs));
        for_slice_ranges(cs, 4, [&](size_t q, size_t at, size_t n) {
            const float bias = quant_at(bias_data, q);
            kernels::i8_dequantize(bottom.data + at, n, quant_at(scale_data, q), bias_data.empty() ? nullptr : &bias,
                                   top.data + at);
        });
        return Status::ok();
    }
    using Layer::forward;
};

NF_DEFINE_LAYER(Dequantize)

}  // namespace nnfold
