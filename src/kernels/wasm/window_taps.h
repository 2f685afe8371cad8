// Lanes of a sliding window along a row for the SIMD window kernels (depthwise convolution,
// pooling): taps[j] holds (r[S*l + j]) for lanes l = 0..3 and taps j = 0..K-1. Stride-2 lanes are
// the even/odd elements of contiguous loads. Each form reads exactly the elements the four lanes
// need (r[0] .. r[3*S + K - 1]), never past them. Internal to src/kernels/wasm/.
#pragma once

#include "kernels/simd.h"

namespace nnfold {
namespace kernels {
namespace taps {

template <int K, int S>
inline void row(const float* r, v128_t* t);

template <>
inline void row<2, 1>(const float* r, v128_t* t) {
    t[0] = simd::load(r), t[1] = simd::load(r + 1);
}
template <>
inline void row<3, 1>(const float* r, v128_t* t) {
    t[0] = simd::load(r), t[1] = simd::load(r + 1), t[2] = simd::load(r + 2);
}
template <>
inline void row<5, 1>(const float* r, v128_t* t) {
    for (int j = 0; j < 5; j++)
        t[j] = simd::load(r + j);
}
template <>
inline void row<2, 2>(const float* r, v128_t* t) {
    // elements 0..7
    const v128_t v0 = simd::load(r), v1 = simd::load(r + 4);
    t[0] = wasm_i32x4_shuffle(v0, v1, 0, 2, 4, 6);
    t[1] = wasm_i32x4_shuffle(v0, v1, 1, 3, 5, 7);
}
template <>
inline void row<3, 2>(const float* r, v128_t* t) {
    // elements 0..8
    const v128_t v0 = simd::load(r), v1 = simd::load(r + 4), v2 = wasm_v128_load32_zero(r + 8);
    t[0] = wasm_i32x4_shuffle(v0, v1, 0, 2, 4, 6);
    t[1] = wasm_i32x4_shuffle(v0, v1, 1, 3, 5, 7);
    t[2] = wasm_i32x4_shuffle(t[0], v2, 1, 2, 3, 4);
}
template <>
inline void row<5, 2>(const float* r, v128_t* t) {
    // elements 0..10
    const v128_t v0 = simd::load(r), v1 = simd::load(r + 4);
    const v128_t v2 = wasm_v128_load64_zero(r + 8), v3 = wasm_v128_load32_zero(r + 10);
    t[0] = wasm_i32x4_shuffle(v0, v1, 0, 2, 4, 6);
    t[1] = wasm_i32x4_shuffle(v0, v1, 1, 3, 5, 7);
    t[2] = wasm_i32x4_shuffle(t[0], v2, 1, 2, 3, 4);
    t[3] = wasm_i32x4_shuffle(t[1], v2, 1, 2, 3, 5);
    t[4] = wasm_i32x4_shuffle(t[2], v3, 1, 2, 3, 4);
}

}  // namespace taps
}  // namespace kernels
}  // namespace nnfold
