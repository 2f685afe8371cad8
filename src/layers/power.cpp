// Power (ncnn src/layer/power.cpp): y = pow(shift + x * scale, power).
// Params: 0 power (1), 1 scale (1), 2 shift (0).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Power : public UnaryLayer<Power> {
public:
    float power = 1.f, scale = 1.f, shift = 0.f;
    NF_PARAM_TABLE(Power, NF_PARAM(0, power), NF_PARAM(1, scale), NF_PARAM(2, shift))

    float apply(float x) const { return std::pow(shift + x * scale, power); }
};

NF_DEFINE_LAYER(Power)

}  // namespace nnfold
