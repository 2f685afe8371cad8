// int8 inference for the layers ncnn2int8 quantizes: Convolution, ConvolutionDepthWise (grouped
// too) and InnerProduct with a non-zero int8_scale_term, computed as ncnn computes them
// (kernels/int8.h lists the steps; ncnn src/layer/convolution.cpp, convolutiondepthwise.cpp,
// innerproduct.cpp load_model and forward_int8).
//
// Scales (.bin, raw fp32, after weight_data and bias_data; layers/convolution.cpp etc. list them):
//   Convolution, InnerProduct: weight_data_int8_scales [num_output], bottom_blob_int8_scales [1];
//   ConvolutionDepthWise: weight scales [group] for int8_scale_term 1/101, [1] (used for every
//   group) for 2/102, then bottom_blob_int8_scales [1];
//   int8_scale_term > 100 (Convolution, ConvolutionDepthWise): also top_blob_int8_scales [1].
// weight_data is int8 (tag 0x000D4B38) as ncnn2int8 writes it; fp32 (or fp16, codebook) weights of
// an int8 layer are quantized at load, row by row with the row's weight scale, as ncnn's
// load_model does (quantize_to_int8: float2int8(w * scale)).
//
// How an int8 blob travels between layers in nnfold: as a Mat of int8 codes, one byte each
// (Mat::create_int8, its `int8` flag set; core/mat.h), as ncnn's elemsize-1 Mat.
// A layer with int8_scale_term > 100 produces such a blob; the next int8 layer
// takes the codes as they are and does not quantize them again (ncnn: `elemsize != 1` skips
// quantize_to_int8), so the numbers are ncnn's. Split passes the flag on (its tops share the Mat).
// Any other layer refuses an int8 blob (runtime/net.cpp checks Layer::takes_int8() before each
// forward); ncnn would silently cast the codes to float there. A model output that is an int8
// blob comes out as its codes, as ncnn's Extractor::extract gives them (cast_int8_to_float32).
//
// Layers that stay fp32-only with a non-zero int8_scale_term report `unsupported` at load
// (conv_common.h check_runnable_int8): Gemm, MultiHeadAttention, and RNN/LSTM/GRU/Embed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mat.h"
#include "layers/fused_activation.h"
#include "layers/weighted_layer.h"
#include "model/weights.h"

