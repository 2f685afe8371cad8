// HardSigmoid (ncnn src/layer/hardsigmoid.cpp): y = clamp(x * alpha + beta, 0, 1).
// Params: 0 alpha (0.2), 1 beta (0.5). ncnn's breakpoints lower = -beta / alpha,
// upper = 1 / alpha + lower: x < lower -> 0, x > upper -> 1, else x * alpha + beta (kept exactly).
#include "layers/unary_layer.h"

namespace nnfold {

class HardSigmoid : public UnaryLayer<HardSigmoid> {
public:
    HardBreakpoints k{0.2f};

    Status load_param(const ParamDict& pd) override {
        k.load(pd, 0.2f);
        return Status::ok();
    }
    float apply(float x) const {
        if (x < k.lower)
            return 0.f;
        if (x > k.upper)
            return 1.f;
        return x * k.alpha + k.beta;
    }
};

NF_DEFINE_LAYER(HardSigmoid,
                {0, "alpha", ParamType::Float, pfloat(0.2f)},
                {1, "beta", ParamType::Float, pfloat(0.5f)})

}  // namespace nnfold
