// Threshold (ncnn src/layer/threshold.cpp): y = x > threshold ? 1 : 0. Param 0 threshold (0).
#include "layers/unary_layer.h"

namespace nnfold {

class Threshold : public UnaryLayer<Threshold> {
public:
    float threshold = 0.f;
    NF_PARAM_TABLE(Threshold, NF_PARAM(0, threshold))

    float apply(float x) const { return x > threshold ? 1.f : 0.f; }
};

NF_DEFINE_LAYER(Threshold)

}  // namespace nnfold
