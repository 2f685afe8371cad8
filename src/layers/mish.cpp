// Mish (ncnn src/layer/mish.cpp): y = x * tanh(log(exp(x) + 1)), computed literally as ncnn does
// (for x > 88.7 exp overflows, softplus becomes inf and tanh(inf) = 1, so y = x). No params.
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Mish : public UnaryLayer<Mish> {
public:
    float apply(float x) const { return x * std::tanh(std::log(std::exp(x) + 1.f)); }
};

NF_DEFINE_LAYER(Mish)

}  // namespace nnfold
