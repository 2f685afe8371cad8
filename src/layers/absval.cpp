// AbsVal (ncnn src/layer/absval.cpp): y = x < 0 ? -x : x (ncnn's test, so -0.0 and NaN pass
// through unchanged). No params.
#include "layers/unary_layer.h"

namespace nnfold {

class AbsVal : public UnaryLayer<AbsVal> {
public:
    float apply(float x) const { return x < 0.f ? -x : x; }
};

NF_DEFINE_LAYER(AbsVal)

}  // namespace nnfold
