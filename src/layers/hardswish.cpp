// HardSwish (ncnn src/layer/hardswish.cpp): y = x * clamp(x * alpha + beta, 0, 1).
// Params: 0 alpha (1/6 in ncnn's source; its operators.md says 0.2, the code wins), 1 beta (0.5).
// ncnn precomputes the breakpoints lower = -beta / alpha, upper = 1 / alpha + lower and tests
// x < lower -> 0, x > upper -> x, else x * (x * alpha + beta); nnfold does the same so that the
// results match bit for bit (alpha = 0 makes the breakpoints infinite/NaN and every x takes the
// middle branch, y = x * beta, as in ncnn).
#include "layers/layer.h"

namespace nnfold {

class HardSwish : public Layer {
public:
    HardSwish() {
        one_blob_only = true;
        support_inplace = true;
    }
    float alpha = 1.f / 6, beta = 0.5f;
    float lower = -3.f, upper = 3.f;

    Status load_param(const ParamDict& pd) override {
        alpha = pd.get_float(0, 1.f / 6);
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
                p[i] = x;
            else
                p[i] = x * (x * alpha + beta);
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(HardSwish,
                {0, "alpha", ParamType::Float, pfloat(1.f / 6)},
                {1, "beta", ParamType::Float, pfloat(0.5f)})

}  // namespace nnfold
