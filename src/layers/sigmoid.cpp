// Sigmoid (ncnn src/layer/sigmoid.cpp): y = 1 / (1 + exp(-x)), in float as ncnn computes it
// (exp(-x) overflows to inf for x < -88.7 and y becomes exactly 0, as in ncnn). No params.
#include "layers/sigmoid.h"

#include <cmath>

namespace nnfold {

Status Sigmoid::forward_inplace(Mat& m, const Option&) const {
    float* p = m.data;
    const size_t n = m.total_floats();
    for (size_t i = 0; i < n; i++)
        p[i] = 1.f / (1.f + std::exp(-p[i]));
    return Status::ok();
}

NF_DEFINE_LAYER(Sigmoid)

}  // namespace nnfold
