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

#include "layers/norm_common.h"

namespace nnfold {

class InstanceNorm : public AffineNormLayer {
public:
    int channels = 0;

    NF_PARAM_TABLE(InstanceNorm,
                   NF_PARAM(0, channels),
                   NF_PARAM(1, eps),
                   NF_PARAM(2, affine))
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return check_count_affine(channels, "channels");
    }
protected:
    int gamma_count() const override { return channels; }
    Status check(const Shape& s) const override {
        if (s.dims != 3 && s.dims != 4)
            return shape_mismatch("InstanceNorm needs a 3D [c,h,w] or 4D [c,d,h,w] input, got " + s.str());
        if (affine && s.c != channels)
            return shape_mismatch("InstanceNorm has " + std::to_string(channels) + " channels but input " + s.str() +
                                  " has " + std::to_string(s.c));
        return Status::ok();
    }

public:
    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("InstanceNorm reference forward needs elempack 1");
        const Shape s = m.shape();
        NF_RETURN_IF_ERROR(check(s));
        if (affine && !weights.loaded(channels))
            return internal_error("InstanceNorm: weights not loaded");
        const size_t size = (size_t)s.w * s.h * s.d;
        for (int q = 0; q < s.c; q++) {
            float* p = m.data + (size_t)q * size;
            float a, b;
            if (affine)
                norm_coeffs(mean_var(p, size), eps, &weights.gamma_data[q], &weights.beta_data[q], a, b);
            else
                norm_coeffs(mean_var(p, size), eps, nullptr, nullptr, a, b);
            scale_shift(p, size, a, b);
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(InstanceNorm)

}  // namespace nnfold
