// Quantize (ncnn src/layer/quantize.cpp, x86/quantize_x86.cpp): fp32 -> int8 codes,
// code = float2int8(x * scale) (round half away from zero, clamp to [-127, 127]). Param 0
// scale_data_size (1); weights: scale_data [scale_data_size] raw fp32 (layers/quantize_common.h
// says how a scale applies per slice). The output is an int8 blob (one byte a value), which only
// int8 layers take (layers/int8_layers.h). SIMD kernel and threads: kernels/int8_quant.h.
#include "kernels/int8_quant.h"
#include "layers/param_table.h"
#include "layers/quantize_common.h"

namespace nnfold {

class Quantize : public QuantLayer<Quantize> {
public:
    int scale_data_size = 1;
    std::vector<float> scale_data;

    NF_PARAM_TABLE(Quantize, NF_PARAM(0, scale_data_size))
    static const std::vector<QuantArray<Quantize>>& quant_arrays() {
        static const std::vector<QuantArray<Quantize>> a = {
            {"scale_data", 0, &Quantize::scale_data_size, true, &Quantize::scale_data}};
        return a;
    }

    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        ChannelSlices cs;
        NF_RETURN_IF_ERROR(forward_start(bottom, top, true, opt, cs));
        for_slice_ranges(cs, 4, [&](size_t q, size_t at, size_t n) {
            kernels::i8_quantize(bottom.data + at, n, quant_at(scale_data, q), top.int8_data() + at);
        });
        return Status::ok();
    }
    using Layer::forward;
};

NF_DEFINE_LAYER(Quantize)

}  // namespace nnfold
