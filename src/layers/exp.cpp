// Exp (ncnn src/layer/exp.cpp): params 0 base (-1), 1 scale (1), 2 shift (0).
//   base == -1:  y = exp(shift + x * scale)
//   otherwise:   y = pow(base, shift + x * scale)
// base == -1 is ncnn's marker for e (an exact float comparison, as in ncnn).
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class Exp : public Layer {
public:
    Exp() {
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
                p[i] = std::exp(shift + p[i] * scale);
        } else {
            for (size_t i = 0; i < n; i++)
                p[i] = std::pow(base, shift + p[i] * scale);
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Exp,
                {0, "base", ParamType::Float, pfloat(-1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
