// In-place activation over an array with SIMD-128, four values per f32x4, the tail in scalar
// (the same operations as act_scalar, lane for lane).
#include "kernels/activation.h"

namespace nnfold {
namespace kernels {

void f32_act_inplace__wasmsimd(float* p, size_t n, const ActParams& a) {
    if (a.type == 0)
        return;
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        simd::store(p + i, act_v(simd::load(p + i), a));
    for (; i < n; i++)
        p[i] = act_scalar(p[i], a);
}

void f32_add_act_inplace__wasmsimd(float* y, const float* r, size_t n, const ActParams& a) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const v128_t v0 = act_v(simd::add(simd::load(y + i), simd::load(r + i)), a);
        const v128_t v1 = act_v(simd::add(simd::load(y + i + 4), simd::load(r + i + 4)), a);
        simd::store(y + i, v0);
        simd::store(y + i + 4, v1);
    }
    for (; i + 4 <= n; i += 4)
        simd::store(y + i, act_v(simd::add(simd::load(y + i), simd::load(r + i)), a));
    for (; i < n; i++)
        y[i] = act_scalar(y[i] + r[i], a);
}

void f32_hardsigmoid_inplace__wasmsimd(float* p, size_t n, const HardSigmoidParams& h) {
    const v128_t alpha = simd::splat(h.alpha), beta = simd::splat(h.beta), lower = simd::splat(h.lower),
                 upper = simd::splat(h.upper), one = simd::splat(1.f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const v128_t x = simd::load(p + i);
        const v128_t r = simd::add(simd::mul(x, alpha), beta);
        const v128_t hi = simd::select(wasm_f32x4_gt(x, upper), one, r);
        simd::store(p + i, simd::select(wasm_f32x4_lt(x, lower), simd::zero(), hi));
    }
    for (; i < n; i++)
        p[i] = hardsigmoid_scalar(p[i], h);
}

void f32_gelu_inplace__wasmsimd(float* p, size_t n, bool tanh_form) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        simd::store(p + i, gelu_v(simd::load(p + i), tanh_form));
    for (; i < n; i++)
        p[i] = gelu_scalar(p[i], tanh_form);
}

void f32_swish_inplace__wasmsimd(float* p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {  // two independent f32x4 chains (exp's polynomial is serial)
        const v128_t a = swish_v(simd::load(p + i)), b = swish_v(simd::load(p + i + 4));
        simd::store(p + i, a);
        simd::store(p + i + 4, b);
    }
    for (; i + 4 <= n; i += 4)
        simd::store(p + i, swish_v(simd::load(p + i)));
    for (; i < n; i++)
        p[i] = swish_scalar(p[i]);
}

}  // namespace kernels
}  // namespace nnfold
