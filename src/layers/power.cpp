// Power (ncnn src/layer/power.cpp): y = pow(shift + x * scale, power).
// Params: 0 power (1), 1 scale (1), 2 shift (0).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Power : public UnaryLayer<Power> {
public:
    FloatParam power{0, 1.f}, scale{1, 1.f}, shift{2, 0.f};
    auto params() { return std::tie(power, scale, shift); }

    float apply(float x) const { return std::pow(shift + x * scale, power.value); }
};

NF_DEFINE_LAYER(Power,
                {0, "power", ParamType::Float, pfloat(1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
