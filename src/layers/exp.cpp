// Exp (ncnn src/layer/exp.cpp): params 0 base (-1), 1 scale (1), 2 shift (0).
//   base == -1:  y = exp(shift + x * scale)
//   otherwise:   y = pow(base, shift + x * scale)
// base == -1 is ncnn's marker for e (an exact float comparison, as in ncnn).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Exp : public UnaryLayer<Exp> {
public:
    FloatParam base{0, -1.f}, scale{1, 1.f}, shift{2, 0.f};
    auto params() { return std::tie(base, scale, shift); }

    float apply(float x) const {
        const float a = shift + x * scale;
        return base == -1.f ? std::exp(a) : std::pow(base.value, a);
    }
};

NF_DEFINE_LAYER(Exp,
                {0, "base", ParamType::Float, pfloat(-1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
