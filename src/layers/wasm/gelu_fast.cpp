// GELU_fast: GELU (layers/gelu.cpp), both of ncnn's forms, with the kernels' exp and an erf
// polynomial (kernels/activation.h f32_gelu_inplace): within 1e-6 of the reference relative to the
// largest output (docs/numbers.md allows 1e-4).
#include "kernels/activation.h"
#include "layers/gelu.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class GELU_fast : public GELU {
public:
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (m.elempack != 1)
            return GELU::forward_inplace(m, opt);
        kernels::f32_gelu_inplace(m.data, m.total_floats(), fast_gelu != 0);
        return Status::ok();
    }
};

NF_DEFINE_OPTIMIZED_LAYER(GELU, GELU_fast)

}  // namespace nnfold
