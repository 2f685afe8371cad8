// AbsVal (ncnn src/layer/absval.cpp): y = x < 0 ? -x : x (ncnn's test, so -0.0 and NaN pass
// through unchanged). No params.
#include "layers/layer.h"

namespace nnfold {

class AbsVal : public Layer {
public:
    AbsVal() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            if (p[i] < 0.f)
                p[i] = -p[i];
        return Status::ok();
    }
};

NF_DEFINE_LAYER(AbsVal)

}  // namespace nnfold
