// HardSwish (ncnn src/layer/hardswish.cpp): y = x * clamp(x * alpha + beta, 0, 1).
// Params: 0 alpha (1/6 in ncnn's source; its operators.md says 0.2, the code wins), 1 beta (0.5).
// ncnn precomputes the breakpoints lower = -beta / alpha, upper = 1 / alpha + lower and tests
// x < lower -> 0, x > upper -> x, else x * (x * alpha + beta); nnfold does the same so that the
// results match bit for bit (alpha = 0 makes the breakpoints infinite/NaN and every x takes the
// middle branch, y = x * beta, as in ncnn).
// Declared in a header for an optimized subclass (src/layers/wasm/hardswish_fast.cpp).
#pragma once

#include "layers/unary_layer.h"

namespace nnfold {

class HardSwish : public HardUnaryLayer<HardSwish> {
public:
    HardSwish() : HardUnaryLayer<HardSwish>(1.f / 6) {}
    NF_PARAM_TABLE(HardSwish, NF_PARAM(0, alpha), NF_PARAM(1, beta))

    float apply(float x) const {
        if (x < lower)
            return 0.f;
        if (x > upper)
            return x;
        return x * (x * alpha + beta);
    }
};

}  // namespace nnfold
