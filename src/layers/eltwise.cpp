// Eltwise (ncnn src/layer/eltwise.cpp). Params: 0 op_type (0: prod, 1: sum, 2: max),
// 1 coeffs (float array, sum only). N inputs of one shape, one output of that shape:
//   prod: y = x0 * x1 * ... ;  max: y = max(max(x0, x1), x2) ... ;
//   sum:  y = x0 + x1 + ...  or, with coeffs, y = x0 * c0 + x1 * c1 + ...
// accumulated left to right in float as ncnn does ((x0 * c0 + x1 * c1) + x2 * c2 ...).
// ncnn reads bottom_blobs[1] unconditionally and never compares shapes; nnfold requires every
// input to have the first one's shape (a clear error otherwise), at least as many coeffs as
// inputs when coeffs are given (ncnn would read past them; extra coeffs are ignored as there), and
// accepts a single input (y = x0, or x0 * c0), the natural value of the reduction.
#include "layers/eltwise.h"

#include <algorithm>

namespace nnfold {

Status Eltwise::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    if (op_type != kProd && op_type != kSum && op_type != kMax)
        return invalid_model("Eltwise op_type (param 0) must be 0 (prod), 1 (sum) or 2 (max), got " +
                             std::to_string(op_type));
    return Status::ok();
}

Status Eltwise::check(const std::vector<Shape>& bottoms) const {
    if (bottoms.empty())
        return shape_mismatch("Eltwise needs at least one input");
    for (size_t i = 1; i < bottoms.size(); i++)
        if (bottoms[i] != bottoms[0])
            return shape_mismatch("Eltwise inputs must have one shape: input 0 is " + bottoms[0].str() + ", input " +
                                  std::to_string(i) + " is " + bottoms[i].str());
    if (op_type == kSum && !coeffs.empty() && coeffs.size() < bottoms.size())
        return shape_mismatch("Eltwise has " + std::to_string(coeffs.size()) + " coeffs (param 1) for " +
                              std::to_string(bottoms.size()) + " inputs");
    return Status::ok();
}

Status Eltwise::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    NF_RETURN_IF_ERROR(check(bottoms));
    tops.assign(1, bottoms[0]);
    return Status::ok();
}

Status Eltwise::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    if (tops.size() != 1)
        return internal_error("Eltwise produces one output");
    std::vector<Shape> shapes;
    for (const Mat& m : bottoms) {
        if (m.elempack != 1)
            return internal_error("Eltwise reference forward needs elempack 1");
        shapes.push_back(m.shape());
    }
    NF_RETURN_IF_ERROR(check(shapes));
    Mat out;
    NF_RETURN_IF_ERROR(out.create(shapes[0], opt.blob_allocator));
    const size_t n = out.total_floats();
    float* po = out.data;
    const float* p0 = bottoms[0].data;
    const bool weighted = op_type == kSum && !coeffs.empty();
    if (weighted) {
        const float c0 = coeffs[0];
        for (size_t i = 0; i < n; i++)
            po[i] = p0[i] * c0;
    } else {
        std::copy(p0, p0 + n, po);
    }
    for (size_t k = 1; k < bottoms.size(); k++) {
        const float* p = bottoms[k].data;
        switch (op_type) {
        case kProd:
            for (size_t i = 0; i < n; i++)
                po[i] *= p[i];
            break;
        case kSum:
            if (weighted) {
                const float c = coeffs[k];
                for (size_t i = 0; i < n; i++)
                    po[i] += p[i] * c;
            } else {
                for (size_t i = 0; i < n; i++)
                    po[i] += p[i];
            }
            break;
        default:
            for (size_t i = 0; i < n; i++)
                po[i] = std::max(po[i], p[i]);
            break;
        }
    }
    tops[0] = out;
    return Status::ok();
}

NF_DEFINE_LAYER(Eltwise)

}  // namespace nnfold
