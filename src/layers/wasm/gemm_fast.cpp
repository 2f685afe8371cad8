// Gemm_fast: Gemm (layers/gemm.cpp), y = alpha * (A' B' + beta * C), through the blocked GEMM of
// kernels/gemm.h. The product is computed in the output's orientation: without output_transpose
// the GEMM's A is A' (M x K) and its B is B' (K x N); with it, the output [N][M] is B'^T A'^T, so
// the GEMM's A is B'^T and its B is A'^T. Transposed operands and ncnn's N1M 3D layouts are read
// through strides. Constant operands are packed once in create_pipeline (as A panels or B panels,
// whichever role they play); blob operands are packed per call. C, when present, is written first as
// beta * C into the output (every broadcast form, the reference's element rule), the GEMM then
// accumulates onto it and scales by alpha in its store: per element exactly the reference's
// operations in the reference's order.
#include "core/parallel.h"
#include "kernels/gemm.h"
#include "layers/gemm.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Gemm_fast : public Gemm {
public:
    Status create_pipeline(const Option& opt) override;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
    using Gemm::forward;

private:
    // A strided matrix: element (r, c) at data[r * rs + c * cs].
    struct Strided {
        const float* data = nullptr;
        size_t rs = 0, cs = 0;
    };
    // A' and B' as strided views of the plan's operands.
    static Strided a_prime(const Plan& p, int transA) {
        return {p.A0.data, transA ? 1 : p.A0.row_stride, transA ? p.A0.row_stride : 1};
    }
    static Strided b_prime(const Plan& p, int transB) {
        return {p.B0.data, transB ? 1 : p.B0.row_stride, transB ? p.B0.row_stride : 1};
    }

    // Constant operands packed for the role they play (empty when that operand is a blob).
    std::vector<float> packed_a_role_;  // GEMM A panels
    std::vector<float> packed_b_role_;  // GEMM B panels (K rows)
    bool ready_ = false;
};

Status Gemm_fast::create_pipeline(const Option& opt) {
    NF_RETURN_IF_ERROR(Gemm::create_pipeline(opt));
    if (int8_scale_term)
        return Status::ok();
    if ((constantA && A_data.size() != (size_t)constantM * constantK) ||
        (constantB && B_data.size() != (size_t)constantN * constantK))
        return Status::ok();  // weights not loaded: the reference forward reports it
    const int K = constantK;
    if (constantA) {
        // A0 is [M][K] (transA 0) or [K][M]
        const float* d = A_data.data();
        const size_t rs = transA ? 1 : (size_t)K, cs = transA ? (size_t)constantM : 1;  // A'(i, k)
        if (!output_transpose) {
            NF_RETURN_IF_ERROR(fast_pack_a(packed_a_role_, constantM, K, d, rs, cs));
        } else {  // B role: A'^T (K x M), element (k, i) = A'(i, k)
            NF_RETURN_IF_ERROR(fast_pack_b(packed_b_role_, K, constantM, d, cs, rs));
        }
        fast_release(A_data);
    }
    if (constantB) {
        // B0 is [K][N] (transB 0) or [N][K]
        const float* d = B_data.data();
        const size_t rs = transB ? 1 : (size_t)constantN, cs = transB ? (size_t)K : 1;  // B'(k, j)
        if (!output_transpose) {
            NF_RETURN_IF_ERROR(fast_pack_b(packed_b_role_, K, constantN, d, rs, cs));
        } else {  // A role: B'^T (N x K), element (j, k) = B'(k, j)
            NF_RETURN_IF_ERROR(fast_pack_a(packed_a_role_, constantN, K, d, cs, rs));
        }
        fast_release(B_data);
    }
    ready_ = true;
    return Status::ok();
}

Status Gemm_fast::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    if (!ready_)
        return Gemm::forward(bottoms, tops, opt);
    Plan p;
    NF_RETURN_IF_ERROR(forward_plan(bottoms, tops, opt, p));
    Mat& top = tops[0];
    const size_t ldo = (size_t)p.out.w;  // row stride of [rows, w] and of the dense N1M [rows, 1, w]

    // beta * C at each output position (the reference's element rule)
    if (p.has_C) {
        for (int i = 0; i < p.M; i++)
            for (int j = 0; j < p.N; j++) {
                float c;
                switch (p.broadcast_type_C) {
                case 0: c = p.C[0]; break;
                case 1: case 2: c = p.C[i]; break;
                case 3: c = p.C[(size_t)i * p.N + j]; break;
                default: c = p.C[j]; break;
                }
                c *= beta;
                if (output_transpose)
                    top.data[(size_t)j * ldo + i] = c;
                else
                    top.data[(size_t)i * ldo + j] = c;
            }
    }

    // the GEMM's operands in the output's orientation
    const int Mr = output_transpose ? p.N : p.M, Nr = output_transpose ? p.M : p.N, K = p.K;
    Strided ra, rb;  // role A (Mr x K), role B (K x Nr)
    {
        const Strided ap = a_prime(p, transA), bp = b_prime(p, transB);
        if (!output_transpose) {
            ra = ap;
            rb = bp;
        } else {
            ra = {bp.data, bp.cs, bp.rs};
            rb = {ap.data, ap.cs, ap.rs};
        }
    }
    const bool a_const = !packed_a_role_.empty(), b_const = !packed_b_role_.empty();
    const size_t a_floats = a_const ? 0 : kernels::packed_a_floats(Mr, K);
    kernels::GemmB b;
    if (b_const) {
        b.kind = kernels::GemmB::Packed;
        b.data = packed_b_role_.data();
    } else {
        b.kind = kernels::GemmB::Strided;
        b.data = rb.data;
        b.rs = rb.rs;
        b.cs = rb.cs;
    }
    const int parts = kernels::f32_gemm_parts(Mr, Nr, K);  // threads: output row x column blocks
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(a_floats + kernels::f32_gemm_workspace_floats(Nr, K, b.kind, parts), opt, ws));
    const float* a_packed = packed_a_role_.data();
    if (!a_const) {
        kernels::f32_pack_a(Mr, K, ra.data, ra.rs, ra.cs, ws.data);
        a_packed = ws.data;
    }
    kernels::GemmEpilogue ep;
    ep.scale = true;
    ep.alpha = alpha;
    kernels::f32_gemm(Mr, Nr, K, a_packed, b, top.data, ldo, ep, p.has_C, ws.data + a_floats, parts);
    return fast_cancelled(opt);
}

NF_DEFINE_OPTIMIZED_LAYER(Gemm, Gemm_fast)

}  // namespace nnfold
