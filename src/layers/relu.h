// ReLU (ncnn src/layer/relu.cpp): y = x > 0 ? x : x * slope (param 0, default 0 = plain ReLU).
// With slope 0 a negative x gives +0 (ncnn's plain-ReLU branch), not x * 0 = -0.
// Declared in a header for an optimized subclass (src/layers/wasm/relu_fast.cpp).
#pragma once

#include "layers/unary_layer.h"

namespace nnfold {

class ReLU : public UnaryLayer<ReLU> {
public:
    float slope = 0.f;
    NF_PARAM_TABLE(ReLU, NF_PARAM(0, slope))

    float apply(float x) const {
        if (x < 0.f)
            return slope == 0.f ? 0.f : x * slope;
        return x;
    }
};

}  // namespace nnfold
