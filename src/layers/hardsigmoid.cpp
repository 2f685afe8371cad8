// HardSigmoid (ncnn src/layer/hardsigmoid.cpp): y = clamp(x * alpha + beta, 0, 1).
// Params: 0 alpha (0.2), 1 beta (0.5). ncnn's breakpoints lower = -beta / alpha,
// upper = 1 / alpha + lower: x < lower -> 0, x > upper -> 1, else x * alpha + beta (kept exactly).
#include "layers/layer.h"

namespace nnfold {

class HardSigmoid : public Layer {
public:
    HardSigmoid() {
        one_blob_only = true;
        support_inplace = true;
    }
    float alpha = 0.2f, beta = 0.5f;
    float lower = -2.5f, upper = 2.5f;

    Status load_param(const ParamDict& pd) override {
        alpha = pd.get_float(0, 0.2f);
        beta = pd.get_float(1, 0.5f);
        lower = -beta / alpha;
        upper = (1.f / alpha) + lower;
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++) {
            const float x = p[i];
            if (x < lower)
                p[i] = 0.f;
            else if (x > upper)
                p[i] = 1.f;
            else
                p[i] = x * alpha + beta;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(HardSigmoid,
                {0, "alpha", ParamType::Float, pfloat(0.2f)},
                {1, "beta", ParamType::Float, pfloat(0.5f)})

}  // namespace nnfold
