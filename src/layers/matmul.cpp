// MatMul (ncnn src/layer/matmul.cpp; numpy.matmul / ONNX MatMul over ncnn blobs). Param 0 transB
// (default 0): B is given transposed, its rows are the columns of the product. No weights.
// Two inputs A, B; a matrix is the two innermost axes [h, w] (rows h, columns w), anything
// outside is a batch. With K = A.w and B' = transB ? B^T : B (K rows, N columns):
//   1D . 1D          -> [1]                    dot product of two length-K vectors
//   2D [M,K] . 2D    -> [M,N]
//   1D [K] . 2D      -> [N]                    (a row vector)
//   2D [M,K] . 1D [K]-> [M]                    (B a column vector; transB does not apply)
//   1D [K] . 3D/4D   -> [Bc, N] / [Bc, Bd, N]  (one row per matrix of B)
//   3D/4D . 1D [K]   -> [Ac, M] / [Ac, Ad, M]
//   otherwise up to 3D: batch over c, [batch, M, N]; a 2D side, or a side with c = 1, is used
//     for every batch (broadcast); otherwise the c extents must match.
//   otherwise (4D): a 2D side is [1,1,h,w] and a 3D side [c,h,w] is [1,c,h,w] (its c counts as d,
//     numpy's right alignment); batch over c and d with the same broadcast rule: [c, d, M, N].
// Sums run in k order in float, as ncnn's reference does.
#include <algorithm>

#include "layers/param_table.h"

namespace nnfold {

class MatMul : public Layer {
public:
    int transB = 0;

    int expected_bottoms() const override { return 2; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(MatMul, NF_PARAM(0, transB))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (transB != 0 && transB != 1)
            return invalid_model("MatMul transB (param 0) must be 0 or 1, got " + std::to_string(transB));
        return Status::ok();
    }

    // The product as a batch of [M,K] x [K,N]: per operand its matrix extents and batch extents
    // (c, d outermost first) with the element strides to step between batch matrices (0 = reused).
    struct Plan {
        int M = 1, N = 1, K = 1;
        int bc = 1, bd = 1;                     // batch extents of the output
        size_t a_sc = 0, a_sd = 0, b_sc = 0, b_sd = 0;  // batch strides (elements)
        bool b_vector = false;                  // B is a column vector [K] (no transB)
        bool b_rows = false;                    // B stored as [N,K] rows (transB)
        Shape out;
    };

    static std::string pair_str(const Shape& a, const Shape& b) { return "A " + a.str() + " and B " + b.str(); }

