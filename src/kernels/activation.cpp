// In-place activation over an array, scalar twin (wasm/activation_wasmsimd.cpp is the SIMD form).
#include "kernels/activation.h"

namespace nnfold {
namespace kernels {

void f32_act_inplace__scalar(float* p, size_t n, const ActParams& a) { act_scalar(p, n, a); }

void f32_add_act_inplace__scalar(float* y, const float* r, size_t n, const ActParams& a) {
    for (size_t i = 0; i < n; i++)
        y[i] = act_scalar(y[i] + r[i], a);
}

void f32_hardsigmoid_inplace__scalar(float* p, size_t n, const HardSigmoidParams& h) {
    for (size_t i = 0; i < n; i++)
        p[i] = hardsigmoid_scalar(p[i], h);
}

void f32_gelu_inplace__scalar(float* p, size_t n, bool tanh_form) {
    for (size_t i = 0; i < n; i++)
        p[i] = gelu_scalar(p[i], tanh_form);
}

void f32_swish_inplace__scalar(float* p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = swish_scalar(p[i]);
}

}  // namespace kernels
}  // namespace nnfold
