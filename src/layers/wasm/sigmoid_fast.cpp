// Sigmoid_fast: Sigmoid (layers/sigmoid.cpp) as the kernels' fused sigmoid (activation type 4,
// kernels/activation.h): 1 / (1 + e^-x) with exp_fast, the input clamped to +-88.376 as ncnn's
// fused sigmoid does (beyond that the reference's value is 0 or 1 to within 1e-38).
#include "kernels/activation.h"
#include "layers/sigmoid.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Sigmoid_fast : public Sigmoid {
public:
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (m.elempack != 1)
            return Sigmoid::forward_inplace(m, opt);
        kernels::f32_act_inplace(m.data, m.total_floats(), kernels::make_act(4, 0.f, 0.f));
        return Status::ok();
    }
};

NF_DEFINE_OPTIMIZED_LAYER(Sigmoid, Sigmoid_fast)

}  // namespace nnfold
