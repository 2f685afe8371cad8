// Swish (ncnn src/layer/swish.cpp): y = x / (1 + exp(-x)) (SiLU; ncnn's converters fuse
// x * sigmoid(x) into it), in float as ncnn computes it. No params.
// Declared in a header for an optimized subclass (src/layers/wasm/swish_fast.cpp).
#pragma once

#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Swish : public UnaryLayer<Swish> {
public:
    float apply(float x) const { return x / (1.f + std::exp(-x)); }
};

}  // namespace nnfold
