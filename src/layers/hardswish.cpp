// HardSwish (ncnn src/layer/hardswish.cpp): y = x * clamp(x * alpha + beta, 0, 1).
// Params: 0 alpha (1/6 in ncnn's source; its operators.md says 0.2, the code wins), 1 beta (0.5).
// ncnn precomputes the breakpoints lower = -beta / alpha, upper = 1 / alpha + lower and tests
// x < lower -> 0, x > upper -> x, else x * (x * alpha + beta); nnfold does the same so that the
// results match bit for bit (alpha = 0 makes the breakpoints infinite/NaN and every x takes the
// middle branch, y = x * beta, as in ncnn).
#include "layers/unary_layer.h"

namespace nnfold {

class HardSwish : public UnaryLayer<HardSwish> {
public:
    HardBreakpoints k{1.f / 6};

    Status load_param(const ParamDict& pd) override {
        k.load(pd, 1.f / 6);
        return Status::ok();
    }
    float apply(float x) const {
        if (x < k.lower)
            return 0.f;
        if (x > k.upper)
            return x;
        return x * (x * k.alpha + k.beta);
    }
};

NF_DEFINE_LAYER(HardSwish,
                {0, "alpha", ParamType::Float, pfloat(1.f / 6)},
                {1, "beta", ParamType::Float, pfloat(0.5f)})

}  // namespace nnfold
