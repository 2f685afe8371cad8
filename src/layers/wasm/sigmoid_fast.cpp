// Sigmoid_fast: Sigmoid (layers/sigmoid.h) as the kernels' fused sigmoid (activation type 4,
// kernels/activation.h): 1 / (1 + e^-x) with exp_fast, the input clamped to +-88.376 as ncnn's
// fused sigmoid does (beyond that the reference's value is 0 or 1 to within 1e-38).
#include "kernels/activation.h"
#include "kernels/elementwise_parallel.h"
#include "layers/sigmoid.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

static void sigmoid_kernel(const Sigmoid&, float* p, size_t n) {
    kernels::f32_act_inplace_parallel(p, n, kernels::make_act(4, 0.f, 0.f));
}
using Sigmoid_fast = UnaryFast<Sigmoid, sigmoid_kernel>;

NF_DEFINE_OPTIMIZED_LAYER(Sigmoid, Sigmoid_fast)

}  // namespace nnfold
