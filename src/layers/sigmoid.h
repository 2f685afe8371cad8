// Sigmoid: declared in a header for an optimized subclass (src/layers/wasm/sigmoid_fast.cpp).
#pragma once

#include "layers/layer.h"

namespace nnfold {

class Sigmoid : public Layer {
public:
    Sigmoid() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option& opt) const override;
};

}  // namespace nnfold
