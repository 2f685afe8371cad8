// ReLU (ncnn src/layer/relu.cpp): y = x > 0 ? x : x * slope (param 0, default 0 = plain ReLU).
#include "layers/layer.h"

namespace nnfold {

class ReLU : public Layer {
public:
    ReLU() {
        one_blob_only = true;
        support_inplace = true;
    }
    float slope = 0.f;

    Status load_param(const ParamDict& pd) override {
        slope = pd.get_float(0, 0.f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        size_t n = m.total_floats();
        if (slope == 0.f) {
            for (size_t i = 0; i < n; i++)
                p[i] = p[i] < 0.f ? 0.f : p[i];
        } else {
            for (size_t i = 0; i < n; i++)
                p[i] = p[i] < 0.f ? p[i] * slope : p[i];
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(ReLU, {0, "slope", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
