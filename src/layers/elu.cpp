// ELU (ncnn src/layer/elu.cpp): y = x < 0 ? alpha * (exp(x) - 1) : x. Param 0 alpha (0.1, ncnn's
// default; ONNX's default 1.0 is written explicitly by converters).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class ELU : public UnaryLayer<ELU> {
public:
    float alpha = 0.1f;
    NF_PARAM_TABLE(ELU, NF_PARAM(0, alpha))

    float apply(float x) const { return x < 0.f ? alpha * (std::exp(x) - 1.f) : x; }
};

NF_DEFINE_LAYER(ELU)

}  // namespace nnfold
