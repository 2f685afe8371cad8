// GELU: declared in a header for a SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/layer.h"

namespace nnfold {

class GELU : public Layer {
public:
    GELU() {
        one_blob_only = true;
        support_inplace = true;
    }
    int fast_gelu = 0;

    Status load_param(const ParamDict& pd) override;
    Status forward_inplace(Mat& m, const Option& opt) const override;
};

}  // namespace nnfold
