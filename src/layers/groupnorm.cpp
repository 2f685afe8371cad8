// GroupNorm (ncnn src/layer/groupnorm.cpp). Params: 0 group (1), 1 channels (0), 2 eps (0.001),
// 3 affine (1). Weights when affine: gamma_data [channels], beta_data [channels], raw fp32 without
// a tag (ModelBin type 1).
// The channels (ncnn's channel axis: 1D per element, 2D per row, 3D/4D per channel) are split
// into `group` consecutive groups of channels / group; each group is normalized over all its
// values, in ncnn's order:
//   mean = sum(x) / n,  var = sum((x - mean)^2) / n,
//   per channel k: a = gamma[k] / sqrt(var + eps) (1 / sqrt(var + eps) without affine),
//   b = -mean * a + beta[k],  y = x * a + b.
// channels must be a multiple of group (ncnn would leave the remainder unnormalized) and the input
// must have exactly `channels` channels.
#include <cmath>

#include "layers/norm_common.h"

namespace nnfold {

class GroupNorm : public AffineNormLayer {
public:
    int group = 1;
    int channels = 0;

    NF_PARAM_TABLE(GroupNorm,
                   NF_PARAM(0, group),
                   NF_PARAM(1, channels),
                   NF_PARAM(2, eps),
                   NF_PARAM(3, affine))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (group <= 0)
            return invalid_model("GroupNorm group (param 0) must be at least 1, got " + std::to_string(group));
        if (channels <= 0)
            return invalid_model("GroupNorm channels (param 1) must be at least 1, got " + std::to_string(channels));
        if (channels % group != 0)
            return invalid_model("GroupNorm channels (param 1) " + std::to_string(channels) +
                                 " is not a multiple of group (param 0) " + std::to_string(group));
        return Status::ok();
    }

protected:
    int gamma_count() const override { return channels; }
    Status check(const Shape& s) const override { return check_channel_count(s, "GroupNorm", channels, "channels"); }

public:
    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("GroupNorm reference forward needs elempack 1");
        NF_RETURN_IF_ERROR(check(m.shape()));
        if (affine && !weights.loaded(channels))
            return internal_error("GroupNorm: weights not loaded");
        const ChannelSlices cs = channel_slices(m.shape());
        const size_t per_group = (size_t)(channels / group);
        const size_t n = per_group * cs.size;  // values in one group
        for (int g = 0; g < group; g++) {
            float* base = m.data + (size_t)g * n;
            const MeanVar s = mean_var(base, n);
            for (size_t k = 0; k < per_group; k++) {
                const size_t q = (size_t)g * per_group + k;
                float a, b;
                if (affine)
                    norm_coeffs(s, eps, &weights.gamma_data[q], &weights.beta_data[q], a, b);
                else
                    norm_coeffs(s, eps, nullptr, nullptr, a, b);
                scale_shift(base + k * cs.size, cs.size, a, b);
            }
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(GroupNorm)

}  // namespace nnfold
