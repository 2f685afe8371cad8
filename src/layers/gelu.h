// GELU (ncnn src/layer/gelu.cpp). Param 0 fast_gelu (0; any non-zero value selects the tanh form,
// as ncnn tests `if (fast_gelu)`):
//   exact:  y = 0.5 * x * erfc(-x / sqrt(2))                      (x * P(X <= x), X ~ N(0, 1))
//   fast:   y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
// with ncnn's float constants 0.70710678 and 0.79788452 and its evaluation order.
// Declared in a header for an optimized subclass (src/layers/wasm/gelu_fast.cpp).
#pragma once

#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class GELU : public UnaryLayer<GELU> {
public:
    int fast_gelu = 0;
    NF_PARAM_TABLE(GELU, NF_PARAM(0, fast_gelu))

    float apply(float x) const {
        if (fast_gelu)
            return 0.5f * x * (1.0f + std::tanh(0.79788452f * (x + 0.044715f * x * x * x)));
        return 0.5f * x * std::erfc(-0.70710678f * x);
    }
};

}  // namespace nnfold
