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

}  // namespace kernels
}  // namespace nnfold
