// The shared body of ncnn's elementwise one-blob layers (AbsVal, BNLL, Clip, Dropout, ELU, Erf, Exp,
// GELU, HardSigmoid, HardSwish, Log, Mish, Power, ReLU, SELU, Sigmoid, Swish, TanH, Threshold):
// y[i] = f(x[i]) in place over every float of the blob (total_floats, so any elempack works: each
// element is independent of its neighbours).
//
// CRTP rather than a virtual per element: `Derived::apply(float) const` is inlined into the one loop
// here, so the generated loop is the one each layer used to write by hand and the results are the
// same bits. A layer lists its params (LayerParam: ncnn id and default) in params(), which the
// shared load_param reads; anything derived from them once (a reciprocal, breakpoints) is
// computed in the layer's own load_param after that, not per element.
#pragma once

#include <cstddef>
#include <tuple>

#include "core/parallel.h"
#include "layers/layer.h"

namespace nnfold {

inline int read_param(const ParamDict& pd, int id, int default_value) { return pd.get_int(id, default_value); }
inline float read_param(const ParamDict& pd, int id, float default_value) { return pd.get_float(id, default_value); }

// One scalar param: its ncnn id, ncnn's default, and the value read (used as a T in formulas).
template <typename T>
struct LayerParam {
    LayerParam(int param_id, T default_v) : id(param_id), default_value(default_v), value(default_v) {}
    int id;
    T default_value;
    T value;
    operator T() const { return value; }
    void load(const ParamDict& pd) { value = read_param(pd, id, default_value); }
};
using FloatParam = LayerParam<float>;
using IntParam = LayerParam<int>;

template <class Derived>
class UnaryLayer : public Layer {
public:
    UnaryLayer() {
        one_blob_only = true;
        support_inplace = true;
    }
    // Reads the params Derived lists in params() (std::tie of its LayerParams; none by default).
    Status load_param(const ParamDict& pd) override {
        std::apply([&](auto&... p) { (p.load(pd), ...); }, static_cast<Derived&>(*this).params());
        return Status::ok();
    }
    std::tuple<> params() { return {}; }

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
