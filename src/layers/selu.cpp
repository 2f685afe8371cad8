// SELU (ncnn src/layer/selu.cpp): y = x < 0 ? (exp(x) - 1) * alpha * lambda : x * lambda.
// Params: 0 alpha (1.67326324), 1 lambda (1.050700987). ncnn multiplies by the precomputed
// product alpha * lambda (one rounding), and so does nnfold.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class SELU : public Layer {
public:
    SELU() {
        one_blob_only = true;
        support_inplace = true;
    }
    float alpha = 1.67326324f;
    float lambda = 1.050700987f;

    Status load_param(const ParamDict& pd) override {
        alpha = pd.get_float(0, 1.67326324f);
        lambda = pd.get_float(1, 1.050700987f);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        const float alphaxlambda = alpha * lambda;
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++) {
            if (p[i] < 0.f)
                p[i] = (std::exp(p[i]) - 1.f) * alphaxlambda;
            else
                p[i] *= lambda;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(SELU,
                {0, "alpha", ParamType::Float, pfloat(1.67326324f)},
                {1, "lambda", ParamType::Float, pfloat(1.050700987f)})

}  // namespace nnfold
