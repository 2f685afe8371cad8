// Pieces shared by the normalization layers (BatchNorm, GroupNorm, InstanceNorm, LayerNorm) and
// the per-channel layers (PReLU, Scale): the in-place layer whose output keeps the input's shape
// once a type-specific check passes, ncnn's two-pass mean/variance, its per-channel affine
// coefficients, and the optional gamma/beta arrays.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "layers/channel_slices.h"
#include "layers/param_table.h"

namespace nnfold {

// A one-blob in-place layer: infer_shape is the input's shape once check() accepts it (forward
// calls the same check, so shape inference and forward refuse the same inputs).
class CheckedInplaceLayer : public Layer {
public:
    CheckedInplaceLayer() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        return check(bottoms[0]);
    }

protected:
    virtual Status check(const Shape& s) const = 0;
};

// A 1D-4D input with `count` values along ncnn's channel axis (channel_slices.h); `noun` names
// them in the message ("channels", "slopes").
inline Status check_channel_count(const Shape& s, const char* type, int count, const char* noun) {
    if (s.dims < 1 || s.dims > 4)
        return shape_mismatch(std::string(type) + " needs a 1D-4D input, got " + s.str());
    if (channel_slices(s).count != (size_t)count)
        return shape_mismatch(std::string(type) + " has " + std::to_string(count) + " " + noun + " but input " +
                              s.str() + " has " + std::to_string(channel_slices(s).count) + " along " +
                              channel_axis_name(s));
    return Status::ok();
}

// ncnn's statistics of n values: mean = sum(x) / n, var = sum((x - mean)^2) / n, both summed in
// index order in float (the order fixes the bits).
struct MeanVar {
    float mean = 0.f, var = 0.f;
};
template <typename N>
inline MeanVar mean_var(const float* p, N n) {
    float sum = 0.f;
    for (N i = 0; i < n; i++)
        sum += p[i];
    MeanVar r;
    r.mean = sum / n;
    float sqsum = 0.f;
    for (N i = 0; i < n; i++) {
        const float t = p[i] - r.mean;
        sqsum += t * t;
    }
    r.var = sqsum / n;
    return r;
}

// y = x * a + b for n values (GroupNorm/InstanceNorm/LayerNorm's last step).
inline void scale_shift(float* p, size_t n, float a, float b) {
    for (size_t i = 0; i < n; i++)
        p[i] = p[i] * a + b;
}

// GroupNorm's and InstanceNorm's per-channel coefficients for y = x * a + b:
// a = gamma / sqrt(var + eps), b = -mean * a + beta; without affine (gamma == nullptr)
// a = 1 / sqrt(var + eps), b = -mean * a (no "+ 0", which would turn -0 into +0).
inline void norm_coeffs(MeanVar s, float eps, const float* gamma, const float* beta, float& a, float& b) {
    if (gamma) {
        a = *gamma / std::sqrt(s.var + eps);
        b = -s.mean * a + *beta;
    } else {
        a = 1.f / std::sqrt(s.var + eps);
        b = -s.mean * a;
    }
}

// The optional gamma_data, beta_data [count] arrays (raw fp32, no tag) of the normalization layers.
struct GammaBeta {
    std::vector<float> gamma_data, beta_data;

    static void specs(std::vector<WeightSpec>& specs, int count, bool affine) {
        specs.clear();
        if (affine) {
            specs.push_back({"gamma_data", (uint64_t)count, false, WeightRole::Gamma, 1});
            specs.push_back({"beta_data", (uint64_t)count, false, WeightRole::Beta, 1});
        }
    }
    Status load(const std::vector<WeightArray>& w, int count, bool affine, const char* type) {
        if (!affine)
            return Status::ok();
        if (w.size() != 2 || w[0].data.size() != (size_t)count || w[1].data.size() != (size_t)count)
            return internal_error(std::string(type) + ": gamma/beta do not have " + std::to_string(count) + " values");
        gamma_data = w[0].data;
        beta_data = w[1].data;
        return Status::ok();
    }
    bool loaded(int count) const { return gamma_data.size() == (size_t)count; }
};

// GroupNorm, InstanceNorm and LayerNorm: eps, affine and the gamma/beta arrays of gamma_count()
// values each (ncnn's member names).
class AffineNormLayer : public CheckedInplaceLayer {
public:
    float eps = 0.001f;
    int affine = 1;
    GammaBeta weights;

    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        GammaBeta::specs(specs, gamma_count(), affine);
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        return weights.load(w, gamma_count(), affine, type.c_str());
    }

protected:
    virtual int gamma_count() const = 0;
    // InstanceNorm's and LayerNorm's params: 0 `count` (default 0), 1 eps (0.001), 2 affine (1),
    // read by their param tables; count must be at least 1 when affine is set (it sizes
    // gamma/beta), and never negative.
    Status check_count_affine(int count, const char* count_name) const {
        if (count < 0 || (affine && count == 0))
            return invalid_model(type + " " + count_name +
                                 " (param 0) must be at least 1 when affine (param 2) is set, got " +
                                 std::to_string(count));
        return Status::ok();
    }
};

}  // namespace nnfold
