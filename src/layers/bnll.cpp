// BNLL (ncnn src/layer/bnll.cpp): softplus, y = log(1 + exp(x)), in ncnn's overflow-safe split:
//   x > 0:  y = x + log(1 + exp(-x))
//   else:   y = log(1 + exp(x))
// (ncnn's operators.md writes the x > 0 branch without the leading x; the code has it.) No params.
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class BNLL : public UnaryLayer<BNLL> {
public:
    float apply(float x) const {
        if (x > 0.f)
            return x + std::log(1.f + std::exp(-x));
        return std::log(1.f + std::exp(x));
    }
};

NF_DEFINE_LAYER(BNLL)

}  // namespace nnfold
