// Gemm (ncnn src/layer/gemm.cpp): y = alpha * (A' B' + beta * C), A' = transA ? A^T : A,
// B' = transB ? B^T : B. Params: 0 alpha (1.f), 1 beta (1.f), 2 transA, 3 transB, 4 constantA,
// 5 constantB, 6 constantC, 7 constantM, 8 constantN, 9 constantK, 10 constant_broadcast_type_C,
// 11 output_N1M, 12 output_elempack, 13 output_elemtype, 14 output_transpose, 18 int8_scale_term,
// 20-22 constant_TILE_M/N/K (tiling hints, no effect on results).
// Weights in ncnn's load_model order, all tagged: A_data (constantA), B_data (constantB), C_data
// (constantC with broadcast type != -1); then with int8_scale_term A_data_int8_scales [M]
// (constantA) and B_data_int8_scale [1] (constantB), raw.
// Inputs, in order: A unless constantA, B unless constantB, then an optional C unless constantC.
// A blob operand is a matrix with rows = h (2D/1D) or c (3D [c,1,w]: ncnn's "N1M" layout, one
// row per channel) and w columns. A blob C broadcasts by ncnn's rules (tested in order, later
// wins): [1] scalar, [M], [N], [M,1], [M,N], [1,N]. Output [M,N] (w=N), [N,M] with
// output_transpose, and [M,1,N] / [N,1,M] 3D with output_N1M.
#include "layers/gemm.h"

#include "layers/conv_common.h"

namespace nnfold {

Status Gemm::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);

    // ncnn: one_blob_only for exactly one non-constant operand among A, B, C
    one_blob_only = (!constantA && constantB && constantC) || (constantA && !constantB && constantC) ||
                    (constantA && constantB && !constantC);

    if (constantA && (constantM <= 0 || constantK <= 0))
        return invalid_model("constantM and constantK (params 7, 9) must be positive when constantA is set");
    if (constantB && (constantN <= 0 || constantK <= 0))
        return invalid_model("constantN and constantK (params 8, 9) must be positive when constantB is set");
    if (constantC) {
        int t = constant_broadcast_type_C;
        if (t < -1 || t > 4)
            return invalid_model("constant_broadcast_type_C (param 10) must be -1 or 0..4, got " + std::to_string(t));
        if ((t == 1 || t == 2 || t == 3) && constantM <= 0)
            return invalid_model("constantM (param 7) must be positive for constant_broadcast_type_C " + std::to_string(t));
        if ((t == 3 || t == 4) && constantN <= 0)
            return invalid_model("constantN (param 8) must be positive for constant_broadcast_type_C " + std::to_string(t));
    }
    if ((int64_t)constantM * constantK > INT32_MAX || (int64_t)constantN * constantK > INT32_MAX ||
        (int64_t)constantM * constantN > INT32_MAX)
        return invalid_model("constant Gemm operands are too large");
    return Status::ok();
}

int Gemm::expected_bottoms() const {
    if (constantC)
        return (constantA ? 0 : 1) + (constantB ? 0 : 1);
    return -1;  // the operands that are not constant, plus an optional C
}

Status Gemm::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    if (constantA)
        specs.push_back({"A_data", (uint64_t)constantM * constantK, true, WeightRole::Weight, constantK});
    if (constantB)
        specs.push_back({"B_data", (uint64_t)constantN * constantK, true, WeightRole::Weight, constantK});
    if (constantC && constant_broadcast_type_C != -1) {
        uint64_t n = 1;
        switch (constant_broadcast_type_C) {
        case 1: case 2: n = constantM; break;
        case 3: n = (uint64_t)constantM * constantN; break;
        case 4: n = constantN; break;
        default: break;
        }
        specs.push_back({"C_data", n, true, WeightRole::Bias, 1});
    }
    if (int8_scale_term) {
        if (constantA)
            specs.push_back({"A_data_int8_scales", (uint64_t)constantM, false, WeightRole::Gamma, 1});
        if (constantB)
            specs.push_back({"B_data_int8_scale", 1, false, WeightRole::Gamma, 1});
    }
    return Status::ok();
}

