// ELU (ncnn src/layer/elu.cpp): y = x < 0 ? alpha * (exp(x) - 1) : x. Param 0 alpha (0.1, ncnn's
// default; ONNX's default 1.0 is written explicitly by converters).
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class ELU : public Layer {
public:
    ELU() {
        one_blob_only = true;
        support_inplace = true;
    }
    float alpha = 0.1f;

    Status load_param(const ParamDict& pd) override {
        alpha = pd.get_float(0, 0.1f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            if (p[i] < 0.f)
                p[i] = alpha * (std::exp(p[i]) - 1.f);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(ELU, {0, "alpha", ParamType::Float, pfloat(0.1f)})

}  // namespace nnfold
