// BatchNorm (ncnn src/layer/batchnorm.cpp). Params: 0 channels (0), 1 eps (0).
// Weights, each [channels] raw fp32 without a tag (ModelBin type 1), in this order:
// slope_data, mean_data, var_data, bias_data.
// ncnn folds them once at load time into
//   b = slope / sqrt(var + eps),  a = bias - slope * mean / sqrt(var + eps)
// (sqrt(var + eps) == 0 is replaced by 0.0001 to avoid a division by zero) and computes
// y = b * x + a per channel on ncnn's channel axis (1D: per element, 2D: per row, 3D/4D: per
// channel), which must have exactly `channels` entries.
#include <cmath>

#include "core/parallel.h"
#include "layers/norm_common.h"
#include "layers/param_table.h"

namespace nnfold {

class BatchNorm : public CheckedInplaceLayer {
public:
    int channels = 0;
    float eps = 0.f;
    std::vector<float> a_data, b_data;

    NF_PARAM_TABLE(BatchNorm, NF_PARAM(0, channels), NF_PARAM(1, eps))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (channels <= 0)
            return invalid_model("BatchNorm channels (param 0) must be at least 1, got " + std::to_string(channels));
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        const uint64_t n = (uint64_t)channels;
        specs.clear();
        specs.push_back({"slope_data", n, false, WeightRole::Gamma, 1});
        specs.push_back({"mean_data", n, false, WeightRole::Mean, 1});
        specs.push_back({"var_data", n, false, WeightRole::Variance, 1});
        specs.push_back({"bias_data", n, false, WeightRole::Beta, 1});
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        if (w.size() != 4)
            return internal_error("BatchNorm: expected 4 weight arrays");
        for (const WeightArray& a : w)
            if (a.data.size() != (size_t)channels)
                return internal_error("BatchNorm: a weight array does not have `channels` values");
        const std::vector<float>&slope = w[0].data, &mean = w[1].data, &var = w[2].data, &bias = w[3].data;
        a_data.resize(channels);
        b_data.resize(channels);
        for (int i = 0; i < channels; i++) {
            float sqrt_var = std::sqrt(var[i] + eps);
            if (sqrt_var == 0.f)
                sqrt_var = 0.0001f;
            a_data[i] = bias[i] - slope[i] * mean[i] / sqrt_var;
            b_data[i] = slope[i] / sqrt_var;
        }
        return Status::ok();
    }
    Status check(const Shape& s) const override { return check_channel_count(s, "BatchNorm", channels, "channels"); }
    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("BatchNorm reference forward needs elempack 1");
        NF_RETURN_IF_ERROR(check(m.shape()));
        if (a_data.size() != (size_t)channels)
            return internal_error("BatchNorm: weights not loaded");
        const ChannelSlices cs = channel_slices(m.shape());
        // threads: channels
        parallel_for((int64_t)cs.count, parallel_grain((int64_t)cs.size), [&](int64_t q0, int64_t q1) {
            for (int64_t q = q0; q < q1; q++) {
                const float a = a_data[q], b = b_data[q];
                float* p = m.data + q * cs.size;
                for (size_t i = 0; i < cs.size; i++)
                    p[i] = b * p[i] + a;
            }
        });
        return Status::ok();
    }
};

NF_DEFINE_LAYER(BatchNorm)

}  // namespace nnfold
