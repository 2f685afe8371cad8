// Threshold (ncnn src/layer/threshold.cpp): y = x > threshold ? 1 : 0. Param 0 threshold (0).
#include "layers/layer.h"

namespace nnfold {

class Threshold : public Layer {
public:
    Threshold() {
        one_blob_only = true;
        support_inplace = true;
    }
    float threshold = 0.f;

    Status load_param(const ParamDict& pd) override {
        threshold = pd.get_float(0, 0.f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] = p[i] > threshold ? 1.f : 0.f;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Threshold, {0, "threshold", ParamType::Float, pfloat(0.f)})

}  // namespace nnfold
