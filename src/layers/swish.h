// Swish: declared in a header for a SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/layer.h"

namespace nnfold {

class Swish : public Layer {
public:
    Swish() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option& opt) const override;
};

}  // namespace nnfold
