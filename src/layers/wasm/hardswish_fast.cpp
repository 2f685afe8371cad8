// HardSwish_fast: HardSwish (layers/hardswish.h) as the kernels' fused hardswish (activation type
// 6) with the layer's own breakpoints (so alpha = 0, whose breakpoints are infinite/NaN, takes the
// middle branch as the layer does), over ranges: the reference's bits.
#include "kernels/elementwise_parallel.h"
#include "layers/hardswish.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

static void hardswish_kernel(const HardSwish& l, float* p, size_t n) {
    kernels::ActParams a;
    a.type = 6;
    a.p0 = l.alpha;
    a.p1 = l.beta;
    a.lower = l.lower;
    a.upper = l.upper;
    kernels::f32_act_inplace_parallel(p, n, a);
}
using HardSwish_fast = UnaryFast<HardSwish, hardswish_kernel>;

NF_DEFINE_OPTIMIZED_LAYER(HardSwish, HardSwish_fast)

}  // namespace nnfold
