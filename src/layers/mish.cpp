// Mish (ncnn src/layer/mish.cpp): y = x * tanh(log(exp(x) + 1)), computed literally as ncnn does
// (for x > 88.7 exp overflows, softplus becomes inf and tanh(inf) = 1, so y = x). No params.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class Mish : public Layer {
public:
    Mish() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] = p[i] * std::tanh(std::log(std::exp(p[i]) + 1.f));
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Mish)

}  // namespace nnfold
