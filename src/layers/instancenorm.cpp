// InstanceNorm (ncnn src/layer/instancenorm.cpp). Params: 0 channels (0), 1 eps (0.001),
// 2 affine (1). Weights when affine: gamma_data [channels], beta_data [channels], raw fp32 without
// a tag (ModelBin type 1).
// Each channel q of a [c,h,w] blob is normalized on its own, in ncnn's order:
//   mean = sum(x) / n,  var = sum((x - mean)^2) / n,
//   a = gamma[q] / sqrt(var + eps) (1 / sqrt(var + eps) without affine),  b = -mean * a + beta[q],
//   y = x * a + b.
// ncnn takes n = w * h: for a 4D [c,d,h,w] blob it would normalize only the first depth slice of
// each channel; nnfold normalizes the whole channel (n = d * h * w), which is what the operator
// means (ONNX InstanceNormalization on 3D images). 1D and 2D blobs have no channel axis for this
// layer in ncnn (it would normalize the whole blob as one channel with gamma[0]): refused.
// With affine the input must have exactly `channels` channels.
#include <cmath>

#include "layers/layer.h"

namespace nnfold {

class InstanceNorm : public Layer {
public:
    InstanceNorm() {
        one_blob_only = true;
        support_inplace = true;
    }
    int channels = 0;
    float eps = 0.001f;
    int affine = 1;
    std::vector<float> gamma_data, beta_data;

    Status load_param(const ParamDict& pd) override {
        channels = pd.get_int(0, 0);
        eps = pd.get_float(1, 0.001f);
        affine = pd.get_int(2, 1);
        if (channels < 0 || (affine && channels == 0))
            return invalid_model("InstanceNorm channels (param 0) must be at least 1 when affine (param 2) is set, got " +
                                 std::to_string(channels));
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
            return internal_error("InstanceNorm: gamma/beta do not have `channels` values");
        gamma_data = w[0].data;
        beta_data = w[1].data;
        return Status::ok();
    }
    Status check(const Shape& s) const {
        if (s.dims != 3 && s.dims != 4)
            return shape_mismatch("InstanceNorm needs a 3D [c,h,w] or 4D [c,d,h,w] input, got " + s.str());
        if (affine && s.c != channels)
            return shape_mismatch("InstanceNorm has " + std::to_string(channels) + " channels but input " + s.str() +
                                  " has " + std::to_string(s.c));
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        return check(bottoms[0]);
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("InstanceNorm reference forward needs elempack 1");
        const Shape s = m.shape();
        NF_RETURN_IF_ERROR(check(s));
        if (affine && gamma_data.size() != (size_t)channels)
            return internal_error("InstanceNorm: weights not loaded");
        const size_t size = (size_t)s.w * s.h * s.d;
        for (int q = 0; q < s.c; q++) {
            float* p = m.data + (size_t)q * size;
            float sum = 0.f;
            for (size_t i = 0; i < size; i++)
                sum += p[i];
            const float mean = sum / size;
            float sqsum = 0.f;
            for (size_t i = 0; i < size; i++) {
                const float t = p[i] - mean;
                sqsum += t * t;
            }
            const float var = sqsum / size;
            float a, b;
            if (affine) {
                a = gamma_data[q] / std::sqrt(var + eps);
                b = -mean * a + beta_data[q];
            } else {
                a = 1.f / std::sqrt(var + eps);
                b = -mean * a;
            }
            for (size_t i = 0; i < size; i++)
                p[i] = p[i] * a + b;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(InstanceNorm,
                {0, "channels", ParamType::Int, pint(0)},
                {1, "eps", ParamType::Float, pfloat(0.001f)},
                {2, "affine", ParamType::Int, pint(1)})

}  // namespace nnfold
