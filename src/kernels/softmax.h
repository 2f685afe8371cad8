// Softmax of one row in place: p[i] = e^(p[i] - max) / sum_j e^(p[j] - max), with the kernels' exp
// (kernels/activation.h exp_fast, within ~2 ulp of std::exp). The max and the sum run over four
// interleaved lanes (element i in lane i % 4 of the whole vectors), combined as (l0 + l2) +
// (l1 + l3), then the tail in order; the scalar twin sums in exactly that order, so both agree bit
// for bit. Against a reference that sums left to right the result differs by reordering only
// (docs/numbers.md: 1e-4). Then every value is divided by the sum, as ncnn does.
#pragma once

#include <cstddef>

#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

#define NNFOLD_SOFTMAX_KERNELS(X) X(void, f32_softmax_inplace, (float* p, size_t n), (p, n))

// Softmax down `count` (1..4) adjacent columns in place: column j holds p[j + k * stride] for k in
// [0, len) (a softmax along c or h of a dense blob: stride = the inner extent). Each column's max,
// exps and sum run over k in increasing order, as the reference layer does, with exp_fast; four
// columns (count 4) go through one f32x4 per k, fewer through the scalar form, and both give the
// same bits per column.
#define NNFOLD_SOFTMAX_COLUMN_KERNELS(X)                                                            \
    X(void, f32_softmax_columns, (float* p, size_t len, size_t stride, int count), (p, len, stride, count))
NNFOLD_SOFTMAX_KERNELS(NF_KERNEL_DECLARE)
NNFOLD_SOFTMAX_COLUMN_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
