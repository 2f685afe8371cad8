// Exp (ncnn src/layer/exp.cpp): params 0 base (-1), 1 scale (1), 2 shift (0).
//   base == -1:  y = exp(shift + x * scale)
//   otherwise:   y = pow(base, shift + x * scale)
// base == -1 is ncnn's marker for e (an exact float comparison, as in ncnn).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Exp : public UnaryLayer<Exp> {
public:
    float base = -1.f, scale = 1.f, shift = 0.f;
    NF_PARAM_TABLE(Exp, NF_PARAM(0, base), NF_PARAM(1, scale), NF_PARAM(2, shift))

    float apply(float x) const {
        const float a = shift + x * scale;
        return base == -1.f ? std::exp(a) : std::pow(base, a);
    }
};

NF_DEFINE_LAYER(Exp)

}  // namespace nnfold
