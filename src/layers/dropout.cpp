// Dropout (ncnn src/layer/dropout.cpp): inference-time identity scaled by param 0 (default 1).
#include "layers/unary_layer.h"

namespace nnfold {

class Dropout : public UnaryLayer<Dropout> {
public:
    float scale = 1.f;
    NF_PARAM_TABLE(Dropout, NF_PARAM(0, scale))

    // scale 1 leaves the blob untouched (as ncnn does), not even multiplied by 1.
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (scale == 1.f)
            return Status::ok();
        return UnaryLayer<Dropout>::forward_inplace(m, opt);
    }
    float apply(float x) const { return x * scale; }
};

NF_DEFINE_LAYER(Dropout)

}  // namespace nnfold
