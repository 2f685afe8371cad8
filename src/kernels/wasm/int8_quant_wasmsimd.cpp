// The int8 boundary conversions with SIMD-128 (kernels/int8_quant.h; scalar twins in
// kernels/int8_quant.cpp): i8_quantize 16 values per step, the others 4; the last few through a
// zero-padded vector (so no tail runs a different formula), float2int8 by i8simd::f2i8_i32 and the fused
// multiply-add by i8simd::fma4 (kernels/wasm/int8_simd.h).
#include <cstring>

#include "kernels/int8_quant.h"
#include "kernels/wasm/int8_simd.h"

namespace nnfold {
namespace kernels {

namespace {

// [0, n) in steps: f16(i) converts the 16 values from i, f4(i, k) the k (1..4) values from i (the
// last n % 4 through zero-padded scratch, with the same formula).
template <class F16, class F4>
void steps(size_t n, F16 f16, F4 f4) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        f16(i);
    for (; i + 4 <= n; i += 4)
        f4(i, (size_t)4);
    if (i < n)
        f4(i, n - i);
}

inline v128_t load4(const float* p, size_t k) { return k == 4 ? wasm_v128_load(p) : simd::load_partial(p, (int)k); }

// k (1..4) codes of the i32 lanes of c at p.
inline void store_codes4(int8_t* p, v128_t c, size_t k) {
    const v128_t c8 = wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(c, c), wasm_i16x8_narrow_i32x4(c, c));
    if (k == 4) {
        wasm_v128_store32_lane(p, c8, 0);
    } else {
        int8_t t[16];
        wasm_v128_store(t, c8);
        std::memcpy(p, t, k);
    }
}

}  // namespace

void i8_quantize__wasmsimd(const float* src, size_t n, float scale, int8_t* dst) {
    const v128_t sc = wasm_f32x4_splat(scale);
    auto q = [&](const float* p) { return i8simd::f2i8_i32(wasm_f32x4_mul(wasm_v128_load(p), sc)); };
    steps(
        n,
        [&](size_t i) {
            wasm_v128_store(dst + i, i8simd::codes16(q(src + i), q(src + i + 4), q(src + i + 8), q(src + i + 12)));
        },
        [&](size_t i, size_t k) {
            store_codes4(dst + i, i8simd::f2i8_i32(wasm_f32x4_mul(load4(src + i, k), sc)), k);
        });
}

void i8_dequantize__wasmsimd(const float* src, size_t n, float scale, const float* bias, float* dst) {
    // 4 values a step only (Dequantize layers are rare: ncnn2int8 writes none; less code in the .wasm)
    const v128_t sc = wasm_f32x4_splat(scale);
    const float b = bias ? *bias : 0.f;
    for (size_t i = 0; i < n; i += 4) {
        const size_t k = n - i < 4 ? n - i : 4;
        const v128_t x = load4(src + i, k);
        const v128_t v = bias ? i8simd::fma4(x, scale, b) : wasm_f32x4_mul(x, sc);
        if (k == 4)
            wasm_v128_store(dst + i, v);
        else
            simd::store_partial(dst + i, v, (int)k);
    }
}

void i8_requantize__wasmsimd(const float* src, size_t n, float scale_in, const float* bias, const ActParams& act,
                             float scale_out, int8_t* dst) {
    // 4 values a step only, as i8_dequantize
    const v128_t sc = wasm_f32x4_splat(scale_in), so = wasm_f32x4_splat(scale_out);
    const float b = bias ? *bias : 0.f;
    for (size_t i = 0; i < n; i += 4) {
        const size_t k = n - i < 4 ? n - i : 4;
        const v128_t x = load4(src + i, k);
        const v128_t v = bias ? i8simd::fma4(x, scale_in, b) : wasm_f32x4_mul(x, sc);
        store_codes4(dst + i, i8simd::f2i8_i32(wasm_f32x4_mul(i8simd::act4(v, act), so)), k);
    }
}

}  // namespace kernels
}  // namespace nnfold