Status Gemm::load_model(const std::vector<WeightArray>& w) {
    NF_RETURN_IF_ERROR(check_runnable_int8(int8_scale_term, "Gemm"));
    size_t i = 0;
    auto take = [&](std::vector<float>& dst, const char* name) -> Status {
        if (i >= w.size())
            return internal_error(std::string("Gemm: missing ") + name);
        if (w[i].storage == WeightStorage::Int8)
            return unsupported(std::string("int8-quantized Gemm ") + name + " cannot be run by nnfold (fp32 compute only)");
        dst = w[i++].data;
        return Status::ok();
    };
    if (constantA)
        NF_RETURN_IF_ERROR(take(A_data, "A_data"));
    if (constantB)
        NF_RETURN_IF_ERROR(take(B_data, "B_data"));
    if (constantC && constant_broadcast_type_C != -1)
        NF_RETURN_IF_ERROR(take(C_data, "C_data"));
    return Status::ok();
}

namespace {

// A blob as a matrix: rows = h (1D/2D) or c (3D with h == 1).
Status blob_matrix(const Shape& s, const char* what, int& rows, int& cols) {
    if (s.dims == 1 || s.dims == 2) {
        rows = s.h;
        cols = s.w;
        return Status::ok();
    }
    if (s.dims == 3 && s.h == 1) {
        rows = s.c;
        cols = s.w;
        return Status::ok();
    }
    // ncnn reads only the first row of each channel of a taller 3D blob
    return shape_mismatch(std::string("Gemm operand ") + what + " must be 1D, 2D or 3D [rows,1,cols], got " + s.str());
}

}  // namespace

Status Gemm::plan(const std::vector<Shape>& shapes, const std::vector<Mat>* mats, Plan& p) const {
    const int nab = (constantA ? 0 : 1) + (constantB ? 0 : 1);
    const int n = (int)shapes.size();
    if (n != nab && !(n == nab + 1 && !constantC))
        return shape_mismatch("Gemm with constantA=" + std::to_string(constantA) + " constantB=" +
                              std::to_string(constantB) + " constantC=" + std::to_string(constantC) + " takes " +
                              std::to_string(nab) + (constantC ? "" : " or " + std::to_string(nab + 1)) +
                              " inputs, got " + std::to_string(n));
    p = Plan();
    int slot = 0;
    // A and B alike: a constant array (rows x cols untransposed, stored transposed when `trans`),
    // or the next input blob as a matrix
    auto operand = [&](bool constant, bool trans, int rows, int cols, const std::vector<float>& data, const char* what,
                       MatView& v) -> Status {
        if (constant) {
            v.rows = trans ? cols : rows;
            v.cols = trans ? rows : cols;
            v.data = data.data();
            v.row_stride = v.cols;
            return Status::ok();
        }
        NF_RETURN_IF_ERROR(blob_matrix(shapes[slot], what, v.rows, v.cols));
        if (mats) {
            const Mat& m = (*mats)[slot];
            v.data = m.data;
            v.row_stride = m.dims == 3 ? m.cstep : (size_t)m.w;
        }
        slot++;
        return Status::ok();
    };
    NF_RETURN_IF_ERROR(operand(constantA, transA, constantM, constantK, A_data, "A", p.A0));
    NF_RETURN_IF_ERROR(operand(constantB, transB, constantK, constantN, B_data, "B", p.B0));
    p.M = transA ? p.A0.cols : p.A0.rows;
    int KA = transA ? p.A0.rows : p.A0.cols;
    p.N = transB ? p.B0.rows : p.B0.cols;
    int KB = transB ? p.B0.cols : p.B0.rows;
    if (KA != KB)
        return shape_mismatch("Gemm inner dimensions differ: A' is " + std::to_string(p.M) + "x" + std::to_string(KA) +
                              ", B' is " + std::to_string(KB) + "x" + std::to_string(p.N));
    p.K = KA;

    if (constantC) {
        if (constant_broadcast_type_C != -1) {
            p.has_C = true;
            p.broadcast_type_C = constant_broadcast_type_C;
            p.C = C_data.data();
            if ((p.broadcast_type_C == 1 || p.broadcast_type_C == 2 || p.broadcast_type_C == 3) && constantM != p.M)
                return shape_mismatch("constant C is laid out for M=" + std::to_string(constantM) + ", the product has M=" +
                                      std::to_string(p.M));
            if ((p.broadcast_type_C == 3 || p.broadcast_type_C == 4) && constantN != p.N)
                return shape_mismatch("constant C is laid out for N=" + std::to_string(constantN) + ", the product has N=" +
                                      std::to_string(p.N));
        }
    } else if (slot < n) {
        const Shape& c = shapes[slot];
        int t = -1;
        if (c.dims == 1 && c.w == 1)
            t = 0;
        if (c.dims == 1 && c.w == p.M)
            t = 1;
        if (c.dims == 1 && c.w == p.N)
            t = 4;
        if (c.dims == 2 && c.w == 1 && c.h == p.M)
            t = 2;
        if (c.dims == 2 && c.w == p.N && c.h == p.M)
            t = 3;
        if (c.dims == 2 && c.w == p.N && c.h == 1)
            t = 4;
        if (t < 0)
            return shape_mismatch("Gemm C " + c.str() + " does not broadcast to the " + std::to_string(p.M) + "x" +
                                  std::to_string(p.N) + " product (ncnn takes [1], [M], [N], [M,1], [M,N] or [1,N])");
        p.has_C = true;
        p.broadcast_type_C = t;
        if (mats)
            p.C = (*mats)[slot].data;
    }

    if (output_transpose)
        p.out = output_N1M ? Shape::d3(p.M, 1, p.N) : Shape::d2(p.M, p.N);
    else
        p.out = output_N1M ? Shape::d3(p.N, 1, p.M) : Shape::d2(p.N, p.M);
    return Status::ok();
}

