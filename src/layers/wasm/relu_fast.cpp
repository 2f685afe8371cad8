// ReLU_fast: ReLU (layers/relu.h) as the kernels' fused ReLU (activation type 1, slope 0: v < 0 ? 0
// : v, the reference's bits) or leaky ReLU (type 2: v > 0 ? v : v * slope; the reference tests
// x < 0, so x = 0 with a negative slope gives -0 here and +0 there, equal values), over ranges.
#include "kernels/elementwise_parallel.h"
#include "layers/relu.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

static void relu_kernel(const ReLU& l, float* p, size_t n) {
    kernels::f32_act_inplace_parallel(p, n, kernels::make_act(l.slope == 0.f ? 1 : 2, l.slope, 0.f));
}
using ReLU_fast = UnaryFast<ReLU, relu_kernel>;

NF_DEFINE_OPTIMIZED_LAYER(ReLU, ReLU_fast)

}  // namespace nnfold
