// MultiHeadAttention (ncnn src/layer/multiheadattention.cpp), as PyTorch's nn.MultiheadAttention
// (batch-free: rows are sequence positions). Params: 0 embed_dim, 1 num_heads (1),
// 2 weight_data_size (= embed_dim * qdim), 3 kdim (=embed_dim), 4 vdim (=embed_dim), 5 attn_mask,
// 6 scale (default 1 / sqrt(embed_dim / num_heads)), 7 kv_cache,
// 18 int8_scale_term.
// Weights in ncnn's order: q_weight [embed_dim * qdim] (tagged), q_bias [embed_dim], k_weight
// [embed_dim * kdim] (tagged), k_bias [embed_dim], v_weight [embed_dim * vdim] (tagged), v_bias
// [embed_dim], out_weight [qdim * embed_dim] (tagged), out_bias [qdim]; with int8_scale_term also
// q/k/v_weight_data_int8_scales [embed_dim] each and out_weight_data_int8_scale [1].
// Inputs: q [src_seqlen, qdim], k [dst_seqlen, kdim], v [dst_seqlen, vdim] (see Inputs in the
// header for how 1-3 blobs map to q/k/v), then the additive mask [src_seqlen, dst_seqlen] or
// [num_heads, src_seqlen, dst_seqlen] when attn_mask is set. Output [src_seqlen, qdim].
//   Q = (q Wq^T + bq) * scale, K = k Wk^T + bk, V = v Wv^T + bv
//   per head h: A = softmax_rows(Q_h K_h^T + mask), O_h = A V_h;  y = concat_h(O_h) Wo^T + bo
#include "layers/multiheadattention.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "layers/conv_common.h"

namespace nnfold {

Status MultiHeadAttention::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    if (embed_dim <= 0)
        return invalid_model("embed_dim (param 0) must be positive, got " + std::to_string(embed_dim));
    // ncnn silently drops the rows past num_heads * (embed_dim / num_heads); PyTorch refuses too
    if (num_heads <= 0 || embed_dim % num_heads != 0)
        return invalid_model("num_heads (param 1) " + std::to_string(num_heads) + " must divide embed_dim " +
                             std::to_string(embed_dim));
    scale = pd.get_float(6, 1.f / std::sqrt((float)(embed_dim / num_heads)));
    if (weight_data_size <= 0 || weight_data_size % embed_dim != 0)
        return invalid_model("weight_data_size (param 2) " + std::to_string(weight_data_size) +
                             " must be a positive multiple of embed_dim " + std::to_string(embed_dim));
    if (kdim <= 0 || vdim <= 0)
        return invalid_model("kdim/vdim (params 3/4) must be positive");
    if ((int64_t)embed_dim * kdim > INT32_MAX || (int64_t)embed_dim * vdim > INT32_MAX)
        return invalid_model("kdim/vdim too large");
    return Status::ok();
}

Status MultiHeadAttention::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    const uint64_t E = embed_dim;
    specs.push_back({"q_weight_data", E * qdim(), true, WeightRole::Weight, qdim()});
    specs.push_back({"q_bias_data", E, false, WeightRole::Bias, 1});
    specs.push_back({"k_weight_data", E * kdim, true, WeightRole::Weight, kdim});
    specs.push_back({"k_bias_data", E, false, WeightRole::Bias, 1});
    specs.push_back({"v_weight_data", E * vdim, true, WeightRole::Weight, vdim});
    specs.push_back({"v_bias_data", E, false, WeightRole::Bias, 1});
    specs.push_back({"out_weight_data", (uint64_t)qdim() * E, true, WeightRole::Weight, embed_dim});
    specs.push_back({"out_bias_data", (uint64_t)qdim(), false, WeightRole::Bias, 1});
    if (int8_scale_term) {
        specs.push_back({"q_weight_data_int8_scales", E, false, WeightRole::Gamma, 1});
        specs.push_back({"k_weight_data_int8_scales", E, false, WeightRole::Gamma, 1});
        specs.push_back({"v_weight_data_int8_scales", E, false, WeightRole::Gamma, 1});
        specs.push_back({"out_weight_data_int8_scale", 1, false, WeightRole::Gamma, 1});
    }
    return Status::ok();
}