    Status plan(const Shape& A, const Shape& B, Plan& p) const {
        if (A.dims < 1 || A.dims > 4 || B.dims < 1 || B.dims > 4)
            return shape_mismatch("MatMul needs 1D-4D inputs, got " + pair_str(A, B));
        p = Plan();
        p.K = A.w;
        // B's matrix
        if (B.dims == 1) {
            p.b_vector = true;
            p.N = 1;
            if (B.w != p.K)
                return shape_mismatch("MatMul inner extents differ: " + pair_str(A, B));
        } else {
            p.b_rows = transB == 1;
            p.N = transB ? B.h : B.w;
            const int kb = transB ? B.w : B.h;
            if (kb != p.K)
                return shape_mismatch("MatMul inner extents differ (A.w " + std::to_string(p.K) + ", B " +
                                      (transB ? "w " : "h ") + std::to_string(kb) + "): " + pair_str(A, B));
        }
        p.M = A.dims == 1 ? 1 : A.h;
        const size_t a_mat = (size_t)A.w * (A.dims == 1 ? 1 : A.h);
        const size_t b_mat = (size_t)B.w * (B.dims == 1 ? 1 : B.h);
        const int maxd = std::max(A.dims, B.dims);
        if (A.dims == 1 && B.dims == 1) {
            p.out = Shape::d1(1);
        } else if (A.dims <= 2 && B.dims <= 2) {
            // 2x2 [M,N]; 1x2 [N]; 2x1 [M]
            p.out = A.dims == 1 ? Shape::d1(p.N) : B.dims == 1 ? Shape::d1(p.M) : Shape::d2(p.N, p.M);
        } else if (A.dims == 1 || B.dims == 1) {
            // a vector times every matrix of the batched side S (its matrices `mat` values apart),
            // giving `n` values per matrix
            auto vector_times_batch = [&](const Shape& S, size_t mat, int n, size_t& sd, size_t& sc) {
                p.bc = S.c;
                p.bd = S.dims == 4 ? S.d : 1;
                sd = mat;
                sc = mat * p.bd;
                p.out = S.dims == 3 ? Shape::d2(n, S.c) : Shape::d3(n, S.d, S.c);
            };
            if (A.dims == 1)
                vector_times_batch(B, b_mat, p.N, p.b_sd, p.b_sc);  // one row times every matrix of B
            else
                vector_times_batch(A, a_mat, p.M, p.a_sd, p.a_sc);
        } else {
            // batch extents (c, d) of each side; 2D sides have c = d = 1; in the 4D case a 3D
            // side's c moves to d
            auto batch = [&](const Shape& s, int& c, int& d) {
                c = s.dims >= 3 ? s.c : 1;
                d = s.dims == 4 ? s.d : 1;
                if (maxd == 4 && s.dims == 3) {
                    d = c;
                    c = 1;
                }
            };
            int ac, ad, bc, bd;
            batch(A, ac, ad);
            batch(B, bc, bd);
            if ((ac != bc && ac != 1 && bc != 1) || (ad != bd && ad != 1 && bd != 1))
                return shape_mismatch("MatMul batch extents do not broadcast: " + pair_str(A, B));
            p.bc = std::max(ac, bc);
            p.bd = std::max(ad, bd);
            p.a_sd = ad == 1 ? 0 : a_mat;
            p.a_sc = ac == 1 ? 0 : a_mat * ad;
            p.b_sd = bd == 1 ? 0 : b_mat;
            p.b_sc = bc == 1 ? 0 : b_mat * bd;
            p.out = maxd == 3 ? Shape::d3(p.N, p.M, p.bc) : Shape::d4(p.N, p.M, p.bd, p.bc);
        }
        if (!p.out.valid())
            return shape_mismatch("MatMul output of " + pair_str(A, B) + " is too large");
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 2)
            return shape_mismatch("MatMul takes two inputs, got " + std::to_string(bottoms.size()));
        Plan p;
        NF_RETURN_IF_ERROR(plan(bottoms[0], bottoms[1], p));
        tops.assign(1, p.out);
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        if (bottoms.size() != 2)
            return shape_mismatch("MatMul takes two inputs, got " + std::to_string(bottoms.size()));
        Plan p;
        NF_RETURN_IF_ERROR(plan(bottoms[0].shape(), bottoms[1].shape(), p));
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(p.out, opt.blob_allocator));
        const float* A = bottoms[0].data;
        const float* B = bottoms[1].data;
        float* O = dst.data;
        const int M = p.M, N = p.N, K = p.K;
        // B's element (k, n): row-major [K,N], or [N,K] with transB; a vector is [K,1]
        const size_t bk = p.b_rows ? 1 : (p.b_vector ? 1 : (size_t)N);
        const size_t bn = p.b_rows ? (size_t)K : 1;
        for (int c = 0; c < p.bc; c++)
            for (int d = 0; d < p.bd; d++) {
                const float* a = A + c * p.a_sc + d * p.a_sd;
                const float* b = B + c * p.b_sc + d * p.b_sd;
                for (int m = 0; m < M; m++)
                    for (int n = 0; n < N; n++) {
                        float sum = 0.f;
                        for (int k = 0; k < K; k++)
                            sum += a[(size_t)m * K + k] * b[k * bk + n * bn];
                        *O++ = sum;
                    }
            }
        tops[0] = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(MatMul)

}  // namespace nnfold
