// Softmax of one row in place: p[i] = e^(p[i] - max) / sum_j e^(p[j] - max), with the kernels' exp
// (kernels/activation.h exp_fast, within ~2 ulp of std::exp). The max and the sum run over four
// interleaved lanes (element i in lane i % 4 of the whole vectors), combined as (l0 + l2) +
// (l1 + l3), then the tail in order; the scalar twin sums in exactly that order, so both agree bit
// for bit. Against a reference that sums left to right the result differs by reordering only
// (CONVENTIONS section 3: 1e-4). Then every value is divided by the sum, as ncnn does.
#pragma once

#include <cstddef>

#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

#define NNFOLD_SOFTMAX_KERNELS(X) X(void, f32_softmax_inplace, (float* p, size_t n), (p, n))
NNFOLD_SOFTMAX_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
