// Swish_fast: Swish (layers/swish.h), y = x / (1 + e^-x), with the kernels' exp
// (kernels/activation.h f32_swish_inplace: f32x4 in the SIMD build, its scalar twin otherwise).
#include "kernels/activation.h"
#include "kernels/elementwise_parallel.h"
#include "layers/swish.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

static void swish_kernel(const Swish&, float* p, size_t n) { kernels::f32_swish_inplace_parallel(p, n); }
using Swish_fast = UnaryFast<Swish, swish_kernel>;

NF_DEFINE_OPTIMIZED_LAYER(Swish, Swish_fast)

}  // namespace nnfold
