// Clip (ncnn src/layer/clip.cpp): y = clamp(x, min, max), params 0 min (-FLT_MAX), 1 max (FLT_MAX).
// ncnn's order: first x < min -> min, then x > max -> max, so min > max yields max everywhere and
// NaN passes through unchanged (both comparisons are false).
#include <cfloat>

#include "layers/layer.h"

namespace nnfold {

class Clip : public Layer {
public:
    Clip() {
        one_blob_only = true;
        support_inplace = true;
    }
    float min = -FLT_MAX;
    float max = FLT_MAX;

    Status load_param(const ParamDict& pd) override {
        min = pd.get_float(0, -FLT_MAX);
        max = pd.get_float(1, FLT_MAX);
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++) {
            float v = p[i];
            if (v < min)
                v = min;
            if (v > max)
                v = max;
            p[i] = v;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Clip,
                {0, "min", ParamType::Float, pfloat(-FLT_MAX)},
                {1, "max", ParamType::Float, pfloat(FLT_MAX)})

}  // namespace nnfold
