// MultiHeadAttention_fast: MultiHeadAttention (layers/multiheadattention.cpp) as five GEMMs on the
// kernels (kernels/gemm.h) and a row softmax (kernels/softmax.h). The projection weights are packed
// once as A panels; per call:
//   Q^T [E][S] = Wq x q^T (+ bq per row, times scale in the store), K^T [E][D], V^T [E][D] alike
//   per head h: scores [S][D] = Q_h x K_h^T (Q_h^T packed per head), + mask, softmax per row;
//               O_h^T [dh][S] = V_h^T x scores^T
//   y^T [Q][S] = Wo x O^T (+ bo per row), transposed into y [S][Q].
// Every GEMM element is its initial value (bias or 0) plus the products in increasing k, which is
// the reference's order, so the projections and the attention products match it bit for bit; the
// softmax uses the kernels' exp and a lane-wise sum (within 1e-4, docs/numbers.md).
#include <algorithm>
#include <utility>

#include "core/parallel.h"
#include "kernels/gemm.h"
#include "kernels/softmax.h"
#include "layers/multiheadattention.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class MultiHeadAttention_fast : public MultiHeadAttention {
public:
    Status create_pipeline(const Option& opt) override;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;

private:
    std::vector<float> wq_, wk_, wv_, wo_;  // packed A panels
    bool ready_ = false;
};

Status MultiHeadAttention_fast::create_pipeline(const Option& opt) {
    NF_RETURN_IF_ERROR(MultiHeadAttention::create_pipeline(opt));
    const int E = embed_dim, Q = qdim();
    if (q_weight_data.size() != (size_t)E * Q || k_weight_data.size() != (size_t)E * kdim ||
        v_weight_data.size() != (size_t)E * vdim || out_weight_data.size() != (size_t)Q * E ||
        q_bias_data.size() != (size_t)E || k_bias_data.size() != (size_t)E || v_bias_data.size() != (size_t)E ||
        out_bias_data.size() != (size_t)Q)
        return Status::ok();  // not loaded: the reference forward reports it
    NF_RETURN_IF_ERROR(fast_pack_a(wq_, E, Q, q_weight_data.data(), (size_t)Q, 1));
    NF_RETURN_IF_ERROR(fast_pack_a(wk_, E, kdim, k_weight_data.data(), (size_t)kdim, 1));
    NF_RETURN_IF_ERROR(fast_pack_a(wv_, E, vdim, v_weight_data.data(), (size_t)vdim, 1));
    NF_RETURN_IF_ERROR(fast_pack_a(wo_, Q, E, out_weight_data.data(), (size_t)E, 1));
    fast_release(q_weight_data);
    fast_release(k_weight_data);
    fast_release(v_weight_data);
    fast_release(out_weight_data);
    ready_ = true;
    return Status::ok();
}

