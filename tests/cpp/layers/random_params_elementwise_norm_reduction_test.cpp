// Random params and input shapes for every elementwise / normalization / reduction layer: each
// combination must either be refused with an error value (load_param, infer_shape) or run with
// forward's output shapes equal to infer_shape's; forward fails exactly when infer_shape does.
// Inputs sometimes carry inf, NaN, huge and subnormal values. Never a crash: the test to run
// under ASan/UBSan (the sibling of random_params_conv_spatial_attention_test.cpp for this set of layers).
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "layer_harness.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct Gen : ParamGen {
    using ParamGen::ParamGen;
    // a float param: usually ordinary, sometimes extreme
    float param() {
        if (chance(75))
            return rng.uniform(-3.f, 3.f);
        return pickf({0.f, -0.f, 1.f, -1.f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, 1e-40f, 1e30f});
    }
    Shape shape(int c_hint) {
        int dims = pick({1, 2, 3, 3, 4});
        int w = range(1, 6), h = range(1, 5), d = range(1, 3);
        int c = chance(70) ? c_hint : range(1, 5);
        switch (dims) {
        case 1: return Shape::d1(chance(50) ? c_hint : w);
        case 2: return Shape::d2(w, chance(50) ? c_hint : h);
        case 3: return Shape::d3(w, h, c);
        default: return Shape::d4(w, h, d, c);
        }
    }
};

// The per-channel count of a shape on ncnn's channel axis (1D w, 2D h, 3D/4D c).
int channels_of(const Shape& s) { return s.dims == 1 ? s.w : s.dims == 2 ? s.h : s.c; }

using Maker = std::function<void(Gen&, ParamDict&, std::vector<Shape>&)>;

std::map<std::string, Maker> makers() {
    std::map<std::string, Maker> m;
    // elementwise activations: float params anywhere, any shape
    auto floats = [](std::vector<int> ids) {
        return [ids](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
            for (int id : ids)
                if (g.chance(80))
                    pd.set_float(id, g.param());
            in.push_back(g.shape(g.range(1, 4)));
        };
    };
    m["AbsVal"] = floats({});
    m["BNLL"] = floats({});
    m["Erf"] = floats({});
    m["Mish"] = floats({});
    m["Sigmoid"] = floats({});
    m["Swish"] = floats({});
    m["TanH"] = floats({});
    m["Clip"] = floats({0, 1});
    m["ELU"] = floats({0});
    m["SELU"] = floats({0, 1});
    m["HardSigmoid"] = floats({0, 1});
    m["HardSwish"] = floats({0, 1});
    m["Exp"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_float(0, g.chance(40) ? -1.f : g.param());
        pd.set_float(1, g.param());
        pd.set_float(2, g.param());
        in.push_back(g.shape(g.range(1, 4)));
    };
    m["Log"] = m["Exp"];
    m["Power"] = floats({0, 1, 2});
    m["Threshold"] = floats({0});
    m["GELU"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.pick({0, 1, 2, -1}));
        in.push_back(g.shape(g.range(1, 4)));
    };
    m["UnaryOp"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.chance(90) ? g.range(0, 19) : g.pick({-1, 20, 1000}));
        in.push_back(g.shape(g.range(1, 4)));
    };
    m["PReLU"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 5));
        pd.set_int(0, g.chance(40) ? 1 : g.chance(80) ? channels_of(s) : g.pick({0, -1, 2, 7}));
        in.push_back(s);
    };
    m["BatchNorm"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 5));
        pd.set_int(0, g.chance(85) ? channels_of(s) : g.pick({0, -2, 1, 9}));
        if (g.chance(70))
            pd.set_float(1, g.chance(80) ? 1e-5f : g.param());
        in.push_back(s);
    };
    m["Scale"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 5));
        const bool two = g.chance(40);
        pd.set_int(0, two ? -233 : g.chance(85) ? channels_of(s) : g.pick({0, -1, 3}));
        pd.set_int(1, g.chance(two ? 10 : 50));
        in.push_back(s);
        if (two)
            in.push_back(g.chance(80) ? (g.chance(50) ? Shape::d1(channels_of(s)) : Shape::d3(1, 1, channels_of(s)))
                                      : g.shape(g.range(1, 5)));
    };
    m["InstanceNorm"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 5));
        pd.set_int(0, g.chance(85) ? s.c : g.pick({0, -1, 7}));
        pd.set_int(2, g.chance(70));
        if (g.chance(50))
            pd.set_float(1, g.chance(80) ? 1e-5f : g.param());
        in.push_back(s);
    };
    m["GroupNorm"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        int group = g.range(1, 3);
        Shape s = g.shape(group * g.range(1, 3));
        int ch = channels_of(s);
        pd.set_int(0, g.chance(90) ? group : g.pick({0, -1, 5}));
        pd.set_int(1, g.chance(85) ? ch : g.pick({0, ch + 1, 6}));
        pd.set_int(3, g.chance(70));
        if (g.chance(50))
            pd.set_float(2, g.chance(80) ? 1e-5f : g.param());
        in.push_back(s);
    };
    m["BinaryOp"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.chance(95) ? g.range(0, 11) : g.pick({-1, 12, 99}));
        const bool scalar = g.chance(20);
        pd.set_int(1, scalar);
        pd.set_float(2, g.param());
        Shape a = g.shape(g.range(1, 4));
        in.push_back(a);
        if (scalar)
            return;
        // b: often derived from a (same, some axes set to 1, an outer-aligned lower rank), else random
        Shape b = a;
        int kind = g.range(0, 3);
        if (kind == 1) {
            if (g.chance(50)) b.w = 1;
            if (g.chance(50)) b.h = 1;
            if (g.chance(50)) b.d = 1;
            if (g.chance(50)) b.c = 1;
        } else if (kind == 2) {
            auto l = a.to_list();
            size_t keep = (size_t)g.range(1, (int)l.size());
            l.resize(keep);  // outer axes
            if (keep == 1 && g.chance(50))
                l[0] = a.w;  // numpy-like 1D along w
            b = Shape::from_list(l);
        } else if (kind == 3) {
            b = g.shape(g.range(1, 4));
        }
        if (g.chance(50))
            std::swap(a, b);
        in[0] = a;
        in.push_back(b);
    };
    m["Eltwise"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        int op = g.chance(90) ? g.range(0, 2) : g.pick({-1, 3});
        pd.set_int(0, op);
        int n = g.range(1, 4);
        if (g.chance(40)) {
            std::vector<float> c;
            int nc = g.chance(80) ? n : g.range(0, n + 1);
            for (int i = 0; i < nc; i++)
                c.push_back(g.param());
            pd.set_floats(1, c);
        }
        Shape s = g.shape(g.range(1, 4));
        for (int i = 0; i < n; i++)
            in.push_back(g.chance(92) ? s : g.shape(g.range(1, 4)));
    };
    m["Reduction"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.chance(95) ? g.range(0, 10) : g.pick({-1, 11}));
        pd.set_int(1, g.chance(30));
        if (g.chance(70)) {
            std::vector<int> axes;
            int n = g.range(0, 4);
            for (int i = 0; i < n; i++)
                axes.push_back(g.chance(90) ? g.range(-4, 3) : g.pick({-100, 7, 1 << 30}));
            pd.set_ints(3, axes);
        }
        if (g.chance(60))
            pd.set_float(2, g.param());
        pd.set_int(4, g.chance(50));
        pd.set_int(5, g.chance(95));
        in.push_back(g.shape(g.range(1, 4)));
    };
    return m;
}

