// Eltwise_fast: Eltwise (layers/eltwise.cpp) through kernels/binary.h. The reference copies (or
// scales) input 0 into the output and then folds in each further input; here the first fold reads
// input 0 directly (out = op(x0, x1), or x0 * c0 + x1 * c1), which saves a pass over memory and
// computes the same roundings in the same order, so the results are bit-identical.
#include "kernels/binary.h"
#include "kernels/elementwise_parallel.h"
#include "layers/eltwise.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Eltwise_fast : public Eltwise {
public:
    using Eltwise::forward;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
};

Status Eltwise_fast::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    if (tops.size() != 1 || bottoms.size() < 2)
        return Eltwise::forward(bottoms, tops, opt);
    std::vector<Shape> shapes;
    for (const Mat& m : bottoms) {
        if (m.elempack != 1)
            return Eltwise::forward(bottoms, tops, opt);
        shapes.push_back(m.shape());
    }
    NF_RETURN_IF_ERROR(check(shapes));
    Mat out;
    NF_RETURN_IF_ERROR(out.create(shapes[0], opt.blob_allocator));
    const size_t n = out.total_floats();
    const bool weighted = op_type == kSum && !coeffs.empty();
    const kernels::BinaryKind k = op_type == kProd  ? kernels::BinaryKind::Mul
                                  : op_type == kSum ? kernels::BinaryKind::Add
                                                    : kernels::BinaryKind::Max;
    for (size_t i = 1; i < bottoms.size(); i++) {
        const float* acc = i == 1 ? bottoms[0].data : out.data;
        if (weighted)
            kernels::f32_axpby_parallel(acc, i == 1 ? coeffs[0] : 1.f, bottoms[i].data, coeffs[i], out.data, n);
        else
            kernels::f32_binary_parallel(k, acc, 1, bottoms[i].data, 1, out.data, n);
    }
    tops[0] = out;
    return Status::ok();
}

NF_DEFINE_OPTIMIZED_LAYER(Eltwise, Eltwise_fast)

}  // namespace nnfold
