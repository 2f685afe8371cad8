// Erf (ncnn src/layer/erf.cpp): y = erf(x), elementwise on any blob (ONNX Erf). No params.
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Erf : public UnaryLayer<Erf> {
public:
    float apply(float x) const { return std::erf(x); }
};

NF_DEFINE_LAYER(Erf)

}  // namespace nnfold
