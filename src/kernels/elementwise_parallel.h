// Elementwise kernels (activations, binary ops) run over a range split across threads
// (core/parallel.h). Pieces start at multiples of kRangeBlock floats, a multiple of every SIMD
// kernel's step (4, or 8 for the unrolled loops): each piece's vector loop covers whole vectors
// only and the scalar tail stays where a single call would put it (the last count % 4 values), so
// every value goes through the same code path, and gets the same bits, at any thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/parallel.h"
#include "kernels/activation.h"
#include "kernels/binary.h"

namespace nnfold {
namespace kernels {

constexpr size_t kRangeBlock = 64;

// fn(offset, count) over [0, n) in block-aligned pieces; cost_per_item as parallel_grain's.
template <class F>
void parallel_range(size_t n, int64_t cost_per_item, F&& fn) {
    if (n == 0)
        return;
    const int64_t blocks = static_cast<int64_t>((n + kRangeBlock - 1) / kRangeBlock);
    parallel_for(blocks, parallel_grain(cost_per_item * static_cast<int64_t>(kRangeBlock)),
                 [&](int64_t b, int64_t e) {
                     const size_t off = static_cast<size_t>(b) * kRangeBlock;
                     const size_t end = std::min(n, static_cast<size_t>(e) * kRangeBlock);
                     fn(off, end - off);
                 });
}

// Cost per value: a few operations, or an exp (~20) for the transcendental activations.
inline int64_t act_cost(const ActParams& a) { return a.type >= 4 ? 24 : 2; }

inline void f32_act_inplace_parallel(float* p, size_t n, const ActParams& a) {
    if (a.type == 0)
        return;
    parallel_range(n, act_cost(a), [&](size_t off, size_t count) { f32_act_inplace(p + off, count, a); });
}

inline void f32_add_act_inplace_parallel(float* y, const float* r, size_t n, const ActParams& a) {
    parallel_range(n, 1 + act_cost(a),
                   [&](size_t off, size_t count) { f32_add_act_inplace(y + off, r + off, count, a); });
}

inline void f32_hardsigmoid_inplace_parallel(float* p, size_t n, const HardSigmoidParams& h) {
    parallel_range(n, 2, [&](size_t off, size_t count) { f32_hardsigmoid_inplace(p + off, count, h); });
}

inline void f32_gelu_inplace_parallel(float* p, size_t n, bool tanh_form) {
    parallel_range(n, 30, [&](size_t off, size_t count) { f32_gelu_inplace(p + off, count, tanh_form); });
}

inline void f32_swish_inplace_parallel(float* p, size_t n) {
    parallel_range(n, 24, [&](size_t off, size_t count) { f32_swish_inplace(p + off, count); });
}

// f32_binary with sa/sb 0 (a broadcast scalar, same pointer for every piece) or 1 (dense).
inline void f32_binary_parallel(BinaryKind op, const float* a, int sa, const float* b, int sb, float* out, size_t n) {
    parallel_range(n, 1, [&](size_t off, size_t count) {
        f32_binary(op, sa ? a + off : a, sa, sb ? b + off : b, sb, out + off, count);
    });
}

inline void f32_axpby_parallel(const float* a, float ca, const float* b, float cb, float* out, size_t n) {
    parallel_range(n, 2, [&](size_t off, size_t count) { f32_axpby(a + off, ca, b + off, cb, out + off, count); });
}

}  // namespace kernels
}  // namespace nnfold
