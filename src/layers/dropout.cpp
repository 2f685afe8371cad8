// Dropout (ncnn src/layer/dropout.cpp): inference-time identity scaled by param 0 (default 1).
#include "layers/layer.h"

namespace nnfold {

class Dropout : public Layer {
public:
    Dropout() {
        one_blob_only = true;
        support_inplace = true;
    }
    float scale = 1.f;

    Status load_param(const ParamDict& pd) override {
        scale = pd.get_float(0, 1.f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        if (scale == 1.f)
            return Status::ok();
        float* p = m.data;
        size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] *= scale;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Dropout, {0, "scale", ParamType::Float, pfloat(1.f)})

}  // namespace nnfold
