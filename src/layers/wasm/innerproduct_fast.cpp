// InnerProduct_fast: InnerProduct (layers/innerproduct.cpp) with the weights [num_output][num_input]
// packed once as GEMM A panels:
//   - one row (a flattened input): GEMV over the panels, four outputs per f32x4, the sum in the
//     reference's order (kernels/gemm.h f32_gemv_packed);
//   - ncnn's row-wise form (2D [h, num_input], h > 1): one GEMM, W x X^T, with B gathered from the
//     rows of X; the [num_output][h] result is transposed into the [h][num_output] output.
// Bias and activation are fused in the GEMV / GEMM stores.
#include "core/parallel.h"
#include "kernels/gemm.h"
#include "layers/innerproduct.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class InnerProduct_fast : public PackedWeightedFast<InnerProduct> {
public:
    // int8 models run on the int8 kernels (kernels/int8.h) in the SIMD builds; the baseline keeps
    // the reference loops, which compilers vectorize better than the GEMM's scalar twin (native
    // squeezenet_int8: 69 vs 86 ms)
    InnerProduct_fast() { this->int8.fast = NNFOLD_SIMD != 0; }

protected:
    Status pack() override;
    Status forward_packed(const Mat& bottom, Mat& top, const Option& opt) const override;

private:
    std::vector<float> packed_;
};

Status InnerProduct_fast::pack() {
    const int n = num_input();
    NF_RETURN_IF_ERROR(fast_pack_a(packed_, num_output, n, weight_data.data(), (size_t)n, 1));
    fast_release(weight_data);
    return Status::ok();
}

Status InnerProduct_fast::forward_packed(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os));
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int n = num_input();
    const float* bias = bias_term ? bias_data.data() : nullptr;
    const kernels::ActParams act = fast_act(activation);
    if (os.dims == 1) {
        kernels::f32_gemv_packed_parallel(num_output, n, packed_.data(), bottom.data, bias, act, top.data);
        return Status::ok();
    }
    const int rows = os.h;
    kernels::GemmB b;
    b.kind = kernels::GemmB::Strided;
    b.data = bottom.data;  // B[k][r] = X[r][k]
    b.rs = 1;
    b.cs = (size_t)n;
    const size_t c_floats = (size_t)num_output * rows;
    const int parts = kernels::f32_gemm_parts(num_output, rows, n);
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(c_floats + kernels::f32_gemm_workspace_floats(rows, n, b.kind, parts), opt, ws));
    kernels::GemmEpilogue ep;
    ep.bias = bias;
    ep.act = act;
    kernels::f32_gemm(num_output, rows, n, packed_.data(), b, ws.data, (size_t)rows, ep, false, ws.data + c_floats,
                      parts);
    for (int r = 0; r < rows; r++)
        for (int p = 0; p < num_output; p++)
            top.data[(size_t)r * num_output + p] = ws.data[(size_t)p * rows + r];
    return fast_cancelled(opt);
}

NF_DEFINE_OPTIMIZED_LAYER(InnerProduct, InnerProduct_fast)

}  // namespace nnfold
