// Sigmoid (ncnn src/layer/sigmoid.cpp): y = 1 / (1 + exp(-x)), in float as ncnn computes it
// (exp(-x) overflows to inf for x < -88.7 and y becomes exactly 0, as in ncnn). No params.
// Declared in a header for an optimized subclass (src/layers/wasm/sigmoid_fast.cpp).
#pragma once

#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Sigmoid : public UnaryLayer<Sigmoid> {
public:
    float apply(float x) const { return 1.f / (1.f + std::exp(-x)); }
};

}  // namespace nnfold
