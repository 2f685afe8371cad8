// The activations ncnn fuses into Convolution/ConvolutionDepthWise/Deconvolution/InnerProduct/...
// (param 9 activation_type, param 10 activation_params), with ncnn's exact formulas
// (ncnn src/layer/fused_activation.h, activation_ss):
//   0 none, 1 ReLU, 2 leaky ReLU (slope = p[0]), 3 clip (p[0], p[1]), 4 sigmoid (input clamped to
//   +-88.3762626647949), 5 mish (softplus cut at +-20), 6 hardswish (alpha = p[0], beta = p[1]).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/status.h"

namespace nnfold {

struct FusedActivation {
    int type = 0;
    float p0 = 0.f, p1 = 0.f;

    // Validates type and parameter count.
    Status set(int activation_type, const std::vector<float>& params);

    inline float apply(float v) const {
        switch (type) {
        case 1: return std::max(v, 0.f);
        case 2: return v > 0.f ? v : v * p0;
        case 3: return v < p0 ? p0 : (v > p1 ? p1 : v);
        case 4: {
            v = std::min(v, 88.3762626647949f);
            v = std::max(v, -88.3762626647949f);
            return 1.f / (1.f + std::exp(-v));
        }
        case 5: {
            // ncnn's softplus with MISH_THRESHOLD 20: x above, exp(x) below -20
            float y = v > 20.f ? v : (v < -20.f ? std::exp(v) : std::log(std::exp(v) + 1.f));
            return v * std::tanh(y);
        }
        case 6: {
            float lower = -p1 / p0;
            float upper = (1.f / p0) + lower;
            if (v < lower)
                return 0.f;
            if (v > upper)
                return v;
            return v * (v * p0 + p1);
        }
        default: return v;
        }
    }
    void apply(float* p, size_t n) const {
        if (type == 0)
            return;
        for (size_t i = 0; i < n; i++)
            p[i] = apply(p[i]);
    }
};

}  // namespace nnfold
