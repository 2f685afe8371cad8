// TanH (ncnn src/layer/tanh.cpp): y = tanh(x). No params.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class TanH : public Layer {
public:
    TanH() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] = std::tanh(p[i]);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(TanH)

}  // namespace nnfold