namespace nnfold {

struct Int8Weights {
    std::vector<int8_t> weight;   // codes, in weight_data's layout
    std::vector<float> scale_in;  // per output channel: 1 / (bottom_scale * weight_scale), or 0
    float bottom_scale = 0.f;
    float top_scale = 0.f;        // requantize only
    bool requantize = false;      // int8_scale_term > 100: the output is int8 codes
    // sum * scale_in + bias in one fused multiply-add, as ncnn's x86 Requantize and Dequantize
    // (the epilogue of its int8 Convolution) compute it on a CPU with FMA (_mm_comp_fmadd_ps), the
    // oracle's; ConvolutionDepthWise (depthwise) and InnerProduct multiply, then add.
    bool fused_bias = false;
    // The weights in the int8 GEMM's A layout (kernels/int8.h i8_pack_a), one block per group,
    // packed once by create_pipeline (Convolution, grouped ConvolutionDepthWise); empty until then
    // and for depthwise layers and InnerProduct, which read `weight` (InnerProduct: interleaved).
    std::vector<int16_t> packed_a;
    size_t packed_group_stride = 0;  // i8_packed_a_count of one group
    // InnerProduct: `weight` rearranged in place by create_pipeline into i8_dot_rows's interleaved
    // layout (kernels/int8.h i8_interleave_rows), the same bytes, read as one stream.
    bool interleaved = false;
    // Convolution 3x3, stride 1, dilation 1: the Winograd kernels U, packed once instead of
    // packed_a, for F(2x2, 3x3) (wino_m 2, kernels/int8.h i8_wino_transform_kernel) or F(4x4, 3x3)
    // (wino_m 4, kernels/int8_wino43.h); empty (wino_m 0) otherwise.
    std::vector<int16_t> wino_u;
    int wino_m = 0;
    // With wino_u: 128 x the largest sum |w| of an output channel, a bound on |sum| of every
    // convolution sum (input codes and border codes lie in [-128, 127]), for the store's exact form.
    double wino_sum_bound = 0;
    // Set by the optimized layers (Convolution_fast, ...): run the int8 kernels. The reference
    // layers keep the plain scalar loops (int8_conv_sums, the reference store), which the kernels
    // are tested against; both give the same bits.
    bool fast = false;
};

// Packs q.weight ([group][M][K] rows) into q.packed_a (resource_limit when it cannot allocate).
Status pack_int8_gemm(Int8Weights& q, int group, int M, int K);

// How ncnn's x86 build (the oracle's) differs from its generic int8 code, per layer:
struct Int8Flavor {
    bool fused_bias = false;  // Int8Weights::fused_bias
    bool x86_rcp = false;     // scale_in = kernels::x86_rcp(bottom_scale * weight_scale)
};

// Reads a WeightedLayer's arrays with int8_scale_term != 0: weight_data (int8 codes, or fp32
// quantized here), bias_data into the layer, then the scales. `rows` is the number of weight rows
// that share one weight scale each (num_output, or group for ConvolutionDepthWise),
// `weight_scale_count` how many scales the .bin holds (rows, or 1 for ConvolutionDepthWise 2/102),
// `outch_per_row` the output channels of one row (1, or num_output / group).
Status load_int8_weights(WeightedLayer& layer, const std::vector<WeightArray>& w, int rows, int weight_scale_count,
                         int outch_per_row, Int8Flavor flavor, Int8Weights& out);

// The input as int8 codes: the codes themselves for an int8 blob, float2int8(x * bottom_scale)
// otherwise (ncnn quantize_to_int8). `n` values from `m.data`.
void int8_input_codes(const Mat& m, size_t n, float bottom_scale, int8_t* dst);

// ncnn's dequantize or requantize of `n` int32 sums of output channel p into `top` from element
// `offset` (floats, or int8 codes when requantizing: `top` was made by create_int8), with any fused
// activation (the reference store; the kernels' i8_store takes activation types 0..3).
void int8_store(const Int8Weights& q, int p, const int32_t* sums, size_t n, const std::vector<float>& bias,
                const FusedActivation& act, Mat& top, size_t offset);

// The frame Convolution, ConvolutionDepthWise and InnerProduct share on top of Base
// (ConvWindowLayer or WeightedLayer): with int8_scale_term != 0 (and static weights) load_model
// takes the int8 form and forward runs forward_int8 (src/layers/int8_forward.cpp); otherwise the
// fp32 load and forward_fp32. Their optimized subclasses override forward and fall back to it.
template <class Base>
class Int8WeightedLayer : public Base {
public:
    Status load_model(const std::vector<WeightArray>& weights) override {
        if (!this->int8_scale_term || this->dynamic_weight)
            return WeightedLayer::load_model(weights);
        return load_int8(weights);
    }
    using Layer::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        if (this->int8_scale_term)
            return forward_int8(bottom, top, opt);
        return forward_fp32(bottom, top, opt);
    }
    bool takes_int8() const override { return this->int8_scale_term != 0; }
    // After the base's preparation, the int8 weights are packed for the int8 kernels (once).
    Status create_pipeline(const Option& opt) override {
        NF_RETURN_IF_ERROR(Base::create_pipeline(opt));
        if (this->int8_scale_term && !this->dynamic_weight && int8.fast)
            return pack_int8();
        return Status::ok();
    }
    Int8Weights int8;

protected:
    virtual Status pack_int8() { return Status::ok(); }
    virtual Status load_int8(const std::vector<WeightArray>& weights) = 0;
    virtual Status forward_int8(const Mat& bottom, Mat& top, const Option& opt) const = 0;
    virtual Status forward_fp32(const Mat& bottom, Mat& top, const Option& opt) const = 0;
};

}  // namespace nnfold