Status MultiHeadAttention::load_model(const std::vector<WeightArray>& w) {
    NF_RETURN_IF_ERROR(check_runnable_int8(int8_scale_term, "MultiHeadAttention"));
    if (kv_cache)
        return unsupported("MultiHeadAttention with kv_cache=1 (param 7) cannot be run by nnfold");
    if (w.size() < 8)
        return internal_error("MultiHeadAttention: missing weight arrays");
    for (int i : {0, 2, 4, 6})
        if (w[i].storage == WeightStorage::Int8)
            return unsupported("int8-quantized MultiHeadAttention weights cannot be run by nnfold (fp32 compute only)");
    q_weight_data = w[0].data;
    q_bias_data = w[1].data;
    k_weight_data = w[2].data;
    k_bias_data = w[3].data;
    v_weight_data = w[4].data;
    v_bias_data = w[5].data;
    out_weight_data = w[6].data;
    out_bias_data = w[7].data;
    return Status::ok();
}

Status MultiHeadAttention::resolve_inputs(const std::vector<Shape>& s, Inputs& in) const {
    if (kv_cache)
        return unsupported("MultiHeadAttention with kv_cache=1 (param 7) is not supported");
    const int n = (int)s.size();
    const int nqkv = n - (attn_mask ? 1 : 0);
    if (nqkv < 1 || nqkv > 3)
        return shape_mismatch("MultiHeadAttention takes q[, k[, v]]" + std::string(attn_mask ? " and a mask" : "") +
                              ", got " + std::to_string(n) + " inputs");
    in = Inputs();
    in.q = 0;
    in.k = nqkv >= 2 ? 1 : 0;
    in.v = nqkv == 3 ? 2 : in.k;
    in.mask = attn_mask ? nqkv : -1;
    for (int i = 0; i < nqkv; i++)
        if (s[i].dims < 1 || s[i].dims > 2)
            return shape_mismatch("MultiHeadAttention q/k/v must be [seqlen, dim] (2D), got " + s[i].str());
    if (s[in.q].w != qdim())
        return shape_mismatch("q " + s[in.q].str() + " must have " + std::to_string(qdim()) + " columns (qdim)");
    if (s[in.k].w != kdim)
        return shape_mismatch("k " + s[in.k].str() + " must have " + std::to_string(kdim) + " columns (kdim)");
    if (s[in.v].w != vdim)
        return shape_mismatch("v " + s[in.v].str() + " must have " + std::to_string(vdim) + " columns (vdim)");
    if (s[in.k].h != s[in.v].h)
        return shape_mismatch("k " + s[in.k].str() + " and v " + s[in.v].str() + " must have the same number of rows");
    in.src_seqlen = s[in.q].h;
    in.dst_seqlen = s[in.k].h;
    if (attn_mask) {
        const Shape& m = s[in.mask];
        bool ok = (m.dims == 2 && m.w == in.dst_seqlen && m.h == in.src_seqlen) ||
                  (m.dims == 3 && m.w == in.dst_seqlen && m.h == in.src_seqlen && m.c == num_heads);
        if (!ok)
            return shape_mismatch("attn_mask " + m.str() + " must be [" + std::to_string(in.src_seqlen) + "," +
                                  std::to_string(in.dst_seqlen) + "] or [" + std::to_string(num_heads) + "," +
                                  std::to_string(in.src_seqlen) + "," + std::to_string(in.dst_seqlen) + "]");
    }
    return Status::ok();
}

Status MultiHeadAttention::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    Inputs in;
    NF_RETURN_IF_ERROR(resolve_inputs(bottoms, in));
    tops.assign(1, Shape::d2(qdim(), in.src_seqlen));
    return Status::ok();
}

