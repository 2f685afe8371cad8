// The shared body of ncnn's elementwise one-blob layers (AbsVal, BNLL, Clip, Dropout, ELU, Erf, Exp,
// GELU, HardSigmoid, HardSwish, Log, Mish, Power, ReLU, SELU, Sigmoid, Swish, TanH, Threshold):
// y[i] = f(x[i]) in place over every float of the blob (total_floats, so any elempack works: each
// element is independent of its neighbours).
//
// CRTP rather than a virtual per element: `Derived::apply(float) const` is inlined into the one loop
// here, so the generated loop is the one each layer used to write by hand and the results are the
// same bits. A layer with params declares them in its param table (layers/param_table.h), which
// the shared load_param reads; anything derived from them once (a reciprocal, breakpoints) is
// computed in the layer's own load_param after that, not per element.
#pragma once

#include <cstddef>
#include <type_traits>

#include "core/parallel.h"
#include "layers/param_table.h"

namespace nnfold {

template <class Derived>
class UnaryLayer : public Layer {
public:
    UnaryLayer() {
        one_blob_only = true;
        support_inplace = true;
    }
    // Reads the params of Derived's param table, if it has one.
    Status load_param(const ParamDict& pd) override {
        if constexpr (has_param_table<Derived>::value)
            Derived::param_table().read(pd, static_cast<Derived&>(*this));
        return Status::ok();
    }

    Status forward_inplace(Mat& m, const Option&) const override {
        const Derived& self = static_cast<const Derived&>(*this);
        float* p = m.data;
        const size_t n = m.total_floats();
        // threads: ranges (elements are independent; cost ~ a few operations to an exp each)
        parallel_for((int64_t)n, parallel_grain(8), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; i++)
                p[i] = self.apply(p[i]);
        });
        return Status::ok();
    }
};

// HardSigmoid's and HardSwish's params 0 alpha, 1 beta (default 0.5) and ncnn's precomputed
// breakpoints lower = -beta / alpha, upper = 1 / alpha + lower, between which x * alpha + beta is
// kept exactly (alpha = 0 makes them infinite/NaN and every x takes the middle branch, as in ncnn).
template <class Derived>
class HardUnaryLayer : public UnaryLayer<Derived> {
public:
    explicit HardUnaryLayer(float default_alpha) : alpha(default_alpha) { derive(); }
    float alpha, beta = 0.5f;
    float lower, upper;
    Status load_param(const ParamDict& pd) override {
        NF_RETURN_IF_ERROR(UnaryLayer<Derived>::load_param(pd));
        derive();
        return Status::ok();
    }

private:
    void derive() {
        lower = -beta / alpha;
        upper = (1.f / alpha) + lower;
    }
};

}  // namespace nnfold
