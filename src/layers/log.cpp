// Log (ncnn src/layer/log.cpp): params 0 base (-1), 1 scale (1), 2 shift (0).
//   base == -1:  y = log(shift + x * scale)
//   otherwise:   y = log(shift + x * scale) * (1 / log(base))
// ncnn multiplies by the precomputed reciprocal of log(base); so does nnfold. Non-positive
// arguments give -inf / NaN exactly as in ncnn (no error: the values are data).
#include <cmath>

#include "layers/unary_layer.h"

namespace nnfold {

class Log : public UnaryLayer<Log> {
public:
    float base = -1.f, scale = 1.f, shift = 0.f;
    NF_PARAM_TABLE(Log, NF_PARAM(0, base), NF_PARAM(1, scale), NF_PARAM(2, shift))
    float log_base_inv = 1.f;  // 1 / log(base), unused for base == -1

    Status load_param(const ParamDict& pd) override {
        NF_RETURN_IF_ERROR(UnaryLayer<Log>::load_param(pd));
        log_base_inv = base == -1.f ? 1.f : 1.f / std::log(base);
        return Status::ok();
    }
    float apply(float x) const {
        const float y = std::log(shift + x * scale);
        return base == -1.f ? y : y * log_base_inv;
    }
};

NF_DEFINE_LAYER(Log)

}  // namespace nnfold
