// The shared body of ncnn's elementwise one-blob layers (AbsVal, BNLL, Clip, Dropout, ELU, Erf, Exp,
// GELU, HardSigmoid, HardSwish, Log, Mish, Power, ReLU, SELU, Sigmoid, Swish, TanH, Threshold):
// y[i] = f(x[i]) in place over every float of the blob (total_floats, so any elempack works: each
// element is independent of its neighbours).
//
// CRTP rather than a virtual per element: `Derived::apply(float) const` is inlined into the one loop
// here, so the generated loop is the one each layer used to write by hand and the results are the
// same bits. A layer's params are loaded by its own load_param; anything derived from them once
// (a reciprocal, breakpoints) is computed there, not per element.
#pragma once

#include <cstddef>

#include "layers/layer.h"

namespace nnfold {

template <class Derived>
class UnaryLayer : public Layer {
public:
    UnaryLayer() {
        one_blob_only = true;
        support_inplace = true;
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        const Derived& self = static_cast<const Derived&>(*this);
        float* p = m.data;
        const size_t n = m.total_floats();
        for (size_t i = 0; i < n; i++)
            p[i] = self.apply(p[i]);
        return Status::ok();
    }
};

// The affine argument `shift + x * scale` of Exp, Log and Power (ncnn params 1 scale, 2 shift,
// defaults 1 and 0), evaluated in ncnn's order.
struct ScaleShift {
    float scale = 1.f, shift = 0.f;
    void load(const ParamDict& pd) {
        scale = pd.get_float(1, 1.f);
        shift = pd.get_float(2, 0.f);
    }
    float operator()(float x) const { return shift + x * scale; }
};

// HardSigmoid's and HardSwish's params 0 alpha, 1 beta (default 0.5) and ncnn's precomputed
// breakpoints lower = -beta / alpha, upper = 1 / alpha + lower, between which x * alpha + beta is
// kept exactly (alpha = 0 makes them infinite/NaN and every x takes the middle branch, as in ncnn).
struct HardBreakpoints {
    float alpha, beta = 0.5f;
    float lower, upper;
    explicit HardBreakpoints(float default_alpha) : alpha(default_alpha) { derive(); }
    void load(const ParamDict& pd, float default_alpha) {
        alpha = pd.get_float(0, default_alpha);
        beta = pd.get_float(1, 0.5f);
        derive();
    }
    void derive() {
        lower = -beta / alpha;
        upper = (1.f / alpha) + lower;
    }
};

}  // namespace nnfold
