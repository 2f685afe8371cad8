// In-place activation over an array, scalar twin (wasm/activation_wasmsimd.cpp is the SIMD form).
#include "kernels/activation.h"

namespace nnfold {
namespace kernels {

void f32_act_inplace__scalar(float* p, size_t n, const ActParams& a) { act_scalar(p, n, a); }

}  // namespace kernels
}  // namespace nnfold
