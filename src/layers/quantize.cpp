// Quantize (ncnn src/layer/quantize.cpp, x86/quantize_x86.cpp): fp32 -> int8 codes,
// code = float2int8(x * scale) (round half away from zero, clamp to [-127, 127]). Param 0
// scale_data_size (1); weights: scale_data [scale_data_size] raw fp32 (layers/quantize_common.h
// says how a scale applies per slice). The output is an int8 blob (one byte a value), which only
// int8 layers take (layers/int8_layers.h).
#include "kernels/int8.h"
#include "layers/one_input_layer.h"
#include "layers/quantize_common.h"

namespace nnfold {

class Quantize : public OneInputLayer {
public:
    int scale_data_size = 1;
    std::vector<float> scale_data;

    Status load_param(const ParamDict& pd) override {
        scale_data_size = pd.get_int(0, 1);
        return check_quant_size(type, "scale_data_size", 0, scale_data_size, 1);
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs = {{"scale_data", (uint64_t)scale_data_size, false, WeightRole::Gamma, 1}};
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        return load_quant_array(type, w, 0, "scale_data", (size_t)scale_data_size, true, scale_data);
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        Shape s;
        NF_RETURN_IF_ERROR(out_shape(bottom.shape(), s));
        if (bottom.elempack != 1)
            return internal_error("Quantize needs an unpacked input");
        if (scale_data.size() != (size_t)scale_data_size)
            return internal_error("Quantize: weights not loaded");
        NF_RETURN_IF_ERROR(top.create_int8(s, opt.blob_allocator));
        const ChannelSlices cs = s.dims == 1 ? ChannelSlices{1, (size_t)s.w} : channel_slices(s);
        for (size_t q = 0; q < cs.count; q++)
            kernels::i8_quantize(bottom.data + q * cs.size, cs.size, quant_at(scale_data, q),
                                 top.int8_data() + q * cs.size);
        return Status::ok();
    }
    using Layer::forward;

protected:
    Status out_shape(const Shape& in, Shape& out) const override {
        NF_RETURN_IF_ERROR(check_quant_array(in, type, "scale_data", scale_data_size));
        out = in;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Quantize, {0, "scale_data_size", ParamType::Int, pint(1)})

}  // namespace nnfold
