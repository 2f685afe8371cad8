// Swish (ncnn src/layer/swish.cpp): y = x / (1 + exp(-x)) (SiLU; ncnn's converters fuse
// x * sigmoid(x) into it), in float as ncnn computes it. No params.
#include "layers/swish.h"

#include <cmath>

namespace nnfold {

Status Swish::forward_inplace(Mat& m, const Option&) const {
    float* p = m.data;
    const size_t n = m.total_floats();
    for (size_t i = 0; i < n; i++)
        p[i] = p[i] / (1.f + std::exp(-p[i]));
    return Status::ok();
}

NF_DEFINE_LAYER(Swish)

}  // namespace nnfold
