// Eltwise: declared in a header for a SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/param_table.h"

namespace nnfold {

class Eltwise : public Layer {
public:
    Eltwise() {
        one_blob_only = false;
        support_inplace = false;
    }

    enum { kProd = 0, kSum = 1, kMax = 2 };
    int op_type = kProd;
    std::vector<float> coeffs;  // SUM only; empty = plain sum

    NF_PARAM_TABLE(Eltwise, NF_PARAM(0, op_type), NF_PARAM(1, coeffs))

    Status load_param(const ParamDict& pd) override;
    int expected_tops() const override { return 1; }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    using Layer::forward;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;

protected:
    // Same checks as infer_shape, on the input shapes.
    Status check(const std::vector<Shape>& bottoms) const;
};

}  // namespace nnfold
