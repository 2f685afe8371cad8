// Clip (ncnn src/layer/clip.cpp): y = clamp(x, min, max), params 0 min (-FLT_MAX), 1 max (FLT_MAX).
// ncnn's order: first x < min -> min, then x > max -> max, so min > max yields max everywhere and
// NaN passes through unchanged (both comparisons are false).
// Declared in a header for an optimized subclass (src/layers/wasm/clip_fast.cpp).
#pragma once

#include <cfloat>

#include "layers/unary_layer.h"

namespace nnfold {

class Clip : public UnaryLayer<Clip> {
public:
    float min = -FLT_MAX, max = FLT_MAX;
    NF_PARAM_TABLE(Clip, NF_PARAM(0, min), NF_PARAM(1, max))

    float apply(float x) const {
        if (x < min)
            x = min;
        if (x > max)
            x = max;
        return x;
    }
};

}  // namespace nnfold
