// Power (ncnn src/layer/power.cpp): y = pow(shift + x * scale, power).
// Params: 0 power (1), 1 scale (1), 2 shift (0).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Power : public UnaryLayer<Power> {
public:
    float power = 1.f;
    ScaleShift arg;

    Status load_param(const ParamDict& pd) override {
        power = pd.get_float(0, 1.f);
        arg.load(pd);
        return Status::ok();
    }
    float apply(float x) const { return std::pow(arg(x), power); }
};

NF_DEFINE_LAYER(Power,
                {0, "power", ParamType::Float, pfloat(1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
