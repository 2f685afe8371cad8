// Exp (ncnn src/layer/exp.cpp): params 0 base (-1), 1 scale (1), 2 shift (0).
//   base == -1:  y = exp(shift + x * scale)
//   otherwise:   y = pow(base, shift + x * scale)
// base == -1 is ncnn's marker for e (an exact float comparison, as in ncnn).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Exp : public UnaryLayer<Exp> {
public:
    float base = -1.f;
    ScaleShift arg;

    Status load_param(const ParamDict& pd) override {
        base = pd.get_float(0, -1.f);
        arg.load(pd);
        return Status::ok();
    }
    float apply(float x) const { return base == -1.f ? std::exp(arg(x)) : std::pow(base, arg(x)); }
};

NF_DEFINE_LAYER(Exp,
                {0, "base", ParamType::Float, pfloat(-1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
