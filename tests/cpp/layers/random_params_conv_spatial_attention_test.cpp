// Random params and input shapes for every reference layer of this set: each combination must
// either be refused with an error value (load_param, load_model, infer_shape) or run with
// forward's output shapes equal to infer_shape's; forward fails exactly when infer_shape does.
// Never a crash: this test is the one to run under ASan/UBSan. Params are drawn mostly
// consistent (weight sizes that match) so that many combinations get past load_param.
#include <cstdlib>
#include <functional>
#include <map>

#include "layer_harness.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct Gen : ParamGen {
    using ParamGen::ParamGen;
    int pad() { return pick({0, 0, 1, 2, -233, -234, -1, 3}); }
    Shape shape(int c_hint) {
        int dims = pick({1, 2, 3, 3, 3, 4});
        int w = range(1, 7), h = range(1, 6), d = range(1, 3);
        int c = chance(70) ? c_hint : range(1, 5);
        switch (dims) {
        case 1: return Shape::d1(chance(50) ? c_hint : w);
        case 2: return Shape::d2(w, h);
        case 3: return Shape::d3(w, h, c);
        default: return Shape::d4(w, h, d, c);
        }
    }
};

using Maker = std::function<void(Gen&, ParamDict&, std::vector<Shape>&)>;

std::map<std::string, Maker> makers() {
    std::map<std::string, Maker> m;
    auto conv = [](bool grouped, bool deconv) {
        return [grouped, deconv](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
            int group = grouped ? g.pick({1, 2, 3}) : 1;
            int C = group * g.range(1, 3), O = group * g.range(1, 3);
            int kw = g.range(1, 4), kh = g.chance(70) ? kw : g.range(1, 4);
            pd.set_int(0, g.chance(95) ? O : g.pick({0, -1}));
            pd.set_int(1, kw);
            pd.set_int(11, kh);
            pd.set_int(2, g.pick({1, 1, 1, 2, 2, 0}));
            pd.set_int(3, g.pick({1, 1, 2, 2, 3, 0}));
            int p = g.pad();
            pd.set_int(4, p);
            if (g.chance(30))
                pd.set_int(15, g.pad());
            if (g.chance(20))
                pd.set_int(16, g.pad());
            pd.set_int(5, g.range(0, 1));
            int ws = kw * kh * (C / group) * O;
            pd.set_int(6, g.chance(90) ? ws : ws + g.pick({-1, 1, 7}));
            if (grouped)
                pd.set_int(7, g.chance(90) ? group : g.pick({0, 4, -1}));
            int act = g.range(0, 7);
            pd.set_int(9, act);
            if (g.chance(80))
                pd.set_floats(10, act == 2 ? std::vector<float>{0.1f} : std::vector<float>{-1.f, 1.f});
            if (deconv) {
                pd.set_int(18, g.pick({0, 0, 1, -1}));
                if (g.chance(40))
                    pd.set_int(20, g.range(0, 12));
            } else if (g.chance(10)) {
                pd.set_int(8, g.pick({1, 2, 101}));
            }
            if (g.chance(5))
                pd.set_int(deconv ? 28 : 19, 1);
            in.push_back(g.chance(80) ? Shape::d3(g.range(1, 8), g.range(1, 7), C) : g.shape(C));
        };
    };
    m["Convolution"] = conv(false, false);
    m["ConvolutionDepthWise"] = conv(true, false);
    m["Deconvolution"] = conv(false, true);
    m["DeconvolutionDepthWise"] = conv(true, true);
    m["InnerProduct"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 4));
        int n = g.chance(60) ? (int)s.total() : g.range(1, 9);
        if (s.dims == 2 && g.chance(50))
            n = s.w;
        int O = g.range(1, 4);
        pd.set_int(0, O);
        pd.set_int(1, g.range(0, 1));
        pd.set_int(2, g.chance(90) ? O * n : O * n + 1);
        pd.set_int(9, g.range(0, 6));
        pd.set_floats(10, {0.2f, 0.5f});
        in.push_back(s);
    };
    m["Gemm"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        int M = g.range(1, 4), N = g.range(1, 4), K = g.range(1, 4);
        int ta = g.range(0, 1), tb = g.range(0, 1), ca = g.chance(30), cb = g.chance(50), cc = g.chance(40);
        pd.set_int(2, ta);
        pd.set_int(3, tb);
        pd.set_int(4, ca);
        pd.set_int(5, cb);
        pd.set_int(6, cc);
        pd.set_int(7, g.chance(90) ? M : 0);
        pd.set_int(8, g.chance(90) ? N : 0);
        pd.set_int(9, K);
        pd.set_int(10, g.range(-1, 5));
        pd.set_int(11, g.range(0, 1));
        pd.set_int(14, g.range(0, 1));
        auto mat = [&](int r, int c) {
            if (g.chance(10))
                return g.shape(r);
            return g.chance(20) ? Shape::d3(c, 1, r) : (r == 1 && g.chance(50) ? Shape::d1(c) : Shape::d2(c, r));
        };
        if (!ca)
            in.push_back(ta ? mat(K, M) : mat(M, K));
        if (!cb)
            in.push_back(tb ? mat(N, K) : mat(K, N));
        if (!cc && g.chance(50))
            in.push_back(g.pick({0, 1, 2}) == 0 ? Shape::d1(g.pick({1, M, N})) : Shape::d2(g.pick({1, N}), g.pick({1, M})));
    };
    m["Pooling"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.pick({0, 1, 1, 2}));
        pd.set_int(1, g.range(0, 4));
        if (g.chance(30))
            pd.set_int(11, g.range(1, 4));
        pd.set_int(2, g.pick({1, 2, 3, 0}));
        pd.set_int(3, g.pick({0, 0, 1, 2, -1}));
        if (g.chance(30))
            pd.set_int(14, g.range(0, 3));
        pd.set_int(4, g.chance(15));
        pd.set_int(5, g.range(0, 4));
        pd.set_int(6, g.range(0, 1));
        if (g.chance(20)) {
            pd.set_int(7, 1);
            pd.set_int(8, g.range(0, 5));
        }
        in.push_back(g.shape(g.range(1, 4)));
    };
    m["Padding"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        for (int id = 0; id < 4; id++)
            pd.set_int(id, g.pick({0, 1, 2, 3, -1}));
        if (g.chance(5))
            for (int id = 0; id < 4; id++)
                pd.set_int(id, -233);
        pd.set_int(4, g.range(0, 3));
        pd.set_int(7, g.pick({0, 1, 2}));
        pd.set_int(8, g.pick({0, 1, 3}));
        if (g.chance(30))
            pd.set_int(6, g.range(1, 8));
        in.push_back(g.shape(g.range(1, 4)));
    };
    m["Crop"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 5));
        int form = g.range(0, 2);
        if (form == 0) {
            for (int id : {0, 1, 2, 13})
                pd.set_int(id, g.pick({0, 0, 1, 2}));
            for (int id : {3, 4, 5, 14})
                pd.set_int(id, g.pick({-233, -233, 1, 2, 5, 0}));
            for (int id : {6, 7, 8, 15})
                if (g.chance(30))
                    pd.set_int(id, g.range(0, 2));
        } else if (form == 1) {
            int n = g.range(1, 5);
            std::vector<int> st, en, ax;
            for (int i = 0; i < n; i++) {
                st.push_back(g.pick({0, 1, -1, -233, 9}));
                en.push_back(g.pick({0, 2, -1, -233, 100}));
                ax.push_back(g.range(-4, 4));
            }
            pd.set_ints(9, st);
            pd.set_ints(10, g.chance(90) ? en : std::vector<int>{1});
            if (g.chance(70))
                pd.set_ints(11, ax);
        } else {
            pd.set_int(0, g.range(0, 2));
            pd.set_int(1, g.range(0, 2));
            pd.set_int(2, g.range(0, 2));
        }
        in.push_back(s);
        if (form == 2 || g.chance(5))
            in.push_back(g.shape(g.range(1, 3)));
    };
    m["Interp"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.range(0, 4));
        if (g.chance(50)) {
            pd.set_float(1, (float)g.pick({0, 1, 2, 3}) * 0.7f);
            pd.set_float(2, (float)g.pick({0, 1, 2, 3}) * 0.6f);
        } else {
            pd.set_int(3, g.range(0, 7));
            pd.set_int(4, g.range(0, 7));
        }
        pd.set_int(6, g.range(0, 1));
        int dyn = g.chance(15);
        pd.set_int(5, dyn);
        in.push_back(g.shape(g.range(1, 3)));
        if (dyn || g.chance(5))
            in.push_back(g.shape(g.range(1, 3)));
    };
    m["MultiHeadAttention"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        int H = g.range(1, 3), dh = g.range(1, 3), E = H * dh, Q = g.range(1, 5), kd = g.range(1, 4), vd = g.range(1, 4);
        pd.set_int(0, g.chance(95) ? E : 0);
        pd.set_int(1, g.chance(90) ? H : g.pick({0, 4}));
        pd.set_int(2, g.chance(90) ? E * Q : E * Q + 1);
        pd.set_int(3, kd);
        pd.set_int(4, vd);
        int mask = g.chance(30);
        pd.set_int(5, mask);
        int S = g.range(1, 4), D = g.range(1, 4);
        in.push_back(g.chance(90) ? Shape::d2(Q, S) : g.shape(Q));
        int n = g.range(0, 2);
        if (n >= 1)
            in.push_back(Shape::d2(kd, D));
        if (n == 2)
            in.push_back(Shape::d2(vd, g.chance(90) ? D : D + 1));
        if (mask)
            in.push_back(g.chance(50) ? Shape::d2(D, S) : Shape::d3(D, S, g.chance(80) ? H : H + 1));
    };
    m["LayerNorm"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        Shape s = g.shape(g.range(1, 4));
        pd.set_int(0, g.pick({(int)s.w, (int)(s.w * s.h), 0, 3}));
        pd.set_int(2, g.range(0, 1));
        in.push_back(s);
    };
    m["Softmax"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.range(-5, 4));
        pd.set_int(1, g.chance(80));
        in.push_back(g.shape(g.range(1, 4)));
    };
    m["LRN"] = [](Gen& g, ParamDict& pd, std::vector<Shape>& in) {
        pd.set_int(0, g.range(0, 2));
        pd.set_int(1, g.range(0, 6));
        in.push_back(g.shape(g.range(1, 5)));
    };
    return m;
}

}  // namespace

TEST(RandomParamsConvSpatialAttention, RandomParamsAndShapesNeverCrash) {
    const int iterations = fuzz_iterations();
    for (auto& kv : makers()) {
        const std::string& type = kv.first;
        Outcomes o;
        for (int it = 0; it < iterations; it++) {
            Gen g(1000u * (uint32_t)type.size() + (uint32_t)it);
            ParamDict pd;
            std::vector<Shape> shapes;
            kv.second(g, pd, shapes);
            SCOPED_TRACE(type + " iteration " + std::to_string(it));
            Built b = build(type, pd, {}, it);
            if (o.refuses(b.st))
                continue;
            std::vector<Mat> in;
            for (size_t i = 0; i < shapes.size(); i++)
                in.push_back(rand_mat(shapes[i], it * 7 + (uint32_t)i));
            std::vector<Mat> out;
            o.record_run(run(*b.layer, in, out));  // checks forward against infer_shape
        }
        // the generators are tuned so both paths are exercised for every type
        EXPECT_GT(o.ran, iterations / 10) << type;
        EXPECT_GT(o.refused, 0) << type;
    }
}
