// HardSigmoid_fast: HardSigmoid (layers/hardsigmoid.h) with kernels::f32_hardsigmoid_inplace (the
// layer's breakpoints and operations, four values per f32x4), over ranges: the reference's bits.
#include "kernels/elementwise_parallel.h"
#include "layers/hardsigmoid.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

static void hardsigmoid_kernel(const HardSigmoid& l, float* p, size_t n) {
    kernels::HardSigmoidParams h;
    h.alpha = l.alpha;
    h.beta = l.beta;
    h.lower = l.lower;
    h.upper = l.upper;
    kernels::f32_hardsigmoid_inplace_parallel(p, n, h);
}
using HardSigmoid_fast = UnaryFast<HardSigmoid, hardsigmoid_kernel>;

NF_DEFINE_OPTIMIZED_LAYER(HardSigmoid, HardSigmoid_fast)

}  // namespace nnfold
