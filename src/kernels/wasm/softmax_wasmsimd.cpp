// Softmax of a row with SIMD-128 (kernels/softmax.h): max and sum over f32x4 lanes, exp_v.
#include <cfloat>

#include "kernels/activation.h"
#include "kernels/simd.h"
#include "kernels/softmax.h"

namespace nnfold {
namespace kernels {

void f32_softmax_inplace__wasmsimd(float* p, size_t n) {
    if (n == 0)
        return;
    const size_t nv = n / 4 * 4;
    // the max is the same whatever the order (NaN aside): vector lanes, then the tail
    v128_t vm = simd::splat(-FLT_MAX);
    for (size_t i = 0; i < nv; i += 4)
        vm = simd::max(vm, simd::load(p + i));
    float lanes[4];
    simd::store(lanes, vm);
    float mx = -FLT_MAX;
    for (float x : lanes)
        mx = mx < x ? x : mx;
    for (size_t i = nv; i < n; i++)
        mx = mx < p[i] ? p[i] : mx;
    const v128_t vmx = simd::splat(mx);
    v128_t vs = simd::zero();
    for (size_t i = 0; i < nv; i += 4) {
        const v128_t e = exp_v(simd::sub(simd::load(p + i), vmx));
        simd::store(p + i, e);
        vs = simd::add(vs, e);
    }
    float sum = simd::hsum(vs);
    for (size_t i = nv; i < n; i++) {
        p[i] = exp_fast(p[i] - mx);
        sum += p[i];
    }
    const v128_t vsum = simd::splat(sum);
    size_t i = 0;
    for (; i < nv; i += 4)
        simd::store(p + i, wasm_f32x4_div(simd::load(p + i), vsum));
    for (; i < n; i++)
        p[i] /= sum;
}

void f32_softmax_columns__wasmsimd(float* p, size_t len, size_t stride, int count) {
    if (count != 4) {
        f32_softmax_columns__scalar(p, len, stride, count);
        return;
    }
    // lane j is column j: the scalar twin's operations per column, four columns at once
    v128_t mx = simd::splat(-FLT_MAX);
    for (size_t k = 0; k < len; k++)
        mx = simd::max(mx, simd::load(p + k * stride));
    v128_t sum = simd::zero();
    for (size_t k = 0; k < len; k++) {
        const v128_t e = exp_v(simd::sub(simd::load(p + k * stride), mx));
        simd::store(p + k * stride, e);
        sum = simd::add(sum, e);
    }
    for (size_t k = 0; k < len; k++)
        simd::store(p + k * stride, wasm_f32x4_div(simd::load(p + k * stride), sum));
}

}  // namespace kernels
}  // namespace nnfold
