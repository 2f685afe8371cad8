// Log (ncnn src/layer/log.cpp): params 0 base (-1), 1 scale (1), 2 shift (0).
//   base == -1:  y = log(shift + x * scale)
//   otherwise:   y = log(shift + x * scale) * (1 / log(base))
// ncnn multiplies by the precomputed reciprocal of log(base); so does nnfold. Non-positive
// arguments give -inf / NaN exactly as in ncnn (no error: the values are data).
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class Log : public Layer {
public:
    Log() {
        one_blob_only = true;
        support_inplace = true;
    }
    float base = -1.f, scale = 1.f, shift = 0.f;

    Status load_param(const ParamDict& pd) override {
        base = pd.get_float(0, -1.f);
        scale = pd.get_float(1, 1.f);
        shift = pd.get_float(2, 0.f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        if (base == -1.f) {
            for (size_t i = 0; i < n; i++)
                p[i] = std::log(shift + p[i] * scale);
        } else {
            const float log_base_inv = 1.f / std::log(base);
            for (size_t i = 0; i < n; i++)
                p[i] = std::log(shift + p[i] * scale) * log_base_inv;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Log,
                {0, "base", ParamType::Float, pfloat(-1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
