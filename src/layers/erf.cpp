// Erf (ncnn src/layer/erf.cpp): y = erf(x), elementwise on any blob (ONNX Erf). No params.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class Erf : public Layer {
public:
    Erf() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] = std::erf(p[i]);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Erf)

}  // namespace nnfold
