// GELU_fast: GELU (layers/gelu.h), both of ncnn's forms, with the kernels' exp and an erf
// polynomial (kernels/activation.h f32_gelu_inplace): within 1e-6 of the reference relative to the
// largest output (docs/numbers.md allows 1e-4).
#include "kernels/activation.h"
#include "kernels/elementwise_parallel.h"
#include "layers/gelu.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

static void gelu_kernel(const GELU& l, float* p, size_t n) { kernels::f32_gelu_inplace_parallel(p, n, l.fast_gelu != 0); }
using GELU_fast = UnaryFast<GELU, gelu_kernel>;

NF_DEFINE_OPTIMIZED_LAYER(GELU, GELU_fast)

}  // namespace nnfold
