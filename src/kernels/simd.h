// SIMD-128 helpers for the kernels in src/kernels/wasm/ (compiled only when NNFOLD_SIMD is set).
//
// Under Emscripten these are WebAssembly SIMD-128 instructions (<wasm_simd128.h>, -msimd128).
// Natively the same intrinsics come from SIMDe (<simde/wasm/simd128.h>, mapped onto SSE4.1), so
// the kernels are unit-tested natively and under ASan/UBSan exactly as they run in wasm.
//
// Conventions every kernel follows:
//   - madd(a, b, c) is c + a * b as TWO rounded operations: SIMD-128 has no fused multiply-add
//     (relaxed SIMD is not available in Emscripten 3.1.6) and the scalar twins are compiled with
//     -ffp-contract=off, so a SIMD kernel and its scalar twin give bit-identical results whenever
//     they sum in the same order.
//   - Loads never read past the last element the computation needs (no reliance on the
//     allocator's tail padding): blobs may be caller-owned memory (Mat::external).
#pragma once

#if NNFOLD_SIMD
#if NNFOLD_SIMDE
#include <simde/wasm/simd128.h>
#else
#include <wasm_simd128.h>
#endif

#include <cstring>

namespace nnfold {
namespace simd {

static inline v128_t load(const float* p) { return wasm_v128_load(p); }
static inline void store(float* p, v128_t v) { wasm_v128_store(p, v); }
static inline v128_t splat(float x) { return wasm_f32x4_splat(x); }
// One float from memory broadcast to all lanes (a single v128.load32_splat).
static inline v128_t load_splat(const float* p) { return wasm_v128_load32_splat(p); }
static inline v128_t zero() { return wasm_f32x4_splat(0.f); }
static inline v128_t add(v128_t a, v128_t b) { return wasm_f32x4_add(a, b); }
static inline v128_t sub(v128_t a, v128_t b) { return wasm_f32x4_sub(a, b); }
static inline v128_t mul(v128_t a, v128_t b) { return wasm_f32x4_mul(a, b); }
// c + a * b, two roundings (see above).
static inline v128_t madd(v128_t a, v128_t b, v128_t c) { return wasm_f32x4_add(c, wasm_f32x4_mul(a, b)); }
// max/min with the semantics of std::max(a, b) / std::min(a, b) on each lane (b when a < b / b < a).
static inline v128_t max(v128_t a, v128_t b) { return wasm_f32x4_pmax(a, b); }
static inline v128_t min(v128_t a, v128_t b) { return wasm_f32x4_pmin(a, b); }
// mask ? a : b per lane (mask lanes all-ones or all-zeros)
static inline v128_t select(v128_t mask, v128_t a, v128_t b) { return wasm_v128_bitselect(a, b, mask); }

// The first n (0..4) floats of p, zeros after; reads exactly n floats.
static inline v128_t load_partial(const float* p, int n) {
    float t[4] = {0.f, 0.f, 0.f, 0.f};
    std::memcpy(t, p, sizeof(float) * (size_t)n);
    return wasm_v128_load(t);
}
// Writes the first n (0..4) lanes of v to p.
static inline void store_partial(float* p, v128_t v, int n) {
    float t[4];
    wasm_v128_store(t, v);
    std::memcpy(p, t, sizeof(float) * (size_t)n);
}
// (v0 + v2) + (v1 + v3): the order the scalar twins use for a horizontal sum.
static inline float hsum(v128_t v) {
    v128_t t = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 1);
}

// In-place 4x4 transpose: on return r0 holds the first lanes of the inputs, r1 the second, ...
static inline void transpose4(v128_t& r0, v128_t& r1, v128_t& r2, v128_t& r3) {
    const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);
    const v128_t t1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
    const v128_t t2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
    const v128_t t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
    r0 = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
    r1 = wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7);
    r2 = wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5);
    r3 = wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7);
}

}  // namespace simd
}  // namespace nnfold
#endif  // NNFOLD_SIMD
