// PReLU (ncnn src/layer/prelu.cpp): y = x < 0 ? x * slope : x.
// Param 0 num_slope (0). Weights: slope_data [num_slope], raw fp32 (ncnn ModelBin type 1, no tag).
// num_slope == 1 shares one slope across the blob; num_slope > 1 gives one slope per channel on
// ncnn's channel axis (1D: per element, 2D: per row, 3D/4D: per channel), which must then have
// exactly num_slope entries (ncnn does not check and reads past the slopes).
#include "layers/norm_common.h"
#include "layers/param_table.h"

namespace nnfold {

class PReLU : public CheckedInplaceLayer {
public:
    int num_slope = 0;
    std::vector<float> slope_data;

    NF_PARAM_TABLE(PReLU, NF_PARAM(0, num_slope))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (num_slope <= 0)
            return invalid_model("PReLU num_slope (param 0) must be at least 1, got " + std::to_string(num_slope));
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        specs.push_back({"slope_data", (uint64_t)num_slope, false, WeightRole::Slope, 1});
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        if (w.size() != 1 || w[0].data.size() != (size_t)num_slope)
            return internal_error("PReLU: slope_data does not have num_slope values");
        slope_data = w[0].data;
        return Status::ok();
    }
    // One shared slope fits any 1D-4D input; more must match the channel axis.
    Status check(const Shape& s) const override {
        const int count = num_slope > 1 ? num_slope : (int)channel_slices(s).count;
        return check_channel_count(s, "PReLU", count, "slopes");
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("PReLU reference forward needs elempack 1");
        const Shape s = m.shape();
        NF_RETURN_IF_ERROR(check(s));
        if (slope_data.size() != (size_t)num_slope)
            return internal_error("PReLU: weights not loaded");
        const ChannelSlices cs = channel_slices(s);
        for (size_t q = 0; q < cs.count; q++) {
            const float slope = num_slope > 1 ? slope_data[q] : slope_data[0];
            float* p = m.data + q * cs.size;
            for (size_t i = 0; i < cs.size; i++)
                if (p[i] < 0.f)
                    p[i] *= slope;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(PReLU)

}  // namespace nnfold
