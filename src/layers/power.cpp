// Power (ncnn src/layer/power.cpp): y = pow(shift + x * scale, power).
// Params: 0 power (1), 1 scale (1), 2 shift (0).
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class Power : public Layer {
public:
    Power() {
        one_blob_only = true;
        support_inplace = true;
    }
    float power = 1.f, scale = 1.f, shift = 0.f;

    Status load_param(const ParamDict& pd) override {
        power = pd.get_float(0, 1.f);
        scale = pd.get_float(1, 1.f);
        shift = pd.get_float(2, 0.f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] = std::pow(shift + p[i] * scale, power);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Power,
                {0, "power", ParamType::Float, pfloat(1.f)},
                {1, "scale", ParamType::Float, pfloat(1.f)},
                {2, "shift", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
