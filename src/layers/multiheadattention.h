// MultiHeadAttention: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/param_table.h"

namespace nnfold {

class MultiHeadAttention : public Layer {
public:
    // A computed default cannot be expressed as bits: NaN never equals a value read from a file, so
    // the canonical writer always keeps an explicit `6=` (param 6 in the table below).
    static constexpr int32_t kComputedDefault = 0x7fc00000;
    NF_PARAM_TABLE(MultiHeadAttention,
                   NF_PARAM(0, embed_dim),
                   NF_PARAM(1, num_heads),
                   NF_PARAM(2, weight_data_size),
                   NF_PARAM_FROM(3, kdim, 0),
                   NF_PARAM_FROM(4, vdim, 0),
                   NF_PARAM(5, attn_mask),
                   // default 1/sqrt(embed_dim / num_heads) depends on two params: never omitted
                   {6, "scale", ParamType::Float, kComputedDefault},  // read in load_param
                   NF_PARAM(7, kv_cache),
                   NF_PARAM(18, int8_scale_term))
    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;
    Status load_model(const std::vector<WeightArray>& weights) override;
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
    int expected_tops() const override { return kv_cache ? 3 : 1; }

    int embed_dim = 0;
    int num_heads = 1;
    int weight_data_size = 0;
    int kdim = 0, vdim = 0;
    int attn_mask = 0;
    float scale = 1.f;
    int kv_cache = 0;
    int int8_scale_term = 0;

    // ncnn layout: q_weight [embed_dim][qdim], k_weight [embed_dim][kdim], v_weight
    // [embed_dim][vdim], out_weight [qdim][embed_dim]; biases q/k/v [embed_dim], out [qdim].
    std::vector<float> q_weight_data, q_bias_data;
    std::vector<float> k_weight_data, k_bias_data;
    std::vector<float> v_weight_data, v_bias_data;
    std::vector<float> out_weight_data, out_bias_data;

    int qdim() const { return weight_data_size / embed_dim; }

    // Which bottom is q, k, v and the mask (ncnn resolve_bottom_blob_index without kv cache):
    // 1 input q=k=v; 2 inputs q, k=v; 3 inputs q, k, v; attn_mask adds the mask as the last one.
    struct Inputs {
        int q = 0, k = 0, v = 0, mask = -1;
        int src_seqlen = 0, dst_seqlen = 0;
    };
    Status resolve_inputs(const std::vector<Shape>& shapes, Inputs& in) const;
};

}  // namespace nnfold