Status Gemm::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    Plan p;
    NF_RETURN_IF_ERROR(plan(bottoms, nullptr, p));
    tops.assign(1, p.out);
    return Status::ok();
}

Status Gemm::forward_plan(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt, Plan& p) const {
    std::vector<Shape> shapes;
    for (auto& m : bottoms) {
        if (m.elempack != 1)
            return internal_error("Gemm needs planar (elempack 1) inputs");
        shapes.push_back(m.shape());
    }
    NF_RETURN_IF_ERROR(plan(shapes, &bottoms, p));
    if (tops.size() != 1)
        return internal_error("Gemm produces one output");
    return tops[0].create(p.out, opt.blob_allocator);
}

Status Gemm::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    Plan p;
    NF_RETURN_IF_ERROR(forward_plan(bottoms, tops, opt, p));
    Mat& top = tops[0];
    // output row stride: w for [rows, w] and for the dense N1M layout [rows, 1, w] alike
    const size_t out_hstep = (size_t)p.out.w;
    for (int i = 0; i < p.M; i++) {
        for (int j = 0; j < p.N; j++) {
            float sum = 0.f;
            if (p.has_C) {
                switch (p.broadcast_type_C) {
                case 0: sum = p.C[0]; break;
                case 1: case 2: sum = p.C[i]; break;
                case 3: sum = p.C[(size_t)i * p.N + j]; break;
                default: sum = p.C[j]; break;
                }
                sum *= beta;
            }
            for (int k = 0; k < p.K; k++) {
                float a = transA ? p.A0.data[(size_t)k * p.A0.row_stride + i] : p.A0.data[(size_t)i * p.A0.row_stride + k];
                float b = transB ? p.B0.data[(size_t)j * p.B0.row_stride + k] : p.B0.data[(size_t)k * p.B0.row_stride + j];
                sum += a * b;
            }
            sum *= alpha;
            if (output_transpose)
                top.data[(size_t)j * out_hstep + i] = sum;
            else
                top.data[(size_t)i * out_hstep + j] = sum;
        }
        if (opt.cancel && *opt.cancel)
            return Status(ErrorCode::Cancelled, "cancelled");
    }
    return Status::ok();
}

NF_DEFINE_LAYER(Gemm)

}  // namespace nnfold
