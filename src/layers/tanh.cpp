// TanH (ncnn src/layer/tanh.cpp): y = tanh(x). No params.
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class TanH : public UnaryLayer<TanH> {
public:
    float apply(float x) const { return std::tanh(x); }
};

NF_DEFINE_LAYER(TanH)

}  // namespace nnfold
