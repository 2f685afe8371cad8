// SELU (ncnn src/layer/selu.cpp): y = x < 0 ? (exp(x) - 1) * alpha * lambda : x * lambda.
// Params: 0 alpha (1.67326324), 1 lambda (1.050700987). ncnn multiplies by the precomputed
// product alpha * lambda (one rounding), and so does nnfold.
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class SELU : public UnaryLayer<SELU> {
public:
    float alpha = 1.67326324f, lambda = 1.050700987f;
    NF_PARAM_TABLE(SELU, NF_PARAM(0, alpha), NF_PARAM(1, lambda))
    float alphaxlambda = alpha * lambda;

    Status load_param(const ParamDict& pd) override {
        NF_RETURN_IF_ERROR(UnaryLayer<SELU>::load_param(pd));
        alphaxlambda = alpha * lambda;
        return Status::ok();
    }
    float apply(float x) const { return x < 0.f ? (std::exp(x) - 1.f) * alphaxlambda : x * lambda; }
};

NF_DEFINE_LAYER(SELU)

}  // namespace nnfold
