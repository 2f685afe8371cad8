// BNLL (ncnn src/layer/bnll.cpp): softplus, y = log(1 + exp(x)), in ncnn's overflow-safe split:
//   x > 0:  y = x + log(1 + exp(-x))
//   else:   y = log(1 + exp(x))
// (ncnn's operators.md writes the x > 0 branch without the leading x; the code has it.) No params.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class BNLL : public Layer {
public:
    BNLL() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++) {
            if (p[i] > 0.f)
                p[i] = p[i] + std::log(1.f + std::exp(-p[i]));
            else
                p[i] = std::log(1.f + std::exp(p[i]));
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(BNLL)

}  // namespace nnfold
