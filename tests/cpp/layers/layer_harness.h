// Helpers for the reference-layer tests: build a layer from params and weights, run it checking
// that forward agrees with infer_shape, random tensors, independent activation formulas,
// comparison with a tolerance, and what the random_params_* tests share (the draws their params
// and shapes come from, the count of cases run and refused).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/mat.h"
#include "layers/layer.h"
#include "model/param_dict.h"
#include "runtime/random.h"
#include "test_util.h"

namespace nnfold {
namespace lt {

// A built layer; `st` holds the first failing step (load_param, load_model, create_pipeline).
struct Built {
    std::unique_ptr<Layer> layer;
    Status st;
    Layer* operator->() const { return layer.get(); }
};

// Weights by spec order; an empty list means "random from the specs with `seed`".
inline Built build(const std::string& type, const ParamDict& pd, std::vector<std::vector<float>> weights = {},
                   uint32_t seed = 7) {
    Built b;
    b.layer = create_layer(type, false);
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
    if (weights.empty()) {
        Rng rng(seed);
        for (auto& s : specs) {
            std::vector<float> v(s.count);
            for (auto& x : v)
                x = rng.uniform(-1.f, 1.f);
            arrays.push_back(s.tagged ? WeightArray::tagged_f32(v) : WeightArray::untagged(v));
        }
    } else {
        if (weights.size() != specs.size()) {
            b.st = internal_error("test gave " + std::to_string(weights.size()) + " weight arrays, specs want " +
                                  std::to_string(specs.size()));
            return b;
        }
        for (size_t i = 0; i < specs.size(); i++) {
            if (weights[i].size() != specs[i].count) {
                b.st = internal_error("test weight " + specs[i].name + " has " + std::to_string(weights[i].size()) +
                                      " values, spec wants " + std::to_string(specs[i].count));
                return b;
            }
            arrays.push_back(specs[i].tagged ? WeightArray::tagged_f32(weights[i]) : WeightArray::untagged(weights[i]));
        }
    }
    b.st = b.layer->load_model(arrays);
    if (!b.st)
        return b;
    Option o;
    b.st = b.layer->create_pipeline(o);
    return b;
}

// The weights a built-with-random layer got (same generator as build()).
inline std::vector<std::vector<float>> random_weights(const std::string& type, const ParamDict& pd, uint32_t seed = 7) {
    auto l = create_layer(type, false);
    std::vector<std::vector<float>> out;
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

inline Mat rand_mat(const Shape& s, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    Mat m;
    Status st = m.create(s);
    EXPECT_TRUE(st.is_ok()) << st.message();
    Rng rng(seed);
    for (size_t i = 0; i < m.total_floats(); i++)
        m.data[i] = rng.uniform(lo, hi);
    return m;
}

inline Mat mat_of(const Shape& s, const std::vector<float>& v) {
    Mat m;
    Status st = m.create(s);
    EXPECT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(m.total_floats(), v.size());
    std::copy(v.begin(), v.end(), m.data);
    return m;
}

// Runs the layer: infer_shape first, then forward (and for in-place layers forward_inplace too),
// checking every top against the inferred shape. Returns the first error; on success `out` holds
// the tops. An infer_shape error must also make forward fail (never a crash).
inline Status run(const Layer& l, const std::vector<Mat>& in, std::vector<Mat>& out, size_t ntops = 1) {
    std::vector<Shape> shapes;
    for (auto& m : in)
        shapes.push_back(m.shape());
    std::vector<Shape> inferred(ntops);
    Status si = l.infer_shape(shapes, inferred);
    Option opt;
    out.assign(ntops, Mat());
    Status sf;
    std::vector<Mat> inputs;
    for (auto& m : in) {  // layers may not modify their bottoms: give them copies and compare
        Mat c;
        EXPECT_TRUE(m.clone(c).is_ok());
        inputs.push_back(c);
    }
    if (l.one_blob_only && l.support_inplace && in.size() == 1) {
        Mat a;
        EXPECT_TRUE(inputs[0].clone(a).is_ok());
        sf = l.forward_inplace(a, opt);
        if (sf)
            out[0] = a;
    } else {
        sf = l.forward(inputs, out, opt);
    }
    if (!si) {
        EXPECT_FALSE(sf.is_ok()) << "infer_shape failed (" << si.message() << ") but forward succeeded";
        return si;
    }
    if (!sf) {
        ADD_FAILURE() << "infer_shape succeeded but forward failed: " << sf.message();
        return sf;
    }
    for (size_t i = 0; i < ntops; i++) {
        EXPECT_FALSE(out[i].empty());
        EXPECT_EQ(out[i].shape(), inferred[i]) << "top " << i << ": forward " << out[i].shape().str() << ", infer_shape "
                                               << inferred[i].str();
    }
    if (!(l.one_blob_only && l.support_inplace && in.size() == 1)) {
        for (size_t i = 0; i < in.size(); i++)
            for (size_t k = 0; k < in[i].total_floats(); k++)
                if (!(in[i].data[k] == inputs[i].data[k] || (std::isnan(in[i].data[k]) && std::isnan(inputs[i].data[k])))) {
                    ADD_FAILURE() << "forward modified input " << i;
                    break;
                }
    }
    return Status::ok();
}

inline Mat run1(const Layer& l, const std::vector<Mat>& in) {
    std::vector<Mat> out;
    Status st = run(l, in, out);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return out.empty() ? Mat() : out[0];
}

// |got - want| <= atol + rtol * |want| everywhere, reporting the first few mismatches.
inline void expect_near(const std::vector<float>& want, const Mat& got, float rtol = 1e-5f, float atol = 1e-5f) {
    ASSERT_EQ(got.total_floats(), want.size());
    int bad = 0;
    for (size_t i = 0; i < want.size(); i++) {
        float g = got.data[i], w = want[i];
        bool ok = std::fabs(g - w) <= atol + rtol * std::fabs(w) || (std::isnan(g) && std::isnan(w)) ||
                  (std::isinf(w) && g == w);
        if (!ok && bad++ < 5)
            ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w;
    }
    EXPECT_EQ(bad, 0) << bad << " of " << want.size() << " elements differ";
}

inline std::vector<float> vec(const Mat& m) { return std::vector<float>(m.data, m.data + m.total_floats()); }

// The fused activations, from their mathematical definitions (not the code under test).
inline float act_ref(int type, float x, const std::vector<float>& p) {
    switch (type) {
    case 1: return x > 0 ? x : 0.f;
    case 2: return x > 0 ? x : x * p[0];
    case 3: return std::fmin(std::fmax(x, p[0]), p[1]);
    case 4: return (float)(1.0 / (1.0 + std::exp(-(double)x)));
    case 5: return (float)((double)x * std::tanh(std::log1p(std::exp((double)x))));
    case 6: return x * std::fmin(std::fmax(x * p[0] + p[1], 0.f), 1.f);
    default: return x;
    }
}

// Direct grouped convolution from the definition (no border copy: cells outside the input read
// `pad_value`). Pads are given explicitly (tests compute SAME splits by hand).
// in [C][H][W], weights [O][C/group][kh][kw]; returns [O][OH][OW] after the activation.
struct ConvRef {
    ConvRef(int C_, int H_, int W_, int O_, int kh_, int kw_) : C(C_), H(H_), W(W_), O(O_), kh(kh_), kw(kw_) {}
    int C, H, W, O, kh, kw, dh = 1, dw = 1, sh = 1, sw = 1, pt = 0, pb = 0, pl = 0, pr = 0, group = 1;
    float pad_value = 0.f;
    int act = 0;
    std::vector<float> act_params;
    int OH = 0, OW = 0;

    std::vector<float> run(const std::vector<float>& in, const std::vector<float>& wt, const std::vector<float>& bias) {
        OH = (H + pt + pb - (dh * (kh - 1) + 1)) / sh + 1;
        OW = (W + pl + pr - (dw * (kw - 1) + 1)) / sw + 1;
        const int icg = C / group, ocg = O / group;
        std::vector<float> out((size_t)O * OH * OW);
        for (int o = 0; o < O; o++) {
            const int g = o / ocg;
            for (int y = 0; y < OH; y++)
                for (int x = 0; x < OW; x++) {
                    double acc = bias.empty() ? 0.0 : bias[o];
                    for (int c = 0; c < icg; c++)
                        for (int ki = 0; ki < kh; ki++)
                            for (int kj = 0; kj < kw; kj++) {
                                int iy = y * sh + ki * dh - pt, ix = x * sw + kj * dw - pl;
                                float v = (iy >= 0 && iy < H && ix >= 0 && ix < W)
                                              ? in[((size_t)(g * icg + c) * H + iy) * W + ix]
                                              : pad_value;
                                acc += (double)v * wt[(((size_t)o * icg + c) * kh + ki) * kw + kj];
                            }
                    out[((size_t)o * OH + y) * OW + x] = act_ref(act, (float)acc, act_params);
                }
        }
        return out;
    }
};

// Activation params that exercise each fused activation type.
inline std::vector<float> act_params_for(int type) {
    switch (type) {
    case 2: return {0.1f};
    case 3: return {-0.5f, 0.7f};
    case 6: return {0.2f, 0.5f};
    default: return {};
    }
}

inline ParamDict params(std::initializer_list<std::pair<int, int>> ints) {
    ParamDict pd;
    for (auto& kv : ints)
        pd.set_int(kv.first, kv.second);
    return pd;
}

// Error checks: code and a phrase in the message.
#define LT_EXPECT_ERROR(expr, want_code, phrase)                                                     \
    do {                                                                                            \
        ::nnfold::Status lt_st_ = (expr);                                                           \
        EXPECT_FALSE(lt_st_.is_ok()) << #expr " succeeded";                                         \
        EXPECT_EQ(lt_st_.code(), want_code) << lt_st_.message();                                    \
        EXPECT_NE(lt_st_.message().find(phrase), std::string::npos) << "message: " << lt_st_.message(); \
    } while (0)

// The random draws of the random_params_* tests (the documented PRNG, one fixed seed per case);
// each test derives its Gen from this and adds its shapes.
struct ParamGen {
    Rng rng;
    explicit ParamGen(uint32_t seed) : rng(seed) {}
    int pick(std::initializer_list<int> v) { return v.begin()[rng.next_u32() % v.size()]; }
    float pickf(std::initializer_list<float> v) { return v.begin()[rng.next_u32() % v.size()]; }
    int range(int lo, int hi) { return lo + (int)(rng.next_u32() % (uint32_t)(hi - lo + 1)); }
    bool chance(int percent) { return (int)(rng.next_u32() % 100) < percent; }
    float real(float lo, float hi) { return rng.uniform(lo, hi); }
};

// Cases per type of a random_params_* test: RANDOM_PARAMS_ITERATIONS=N runs a longer search (not
// part of the default run); sanitizer builds run fewer.
inline int fuzz_iterations() {
    const char* env = std::getenv("RANDOM_PARAMS_ITERATIONS");
    return env ? std::atoi(env) : test::sanitizer_build() ? 150 : 400;
}

// What the random cases of one type came to: each is refused with an error value (never Internal,
// always with a message) or runs.
struct Outcomes {
    int ran = 0, refused = 0;
    // A step before the run (building the layer): true, counted as refused, when it failed.
    bool refuses(const Status& st) {
        if (st)
            return false;
        EXPECT_NE(st.code(), ErrorCode::Internal) << st.message();
        EXPECT_FALSE(st.message().empty());
        refused++;
        return true;
    }
    // The run (forward checked against infer_shape).
    void record_run(const Status& st) {
        if (!refuses(st))
            ran++;
    }
};

// The zoo_lines_* tests read each layer line of a zoo .param file on its own.
inline std::vector<std::string> words(const std::string& s) {
    std::istringstream is(s);
    std::vector<std::string> t;
    std::string x;
    while (is >> x)
        t.push_back(x);
    return t;
}

// The -23330 shape hints among a line's tokens, one shape per top: dims,w,h,c per blob in older
// files, dims,w,h,d,c in newer ones (docs: ncnn format facts); none when the count fits neither.
inline std::vector<Shape> shape_hints(const std::vector<std::string>& tokens, size_t ntops) {
    std::vector<Shape> out;
    for (auto& x : tokens) {
        if (x.rfind("-23330=", 0) != 0)
            continue;
        std::vector<int> v;
        std::stringstream ss(x.substr(7));
        std::string item;
        while (std::getline(ss, item, ','))
            v.push_back(std::stoi(item));
        const size_t per = ntops ? (v.size() - 1) / ntops : 0;
        for (size_t k = 0; k < ntops && (per == 4 || per == 5); k++) {
            const int* p = &v[1 + k * per];
            const int dims = p[0], w = p[1], h = p[2], d = per == 5 ? p[3] : 1, c = per == 5 ? p[4] : p[3];
            out.push_back(dims == 1 ? Shape::d1(w) : dims == 2 ? Shape::d2(w, h) : dims == 3 ? Shape::d3(w, h, c)
                                                                                        : Shape::d4(w, h, d, c));
        }
    }
    return out;
}

struct ZooLine {
    std::string text, type;
    std::vector<std::string> bottoms, tops;
    std::vector<Shape> hints;  // per top, when the line has -23330
};

// The layer lines of a .param text (the magic and count lines skipped).
inline std::vector<ZooLine> parse_zoo_lines(const std::string& text) {
    std::vector<ZooLine> out;
    std::istringstream is(text);
    std::string l;
    for (int n = 0; std::getline(is, l); n++) {
        auto t = words(l);
        if (n < 2 || t.size() < 4)
            continue;
        ZooLine line;
        line.text = l;
        line.type = t[0];
        const int nb = std::stoi(t[2]), nt = std::stoi(t[3]);
        line.bottoms.assign(t.begin() + 4, t.begin() + 4 + nb);
        line.tops.assign(t.begin() + 4 + nb, t.begin() + 4 + nb + nt);
        line.hints = shape_hints(t, (size_t)nt);
        out.push_back(line);
    }
    return out;
}

}  // namespace lt
}  // namespace nnfold
