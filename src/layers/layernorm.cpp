// LayerNorm (ncnn src/layer/layernorm.cpp). Params: 0 affine_size, 1 eps (0.001f), 2 affine (1).
// Weights when affine: gamma_data [affine_size], beta_data [affine_size] (raw fp32).
// Normalized groups: 1D the whole vector, 2D each row, 3D each row when affine_size == w, else each
// channel (h*w values). Per group: mean, var = mean((x - mean)^2), a = 1 / sqrt(var + eps),
// y = (x * a - mean * a) * gamma + beta, computed in ncnn's order.
#include <cmath>

#include "core/parallel.h"
#include "layers/norm_common.h"

namespace nnfold {

class LayerNorm : public AffineNormLayer {
public:
    int affine_size = 0;

    NF_PARAM_TABLE(LayerNorm,
                   NF_PARAM(0, affine_size),
                   NF_PARAM(1, eps),
                   NF_PARAM(2, affine))
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return check_count_affine(affine_size, "affine_size");
    }
    int gamma_count() const override { return affine_size; }

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
    Status check(const Shape& s) const override {
        int n;
        return group_size(s, n);
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        int n;
        NF_RETURN_IF_ERROR(group_size(m.shape(), n));
        const size_t groups = m.total_floats() / n;
        const bool aff = affine && !weights.gamma_data.empty();
        const float* gamma = weights.gamma_data.data();
        const float* beta = weights.beta_data.data();
        // threads: whole groups (each group's mean and variance on one thread, in order)
        parallel_for((int64_t)groups, parallel_grain((int64_t)n * 4), [&](int64_t g0, int64_t g1) {
            for (int64_t g = g0; g < g1; g++) {
                float* ptr = m.data + g * n;
                float a, b;
                norm_coeffs(mean_var(ptr, n), eps, nullptr, nullptr, a, b);
                if (aff)
                    for (int i = 0; i < n; i++)
                        ptr[i] = (ptr[i] * a + b) * gamma[i] + beta[i];
                else
                    scale_shift(ptr, (size_t)n, a, b);
            }
        });
        return Status::ok();
    }
};

NF_DEFINE_LAYER(LayerNorm)

}  // namespace nnfold
