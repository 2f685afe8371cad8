// Elementwise binary arithmetic over arrays, one operand possibly a broadcast scalar: the inner
// loop of BinaryOp (with ncnn's broadcasting reduced to contiguous runs by the layer) and of
// Eltwise. out[i] = op(a[i * sa], b[i * sb]) for i in [0, n), sa and sb each 0 (the same value for
// every i: a broadcast scalar) or 1 (a dense run). out may alias a or b (in place).
//
// The ops are single IEEE operations (add, sub, mul, div) or a comparison-select (max, min with
// std::max / std::min semantics: max(x, y) = x < y ? y : x, min(x, y) = y < x ? y : x, which is
// what f32x4.pmax / f32x4.pmin compute), so the SIMD kernel, its scalar twin and the reference
// layer agree bit for bit. The reversed BinaryOp forms (rsub, rdiv) are the same ops with the
// operands swapped by the caller.
#pragma once

#include <cstddef>

#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

enum class BinaryKind { Add, Sub, Mul, Div, Max, Min };

#define NNFOLD_BINARY_KERNELS(X)                                                                              \
    X(void, f32_binary, (BinaryKind op, const float* a, int sa, const float* b, int sb, float* out, size_t n), \
      (op, a, sa, b, sb, out, n))
NNFOLD_BINARY_KERNELS(NF_KERNEL_DECLARE)

// out[i] = a[i] * ca + b[i] * cb (Eltwise's weighted sum, two rounded products and a rounded sum,
// as the reference computes po[i] += p[i] * c after po[i] = p0[i] * c0).
#define NNFOLD_AXPBY_KERNELS(X)                                                                   \
    X(void, f32_axpby, (const float* a, float ca, const float* b, float cb, float* out, size_t n), \
      (a, ca, b, cb, out, n))
NNFOLD_AXPBY_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
