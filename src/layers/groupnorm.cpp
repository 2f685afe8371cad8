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

#include "layers/channel_slices.h"
#include "layers/layer.h"

namespace nnfold {

class GroupNorm : public Layer {
public:
    GroupNorm() {
        one_blob_only = true;
        support_inplace = true;
    }
    int group = 1;
    int channels = 0;
    float eps = 0.001f;
    int affine = 1;
    std::vector<float> gamma_data, beta_data;

    Status load_param(const ParamDict& pd) override {
        group = pd.get_int(0, 1);
        channels = pd.get_int(1, 0);
        eps = pd.get_float(2, 0.001f);
        affine = pd.get_int(3, 1);
        if (group <= 0)
            return invalid_model("GroupNorm group (param 0) must be at least 1, got " + std::to_string(group));
        if (channels <= 0)
            return invalid_model("GroupNorm channels (param 1) must be at least 1, got " + std::to_string(channels));
        if (channels % group != 0)
            return invalid_model("GroupNorm channels (param 1) " + std::to_string(channels) +
                                 " is not a multiple of group (param 0) " + std::to_string(group));
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        if (affine) {
            specs.push_back({"gamma_data", (uint64_t)channels, false, WeightRole::Gamma, 1});
            specs.push_back({"beta_data", (uint64_t)channels, false, WeightRole::Beta, 1});
        }
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        if (!affine)
            return Status::ok();
        if (w.size() != 2 || w[0].data.size() != (size_t)channels || w[1].data.size() != (size_t)channels)
            return internal_error("GroupNorm: gamma/beta do not have `channels` values");
        gamma_data = w[0].data;
        beta_data = w[1].data;
        return Status::ok();
    }
    Status check(const Shape& s) const {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("GroupNorm needs a 1D-4D input, got " + s.str());
        if (channel_slices(s).count != (size_t)channels)
            return shape_mismatch("GroupNorm has " + std::to_string(channels) + " channels but input " + s.str() +
                                  " has " + std::to_string(channel_slices(s).count) + " along " + channel_axis_name(s));
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        return check(bottoms[0]);
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("GroupNorm reference forward needs elempack 1");
        NF_RETURN_IF_ERROR(check(m.shape()));
        if (affine && gamma_data.size() != (size_t)channels)
            return internal_error("GroupNorm: weights not loaded");
        const ChannelSlices cs = channel_slices(m.shape());
        const size_t per_group = (size_t)(channels / group);
        const size_t n = per_group * cs.size;  // values in one group
        for (int g = 0; g < group; g++) {
            float* base = m.data + (size_t)g * n;
            float sum = 0.f;
            for (size_t i = 0; i < n; i++)
                sum += base[i];
            const float mean = sum / n;
            float sqsum = 0.f;
            for (size_t i = 0; i < n; i++) {
                const float t = base[i] - mean;
                sqsum += t * t;
            }
            const float var = sqsum / n;
            for (size_t k = 0; k < per_group; k++) {
                const size_t q = (size_t)g * per_group + k;
                float a, b;
                if (affine) {
                    a = gamma_data[q] / std::sqrt(var + eps);
                    b = -mean * a + beta_data[q];
                } else {
                    a = 1.f / std::sqrt(var + eps);
                    b = -mean * a;
                }
                float* p = base + k * cs.size;
                for (size_t i = 0; i < cs.size; i++)
                    p[i] = p[i] * a + b;
            }
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(GroupNorm,
                {0, "group", ParamType::Int, pint(1)},
                {1, "channels", ParamType::Int, pint(0)},
                {2, "eps", ParamType::Float, pfloat(0.001f)},
                {3, "affine", ParamType::Int, pint(1)})

}  // namespace nnfold
