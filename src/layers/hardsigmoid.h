// HardSigmoid (ncnn src/layer/hardsigmoid.cpp): y = clamp(x * alpha + beta, 0, 1).
// Params: 0 alpha (0.2), 1 beta (0.5). ncnn's breakpoints lower = -beta / alpha,
// upper = 1 / alpha + lower: x < lower -> 0, x > upper -> 1, else x * alpha + beta (kept exactly).
// Declared in a header for an optimized subclass (src/layers/wasm/hardsigmoid_fast.cpp).
#pragma once

#include "layers/unary_layer.h"

namespace nnfold {

class HardSigmoid : public HardUnaryLayer<HardSigmoid> {
public:
    HardSigmoid() : HardUnaryLayer<HardSigmoid>(0.2f) {}
    NF_PARAM_TABLE(HardSigmoid, NF_PARAM(0, alpha), NF_PARAM(1, beta))

    float apply(float x) const {
        if (x < lower)
            return 0.f;
        if (x > upper)
            return 1.f;
        return x * alpha + beta;
    }
};

}  // namespace nnfold
