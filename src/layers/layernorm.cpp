// LayerNorm (ncnn src/layer/layernorm.cpp). Params: 0 affine_size, 1 eps (0.001f), 2 affine (1).
// Weights when affine: gamma_data [affine_size], beta_data [affine_size] (raw fp32).
// Normalized groups: 1D the whole vector, 2D each row, 3D each row when affine_size == w, else each
// channel (h*w values). Per group: mean, var = mean((x - mean)^2), a = 1 / sqrt(var + eps),
// y = (x * a - mean * a) * gamma + beta, computed in ncnn's order.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class LayerNorm : public Layer {
public:
    LayerNorm() {
        one_blob_only = true;
        support_inplace = true;
    }
    int affine_size = 0;
    float eps = 0.001f;
    int affine = 1;
    std::vector<float> gamma_data, beta_data;

    Status load_param(const ParamDict& pd) override {
        affine_size = pd.get_int(0, 0);
        eps = pd.get_float(1, 0.001f);
        affine = pd.get_int(2, 1);
        if (affine_size < 0 || (affine && affine_size == 0))
            return invalid_model("affine_size (param 0) must be positive when affine (param 2) is set, got " +
                                 std::to_string(affine_size));
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        if (affine) {
            specs.push_back({"gamma_data", (uint64_t)affine_size, false, WeightRole::Gamma, 1});
            specs.push_back({"beta_data", (uint64_t)affine_size, false, WeightRole::Beta, 1});
        }
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        if (affine) {
            if (w.size() < 2)
                return internal_error("LayerNorm: missing gamma/beta");
            gamma_data = w[0].data;
            beta_data = w[1].data;
        }
        return Status::ok();
    }

    // Size of one normalized group for this input, or an error.
    Status group_size(const Shape& s, int& n) const {
        if (s.dims == 1 || s.dims == 2)
            n = s.w;
        else if (s.dims == 3)
            n = affine_size == s.w ? s.w : s.w * s.h;
        else
            return shape_mismatch("LayerNorm needs a 1D, 2D or 3D input, got " + s.str());
        if (affine && n != affine_size)
            return shape_mismatch("LayerNorm affine_size " + std::to_string(affine_size) + " matches neither w nor h*w of input " +
                                  s.str());
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        int n;
        return group_size(bottoms[0], n);
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        int n;
        NF_RETURN_IF_ERROR(group_size(m.shape(), n));
        const size_t groups = m.total_floats() / n;
        const bool aff = affine && !gamma_data.empty();
        for (size_t g = 0; g < groups; g++) {
            float* ptr = m.data + g * n;
            float sum = 0.f;
            for (int i = 0; i < n; i++)
                sum += ptr[i];
            float mean = sum / n;
            float sqsum = 0.f;
            for (int i = 0; i < n; i++) {
                float t = ptr[i] - mean;
                sqsum += t * t;
            }
            float var = sqsum / n;
            float a = 1.f / std::sqrt(var + eps);
            float b = -mean * a;
            if (aff)
                for (int i = 0; i < n; i++)
                    ptr[i] = (ptr[i] * a + b) * gamma_data[i] + beta_data[i];
            else
                for (int i = 0; i < n; i++)
                    ptr[i] = ptr[i] * a + b;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(LayerNorm,
                {0, "affine_size", ParamType::Int, pint(0)},
                {1, "eps", ParamType::Float, pfloat(0.001f)},
                {2, "affine", ParamType::Int, pint(1)})

}  // namespace nnfold