Status MultiHeadAttention::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    const std::vector<Shape> shapes = shapes_of(bottoms);
    Inputs in;
    NF_RETURN_IF_ERROR(resolve_inputs(shapes, in));
    if (q_weight_data.empty())
        return internal_error("MultiHeadAttention: weights not loaded");
    const int S = in.src_seqlen, D = in.dst_seqlen, E = embed_dim, H = num_heads, dh = E / H, Q = qdim();
    const float* q = bottoms[in.q].data;
    const float* k = bottoms[in.k].data;
    const float* v = bottoms[in.v].data;

    // Projections, stored transposed ([E][seqlen]) as ncnn does; the sums run in ncnn's order.
    Mat qa, ka, va, qk, o;
    Allocator* ws = opt.workspace_allocator;
    NF_RETURN_IF_ERROR(qa.create(Shape::d2(S, E), ws));
    NF_RETURN_IF_ERROR(ka.create(Shape::d2(D, E), ws));
    NF_RETURN_IF_ERROR(va.create(Shape::d2(D, E), ws));
    NF_RETURN_IF_ERROR(qk.create(Shape::d3(D, S, H), ws));
    NF_RETURN_IF_ERROR(o.create(Shape::d2(S, E), ws));
    auto project = [](const float* x, int rows, int dim, const std::vector<float>& W, const std::vector<float>& b,
                      int E, float post_scale, bool scaled, float* out, int out_cols) {
        for (int i = 0; i < rows; i++) {
            const float* xr = x + (size_t)i * dim;
            for (int j = 0; j < E; j++) {
                const float* wr = W.data() + (size_t)j * dim;
                float sum = b[j];
                for (int t = 0; t < dim; t++)
                    sum += xr[t] * wr[t];
                out[(size_t)j * out_cols + i] = scaled ? sum * post_scale : sum;
            }
        }
    };
    project(q, S, Q, q_weight_data, q_bias_data, E, scale, true, qa.data, S);
    project(k, D, kdim, k_weight_data, k_bias_data, E, 1.f, false, ka.data, D);
    project(v, D, vdim, v_weight_data, v_bias_data, E, 1.f, false, va.data, D);
    if (opt.cancel && *opt.cancel)
        return Status(ErrorCode::Cancelled, "cancelled");

    const float* mask = attn_mask ? bottoms[in.mask].data : nullptr;
    const bool mask_per_head = attn_mask && bottoms[in.mask].dims == 3;
    for (int h = 0; h < H; h++) {
        const float* qh = qa.data + (size_t)h * dh * S;
        const float* kh = ka.data + (size_t)h * dh * D;
        const float* vh = va.data + (size_t)h * dh * D;
        float* att = qk.data + (size_t)h * S * D;
        for (int i = 0; i < S; i++) {
            float* row = att + (size_t)i * D;
            for (int j = 0; j < D; j++) {
                float sum = 0.f;
                for (int l = 0; l < dh; l++)
                    sum += qh[(size_t)l * S + i] * kh[(size_t)l * D + j];
                row[j] = sum;
            }
            if (mask) {
                const float* mr = mask + (mask_per_head ? (size_t)h * S * D : 0) + (size_t)i * D;
                for (int j = 0; j < D; j++)
                    row[j] += mr[j];
            }
            float mx = -FLT_MAX;
            for (int j = 0; j < D; j++)
                mx = std::max(mx, row[j]);
            float sum = 0.f;
            for (int j = 0; j < D; j++) {
                row[j] = std::exp(row[j] - mx);
                sum += row[j];
            }
            for (int j = 0; j < D; j++)
                row[j] /= sum;
        }
        // O_h [dh][S]
        for (int i = 0; i < S; i++) {
            const float* row = att + (size_t)i * D;
            for (int j = 0; j < dh; j++) {
                const float* vr = vh + (size_t)j * D;
                float sum = 0.f;
                for (int t = 0; t < D; t++)
                    sum += row[t] * vr[t];
                o.data[((size_t)h * dh + j) * S + i] = sum;
            }
        }
        if (opt.cancel && *opt.cancel)
            return Status(ErrorCode::Cancelled, "cancelled");
    }

    if (tops.size() != 1)
        return internal_error("MultiHeadAttention produces one output");
    Mat& top = tops[0];
    NF_RETURN_IF_ERROR(top.create(Shape::d2(Q, S), opt.blob_allocator));
    for (int i = 0; i < S; i++) {
        float* y = top.data + (size_t)i * Q;
        for (int j = 0; j < Q; j++) {
            const float* wr = out_weight_data.data() + (size_t)j * E;
            float sum = out_bias_data[j];
            for (int t = 0; t < E; t++)
                sum += o.data[(size_t)t * S + i] * wr[t];
            y[j] = sum;
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(MultiHeadAttention)

}  // namespace nnfold