Status MultiHeadAttention_fast::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops,
                                        const Option& opt) const {
    if (!ready_)
        return MultiHeadAttention::forward(bottoms, tops, opt);
    std::vector<Shape> shapes;
    for (auto& m : bottoms) {
        if (m.elempack != 1)
            return internal_error("MultiHeadAttention optimized forward needs elempack 1");
        shapes.push_back(m.shape());
    }
    Inputs in;
    NF_RETURN_IF_ERROR(resolve_inputs(shapes, in));
    if (tops.size() != 1)
        return internal_error("MultiHeadAttention produces one output");
    const int S = in.src_seqlen, D = in.dst_seqlen, E = embed_dim, H = num_heads, dh = E / H, Q = qdim();
    const float* q = bottoms[in.q].data;
    const float* k = bottoms[in.k].data;
    const float* v = bottoms[in.v].data;

    // workspace: Q^T, K^T, V^T, O^T (then y^T), the projections' GEMM B packing space (the largest
    // of the calls, times their parts), and per head part: the scores of one head, one packed head
    // operand and GEMM packing space
    using kernels::GemmB;
    const size_t f_qa = (size_t)E * S, f_ka = (size_t)E * D, f_va = (size_t)E * D, f_att = (size_t)S * D;
    const size_t f_o = (size_t)std::max(E, Q) * S;
    const size_t f_pa = std::max(kernels::packed_a_floats(S, dh), kernels::packed_a_floats(dh, D));
    size_t f_ws = 0;  // the most any of the GEMMs below needs per part (N, K of each)
    for (auto nk : {std::make_pair(S, Q), std::make_pair(D, kdim), std::make_pair(D, vdim), std::make_pair(D, dh),
                    std::make_pair(S, D), std::make_pair(S, E)})
        f_ws = std::max(f_ws, kernels::f32_gemm_workspace_floats(nk.first, nk.second, GemmB::Strided));
    // threads: the projections inside their GEMMs, the attention by heads (a head's scores, softmax
    // and weighted sum on one thread, in the single-threaded order)
    const int parts_q = kernels::f32_gemm_parts(E, S, Q), parts_k = kernels::f32_gemm_parts(E, D, kdim),
              parts_v = kernels::f32_gemm_parts(E, D, vdim), parts_o = kernels::f32_gemm_parts(Q, S, E);
    const int parts_proj = std::max({parts_q, parts_k, parts_v, parts_o});
    const int parts_h = parallel_part_count(H, (int64_t)2 * S * D * dh + (int64_t)S * D * 24);
    const size_t f_head = f_att + f_pa + f_ws;
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(f_qa + f_ka + f_va + 2 * f_o + f_ws * parts_proj + f_head * parts_h, opt, ws));
    float* qa = ws.data;
    float* ka = qa + f_qa;
    float* va = ka + f_ka;
    float* o = va + f_va;
    float* yt = o + f_o;
    float* gws = yt + f_o;
    float* heads_ws = gws + f_ws * parts_proj;

    auto strided = [](const float* data, size_t rs, size_t cs) {
        GemmB b;
        b.kind = GemmB::Strided;
        b.data = data;
        b.rs = rs;
        b.cs = cs;
        return b;
    };
    // projections: B[t][i] = x[i * dim + t]
    kernels::GemmEpilogue epq;
    epq.bias = q_bias_data.data();
    epq.scale = true;
    epq.alpha = scale;
    kernels::f32_gemm(E, S, Q, wq_.data(), strided(q, 1, (size_t)Q), qa, (size_t)S, epq, false, gws, parts_q);
    kernels::GemmEpilogue epk;
    epk.bias = k_bias_data.data();
    kernels::f32_gemm(E, D, kdim, wk_.data(), strided(k, 1, (size_t)kdim), ka, (size_t)D, epk, false, gws, parts_k);
    kernels::GemmEpilogue epv;
    epv.bias = v_bias_data.data();
    kernels::f32_gemm(E, D, vdim, wv_.data(), strided(v, 1, (size_t)vdim), va, (size_t)D, epv, false, gws, parts_v);
    NF_RETURN_IF_ERROR(fast_cancelled(opt));

    const float* mask = attn_mask ? bottoms[in.mask].data : nullptr;
    const bool mask_per_head = attn_mask && bottoms[in.mask].dims == 3;
    const kernels::GemmEpilogue plain;
    parallel_for_slots(H, parallel_piece_count(H, parts_h), parts_h, [&](int slot, int64_t h0, int64_t h1) {
        float* att = heads_ws + f_head * slot;
        float* pa = att + f_att;
        float* hws = pa + f_pa;
        for (int64_t h = h0; h < h1; h++) {
            if (opt.cancel && *opt.cancel)
                return;
            const float* qh = qa + (size_t)h * dh * S;  // [dh][S]
            const float* kh = ka + (size_t)h * dh * D;  // [dh][D]
            const float* vh = va + (size_t)h * dh * D;  // [dh][D]
            // scores[i][j] = sum_l qh[l][i] kh[l][j]: A = qh^T (S x dh), B = kh (dh x D)
            kernels::f32_pack_a(S, dh, qh, 1, (size_t)S, pa);
            kernels::f32_gemm(S, D, dh, pa, strided(kh, (size_t)D, 1), att, (size_t)D, plain, false, hws);
            for (int i = 0; i < S; i++) {
                float* row = att + (size_t)i * D;
                if (mask) {
                    const float* mr = mask + (mask_per_head ? (size_t)h * S * D : 0) + (size_t)i * D;
                    for (int j = 0; j < D; j++)
                        row[j] += mr[j];
                }
                kernels::f32_softmax_inplace(row, (size_t)D);
            }
            // O_h^T[j][i] = sum_t vh[j][t] att[i][t]: A = vh (dh x D), B = att^T (D x S)
            kernels::f32_pack_a(dh, D, vh, (size_t)D, 1, pa);
            kernels::f32_gemm(dh, S, D, pa, strided(att, 1, (size_t)D), o + (size_t)h * dh * S, (size_t)S, plain, false,
                              hws);
        }
    });
    NF_RETURN_IF_ERROR(fast_cancelled(opt));

    // y^T [Q][S] = Wo x O^T + bo, then y [S][Q]
    kernels::GemmEpilogue epo;
    epo.bias = out_bias_data.data();
    kernels::f32_gemm(Q, S, E, wo_.data(), strided(o, (size_t)S, 1), yt, (size_t)S, epo, false, gws, parts_o);
    Mat& top = tops[0];
    NF_RETURN_IF_ERROR(top.create(Shape::d2(Q, S), opt.blob_allocator));
    for (int i = 0; i < S; i++)
        for (int j = 0; j < Q; j++)
            top.data[(size_t)i * Q + j] = yt[(size_t)j * S + i];
    return Status::ok();
}

NF_DEFINE_OPTIMIZED_LAYER(MultiHeadAttention, MultiHeadAttention_fast)

}  // namespace nnfold
