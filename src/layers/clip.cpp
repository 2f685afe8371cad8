// Clip (ncnn src/layer/clip.cpp): y = clamp(x, min, max), params 0 min (-FLT_MAX), 1 max (FLT_MAX).
// ncnn's order: first x < min -> min, then x > max -> max, so min > max yields max everywhere and
// NaN passes through unchanged (both comparisons are false).
#include <cfloat>

#include "layers/unary_layer.h"

namespace nnfold {

class Clip : public UnaryLayer<Clip> {
public:
    FloatParam min{0, -FLT_MAX}, max{1, FLT_MAX};
    auto params() { return std::tie(min, max); }

    float apply(float x) const {
        if (x < min)
            x = min.value;
        if (x > max)
            x = max.value;
        return x;
    }
};

NF_DEFINE_LAYER(Clip,
                {0, "min", ParamType::Float, pfloat(-FLT_MAX)},
                {1, "max", ParamType::Float, pfloat(FLT_MAX)})

}  // namespace nnfold
