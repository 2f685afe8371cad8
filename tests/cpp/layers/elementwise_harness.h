// Helpers for the tests of the elementwise / per-channel layers (activations, BatchNorm, Scale,
// BinaryOp, UnaryOp, Eltwise, Reduction): odd shapes of every rank, and a sweep that runs a layer
// on random inputs of each shape and compares with the test's own formula (evaluated in double
// by the test, never through the layer's code).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "layer_harness.h"

namespace nnfold {
namespace lt {

// Odd sizes of every rank: 1 and 17 elements, rows, 1/3/5/17 channels, 4D blobs.
inline std::vector<Shape> odd_shapes() {
    return {Shape::d1(1),       Shape::d1(17),       Shape::d2(5, 3),       Shape::d3(7, 3, 1),
            Shape::d3(4, 5, 3), Shape::d3(3, 2, 5),  Shape::d3(5, 1, 17),   Shape::d4(3, 2, 3, 5),
            Shape::d4(1, 1, 2, 17), Shape::d4(2, 3, 1, 1)};
}

// Number of channels on ncnn's per-channel axis (1D: w, 2D: h, 3D/4D: c) and values per channel,
// written out here independently of src/layers/channel_slices.h.
inline size_t test_channels(const Shape& s) { return s.dims == 1 ? s.w : s.dims == 2 ? s.h : s.c; }
inline size_t test_channel_size(const Shape& s) {
    return s.dims == 1 ? 1 : s.dims == 2 ? s.w : (size_t)s.w * s.h * (s.dims == 4 ? s.d : 1);
}

// Runs `type` with params `pd` on random inputs in [lo, hi] of every odd shape and compares each
// value with want(x).
inline void expect_elementwise(const std::string& type, const ParamDict& pd, const std::function<double(double)>& want,
                               float lo, float hi, float rtol = 1e-5f, float atol = 1e-6f, uint32_t seed = 11) {
    Built b = build(type, pd);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    for (const Shape& s : odd_shapes()) {
        SCOPED_TRACE(type + " on " + s.str());
        Mat in = rand_mat(s, ++seed, lo, hi);
        std::vector<float> ref;
        for (size_t i = 0; i < in.total_floats(); i++)
            ref.push_back((float)want((double)in.data[i]));
        expect_near(ref, run1(*b.layer, {in}), rtol, atol);
    }
}

// Runs a one-input layer on the given values (a 1D blob) and returns the outputs.
inline std::vector<float> run_values(const std::string& type, const ParamDict& pd, const std::vector<float>& x) {
    Built b = build(type, pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    if (!b.st)
        return {};
    return vec(run1(*b.layer, {mat_of(Shape::d1((int)x.size()), x)}));
}

// Exact comparison of floats, NaN equal to NaN, -0 distinct from +0 only when `signed_zero`.
inline void expect_same_floats(const std::vector<float>& want, const std::vector<float>& got, bool signed_zero = false) {
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); i++) {
        if (std::isnan(want[i])) {
            EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i] << ", want NaN";
            continue;
        }
        EXPECT_EQ(want[i], got[i]) << "element " << i;
        if (signed_zero && want[i] == 0.f) {
            EXPECT_EQ(std::signbit(want[i]), std::signbit(got[i])) << "element " << i << ": sign of zero";
        }
    }
}

inline ParamDict fparams(std::initializer_list<std::pair<int, float>> floats) {
    ParamDict pd;
    for (auto& kv : floats)
        pd.set_float(kv.first, kv.second);
    return pd;
}

// The weight specs of a layer built from params (names, counts, tagged, roles).
inline std::vector<WeightSpec> specs_of(const std::string& type, const ParamDict& pd) {
    auto l = create_layer(type, false);
    std::vector<WeightSpec> specs;
    if (!l)
        return specs;
    Status st = l->load_param(pd);
    EXPECT_TRUE(st.is_ok()) << st.message();
    st = l->weight_specs(specs);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return specs;
}

}  // namespace lt
}  // namespace nnfold