// Sprinkles special values into a tensor.
void add_specials(Mat& m, Gen& g) {
    const float specials[] = {INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, 1e-40f, -0.f, 0.f, 100.f, -100.f};
    for (size_t i = 0; i < m.total_floats(); i++)
        if (g.chance(15))
            m.data[i] = specials[g.rng.next_u32() % 10];
}

}  // namespace

TEST(RandomParamsElementwiseNormReduction, RandomParamsAndShapesNeverCrash) {
    const int iterations = fuzz_iterations();
    // the types whose params or shapes can be wrong; the pure activations accept everything
    const std::set<std::string> can_refuse = {"PReLU", "BatchNorm", "Scale", "InstanceNorm", "GroupNorm",
                                              "BinaryOp", "Eltwise", "Reduction", "UnaryOp"};
    auto all = makers();
    std::string summary;
    EXPECT_EQ(all.size(), 26u);
    for (auto& kv : all) {
        const std::string& type = kv.first;
        ASSERT_NE(create_layer(type, false), nullptr) << type;
        Outcomes o;
        for (int it = 0; it < iterations; it++) {
            Gen g(7919u * (uint32_t)type.size() + (uint32_t)it * 31u + (uint32_t)type[0]);
            ParamDict pd;
            std::vector<Shape> shapes;
            kv.second(g, pd, shapes);
            SCOPED_TRACE(type + " iteration " + std::to_string(it));
            Built b = build(type, pd, {}, it);
            if (o.refuses(b.st))
                continue;
            std::vector<Mat> in;
            for (size_t i = 0; i < shapes.size(); i++) {
                in.push_back(rand_mat(shapes[i], it * 7 + (uint32_t)i));
                if (g.chance(25))
                    add_specials(in.back(), g);
            }
            if ((int)in.size() != b->expected_bottoms() && b->expected_bottoms() >= 0) {
                o.refused++;  // the reader refuses a wrong bottom count before any layer runs
                continue;
            }
            std::vector<Mat> out;
            o.record_run(run(*b.layer, in, out));  // checks forward against infer_shape
        }
        EXPECT_GT(o.ran, iterations / 10) << type;
        if (can_refuse.count(type)) {
            EXPECT_GT(o.refused, 0) << type;
        }
        summary += " " + type + " " + std::to_string(o.ran) + "/" + std::to_string(o.refused);
    }
    std::printf("ran/refused:%s\n", summary.c_str());
}
