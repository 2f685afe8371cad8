// GELU (ncnn src/layer/gelu.cpp). Param 0 fast_gelu (0; any non-zero value selects the tanh form,
// as ncnn tests `if (fast_gelu)`):
//   exact:  y = 0.5 * x * erfc(-x / sqrt(2))                      (x * P(X <= x), X ~ N(0, 1))
//   fast:   y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
// with ncnn's float constants 0.70710678 and 0.79788452 and its evaluation order.
#include "layers/gelu.h"

#include <cmath>

namespace nnfold {

Status GELU::load_param(const ParamDict& pd) {
    fast_gelu = pd.get_int(0, 0);
    return Status::ok();
}

Status GELU::forward_inplace(Mat& m, const Option&) const {
    float* p = m.data;
    const size_t n = m.total_floats();
    if (fast_gelu) {
        for (size_t i = 0; i < n; i++) {
            const float x = p[i];
            p[i] = 0.5f * x * (1.0f + std::tanh(0.79788452f * (x + 0.044715f * x * x * x)));
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            const float x = p[i];
            p[i] = 0.5f * x * std::erfc(-0.70710678f * x);
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(GELU, {0, "fast_gelu", ParamType::Int, pint(0)})

}  // namespace nnfold
