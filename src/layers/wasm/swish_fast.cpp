// Swish_fast: Swish (layers/swish.cpp), y = x / (1 + e^-x), with the kernels' exp
// (kernels/activation.h f32_swish_inplace: f32x4 in the SIMD build, its scalar twin otherwise).
#include "kernels/activation.h"
#include "layers/swish.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Swish_fast : public Swish {
public:
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (m.elempack != 1)
            return Swish::forward_inplace(m, opt);
        kernels::f32_swish_inplace(m.data, m.total_floats());
        return Status::ok();
    }
};

NF_DEFINE_OPTIMIZED_LAYER(Swish, Swish_fast)

}  // namespace nnfold
