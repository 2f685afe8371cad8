// Optimized layers (src/layers/wasm/) against the reference layers (src/layers/): both built from
// the same params and the same seeded weights, run on the same seeded input, compared with the
// docs/numbers.md measure. Also checks that the optimized layer is really the optimized
// class, that its output has the inferred shape and that it leaves its input untouched.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/mat.h"
#include "layers/layer.h"
#include "model/param_dict.h"
#include "runtime/random.h"
#include "test_util.h"

namespace nnfold {
namespace ft {

struct Built {
    std::unique_ptr<Layer> layer;
    Status st;
};

// Weight arrays in spec order, uniform in [-1, 1] from `seed`.
inline std::vector<std::vector<float>> weights_for(const std::string& type, const ParamDict& pd, uint32_t seed) {
    std::vector<std::vector<float>> out;
    auto l = create_layer(type, false);
    if (!l || !l->load_param(pd))
        return out;
    std::vector<WeightSpec> specs;
    if (!l->weight_specs(specs))
        return out;
    Rng rng(seed);
    for (auto& s : specs) {
        std::vector<float> v(s.count);
        for (auto& x : v)
            x = rng.uniform(-1.f, 1.f);
        out.push_back(v);
    }
    return out;
}

inline Built build(const std::string& type, const ParamDict& pd, const std::vector<std::vector<float>>& weights,
                   bool optimized) {
    Built b;
    b.layer = create_layer(type, optimized);
    if (!b.layer) {
        b.st = internal_error("no layer type " + type);
        return b;
    }
    b.st = b.layer->load_param(pd);
    if (!b.st)
        return b;
    std::vector<WeightSpec> specs;
    b.st = b.layer->weight_specs(specs);
    if (!b.st)
        return b;
    std::vector<WeightArray> arrays;
    for (size_t i = 0; i < specs.size() && i < weights.size(); i++)
        arrays.push_back(specs[i].tagged ? WeightArray::tagged_f32(weights[i]) : WeightArray::untagged(weights[i]));
    b.st = b.layer->load_model(arrays);
    if (!b.st)
        return b;
    Option o;
    b.st = b.layer->create_pipeline(o);
    return b;
}

inline Mat rand_mat(const Shape& s, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    Mat m;
    Status st = m.create(s);
    EXPECT_TRUE(st.is_ok()) << st.message();
    Rng rng(seed);
    for (size_t i = 0; i < m.total_floats(); i++)
        m.data[i] = rng.uniform(lo, hi);
    return m;
}

// Runs `l` on copies of `in` (multi-blob form); checks the output shapes against infer_shape and
// that the inputs are unchanged.
inline Status run(const Layer& l, const std::vector<Mat>& in, std::vector<Mat>& out) {
    std::vector<Shape> shapes;
    for (auto& m : in)
        shapes.push_back(m.shape());
    std::vector<Shape> inferred(1);
    Status si = l.infer_shape(shapes, inferred);
    std::vector<Mat> copies;
    for (auto& m : in) {
        Mat c;
        EXPECT_TRUE(m.clone(c).is_ok());
        copies.push_back(c);
    }
    out.assign(1, Mat());
    Option opt;
    Status sf = l.forward(copies, out, opt);
    if (!si) {
        EXPECT_FALSE(sf.is_ok()) << "infer_shape failed (" << si.message() << ") but forward succeeded";
        return si;
    }
    if (!sf)
        return sf;
    EXPECT_EQ(out[0].shape(), inferred[0]) << "forward " << out[0].shape().str() << ", infer_shape " << inferred[0].str();
    for (size_t i = 0; i < in.size(); i++)
        for (size_t k = 0; k < in[i].total_floats(); k++)
            if (!(in[i].data[k] == copies[i].data[k] || (std::isnan(in[i].data[k]) && std::isnan(copies[i].data[k])))) {
                ADD_FAILURE() << "forward modified input " << i;
                break;
            }
    return Status::ok();
}

// Builds the reference and the optimized layer, runs both on `inputs`, expects rel_err <= tol.
// Returns the error measured (or +inf on failure).
inline double compare(const std::string& type, const ParamDict& pd, const std::vector<Mat>& inputs, double tol,
                      uint32_t seed = 7) {
    auto w = weights_for(type, pd, seed);
    Built ref = build(type, pd, w, false);
    Built opt = build(type, pd, w, true);
    EXPECT_TRUE(ref.st.is_ok()) << ref.st.message();
    EXPECT_TRUE(opt.st.is_ok()) << opt.st.message();
    if (!ref.st || !opt.st)
        return INFINITY;
    const Layer& ref_layer = *ref.layer;
    const Layer& opt_layer = *opt.layer;
    EXPECT_NE(typeid(ref_layer), typeid(opt_layer)) << type << " has no optimized implementation";
    std::vector<Mat> a, b;
    Status sa = run(*ref.layer, inputs, a);
    Status sb = run(*opt.layer, inputs, b);
    EXPECT_TRUE(sa.is_ok()) << "reference: " << sa.message();
    EXPECT_TRUE(sb.is_ok()) << "optimized: " << sb.message();
    if (!sa || !sb)
        return INFINITY;
    double err = test::rel_err(a[0], b[0]);
    EXPECT_LE(err, tol) << type << ": optimized vs reference, shape " << a[0].shape().str();
    // a test that compares nothing proves nothing
    double maxabs = 0;
    for (size_t i = 0; i < a[0].total_floats(); i++)
        if (std::isfinite(a[0].data[i]))
            maxabs = std::fmax(maxabs, std::fabs(a[0].data[i]));
    EXPECT_GT(maxabs, 0.0) << "the reference output is all zero";
    return err;
}

inline ParamDict params(std::initializer_list<std::pair<int, int>> ints) {
    ParamDict pd;
    for (auto& kv : ints)
        pd.set_int(kv.first, kv.second);
    return pd;
}

inline std::vector<float> act_params_for(int type) {
    switch (type) {
    case 2: return {0.1f};
    case 3: return {-0.5f, 0.7f};
    case 6: return {0.2f, 0.5f};
    default: return {};
    }
}

}  // namespace ft
}  // namespace nnfold
