// Threshold (ncnn src/layer/threshold.cpp): y = x > threshold ? 1 : 0. Param 0 threshold (0).
#include "layers/unary_layer.h"

namespace nnfold {

class Threshold : public UnaryLayer<Threshold> {
public:
    FloatParam threshold{0, 0.f};
    auto params() { return std::tie(threshold); }

    float apply(float x) const { return x > threshold ? 1.f : 0.f; }
};

NF_DEFINE_LAYER(Threshold, {0, "threshold", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
