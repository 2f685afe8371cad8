// Random params and input shapes for every shape / detection / matrix layer: each combination must
// either be refused with an error value (load_param, infer_shape) or run with forward agreeing with
// infer_shape (same shapes; detection heads: a [n, 6] result); forward fails exactly when
// infer_shape does. Never a crash: this is the test to run under ASan/UBSan. Params are drawn
// mostly consistent with the shapes so that many combinations get past the checks.
#include <cstdlib>
#include <functional>
#include <map>

#include "coord_harness.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct Gen : ParamGen {
    using ParamGen::ParamGen;
    std::vector<int> extents(int dims, int lo = 1, int hi = 6) {
        std::vector<int> e;
        for (int i = 0; i < dims; i++)
            e.push_back(range(lo, hi));
        return e;
    }
    Shape shape(int lo = 1, int hi = 6) { return Shape::from_list(extents(range(1, 4), lo, hi)); }
    std::vector<int> ints(int n, std::initializer_list<int> v) {
        std::vector<int> r;
        for (int i = 0; i < n; i++)
            r.push_back(pick(v));
        return r;
    }
};

struct Case {
    ParamDict pd;
    std::vector<Shape> in;
    size_t ntops = 1;
    float lo = -1.f, hi = 1.f;  // input values
};

using Maker = std::function<void(Gen&, Case&)>;

std::map<std::string, Maker> makers() {
    std::map<std::string, Maker> m;
    m["Concat"] = [](Gen& g, Case& c) {
        const int dims = g.range(1, 4);
        int axis = g.range(-dims, dims - 1);
        if (g.chance(10))
            axis = g.pick({-5, 4, dims});
        c.pd.set_int(0, axis);
        const int a = axis < 0 ? axis + dims : axis;
        std::vector<int> e = g.extents(dims);
        for (int i = g.range(1, 4); i > 0; i--) {
            std::vector<int> x = e;
            if (a >= 0 && a < dims)
                x[a] = g.range(1, 4);
            if (g.chance(8))
                x[g.range(0, dims - 1)] += 1;
            if (g.chance(5))
                x.pop_back();
            c.in.push_back(x.empty() ? Shape::d1(1) : Shape::from_list(x));
        }
    };
    m["Slice"] = [](Gen& g, Case& c) {
        c.ntops = (size_t)g.range(1, 4);
        if (g.chance(70)) {
            c.pd.set_ints(0, g.ints((int)c.ntops + g.pick({0, 0, 0, -1, 1}), {-233, -233, 1, 2, 3, 0, -1}));
        } else {
            c.pd.set_ints(2, g.ints((int)c.ntops - 1 + g.pick({0, 0, -1}), {1, 2, 3, -1, -2, 0, 9}));
            if (c.pd.get_ints(2).empty())
                c.pd.set_ints(0, {-233});
        }
        Shape s = g.shape(1, 8);
        c.pd.set_int(1, g.range(-s.dims - 1, s.dims));
        c.in.push_back(s);
    };
    m["Permute"] = [](Gen& g, Case& c) {
        Shape s = g.shape();
        c.pd.set_int(0, g.chance(90) ? g.range(0, s.dims == 4 ? 23 : s.dims == 3 ? 5 : 1) : g.pick({-1, 24, 6, 2}));
        c.in.push_back(s);
    };
    m["Reshape"] = [](Gen& g, Case& c) {
        Shape s = g.shape();
        const int n = (int)s.total();
        const int ndim = g.range(1, 4);
        std::vector<int> out = {n, 1, 1, 1};  // w, h, d, c
        for (int k = 1; k < ndim; k++) {
            for (int f : {2, 3, 5})
                if (out[0] % f == 0 && g.chance(60)) {
                    out[0] /= f;
                    out[k == 1 ? 1 : k == 2 ? 3 : 2] *= f;
                }
        }
        if (g.chance(40))
            out[g.range(0, ndim - 1)] = -1;
        if (g.chance(10))
            out[0] = g.pick({0, -5, 7});
        c.pd.set_int(0, out[0]);
        if (ndim >= 2)
            c.pd.set_int(1, out[1]);
        if (ndim >= 3)
            c.pd.set_int(2, out[3]);
        if (ndim == 4 || g.chance(5))
            c.pd.set_int(11, out[2]);
        if (g.chance(25))
            c.pd.set_int(3, g.pick({1, 1, 2}));
        c.in.push_back(s);
    };
    m["Flatten"] = [](Gen& g, Case& c) { c.in.push_back(g.shape()); };
    m["ShuffleChannel"] = [](Gen& g, Case& c) {
        const int group = g.range(0, 4);
        c.pd.set_int(0, group);
        c.pd.set_int(1, g.pick({0, 0, 1, 2}));
        std::vector<int> e = g.extents(g.range(1, 4));
        if (e.size() >= 3 && g.chance(70))
            e[0] = std::max(group, 1) * g.range(1, 3);
        c.in.push_back(Shape::from_list(e));
    };
    auto axes_or_flags = [](Gen& g, Case& c, int dims, int extra) {
        if (g.chance(50)) {
            c.pd.set_ints(3, g.ints(g.range(1, 3), {0, 1, 2, 3, -1, -2, dims + extra, -dims - 1 - extra}));
        } else {
            for (int id : {0, 1, 2, 11})
                if (g.chance(40))
                    c.pd.set_int(id, 1);
        }
    };
    m["Squeeze"] = [axes_or_flags](Gen& g, Case& c) {
        std::vector<int> e = g.extents(g.range(1, 4), 1, 3);
        for (auto& x : e)
            if (g.chance(40))
                x = 1;
        axes_or_flags(g, c, (int)e.size(), 0);
        c.in.push_back(Shape::from_list(e));
    };
    m["ExpandDims"] = [axes_or_flags](Gen& g, Case& c) {
        Shape s = g.shape();
        axes_or_flags(g, c, s.dims, 1);
        c.in.push_back(s);
    };
    m["Tile"] = [](Gen& g, Case& c) {
        Shape s = g.shape(1, 4);
        if (g.chance(50)) {
            c.pd.set_int(0, g.range(-1, 4));
            c.pd.set_int(1, g.pick({1, 2, 3, 0}));
        } else {
            c.pd.set_ints(2, g.ints(g.range(1, g.chance(5) ? 5 : 4), {1, 1, 2, 3, 0}));
        }
        c.in.push_back(s);
    };
    auto space = [](bool shuffle) {
        return [shuffle](Gen& g, Case& c) {
            const int r = g.range(0, 3);
            c.pd.set_int(0, r);
            c.pd.set_int(1, g.pick({0, 1, 1, 2}));
            const int rr = std::max(r, 1);
            std::vector<int> e = {g.range(1, 3), g.range(1, 3), g.range(1, 3)};
            if (g.chance(80)) {
                if (shuffle)
                    e[0] *= rr * rr;
                else
                    e[1] *= rr, e[2] *= rr;
            }
            if (g.chance(10))
                e.push_back(2);
            c.in.push_back(Shape::from_list(e));
        };
    };
    m["PixelShuffle"] = space(true);
    m["Reorg"] = space(false);
    m["MatMul"] = [](Gen& g, Case& c) {
        const int tb = g.range(0, 1);
        c.pd.set_int(0, g.chance(95) ? tb : 2);
        const int M = g.range(1, 4), K = g.range(1, 4), N = g.range(1, 4);
        auto batch = [&](int dims) {
            std::vector<int> b;
            for (int i = 2; i < dims; i++)
                b.push_back(g.pick({1, 2, 2, 3}));
            return b;
        };
        const int ad = g.range(1, 4), bd = g.range(1, 4);
        std::vector<int> a = batch(ad), b = batch(bd);
        if (ad == 1)
            a = {K};
        else
            a.insert(a.end(), {M, K + (g.chance(5) ? 1 : 0)});
        if (bd == 1)
            b = {K};
        else if (tb)
            b.insert(b.end(), {N, K});
        else
            b.insert(b.end(), {K, N});
        c.in.push_back(Shape::from_list(a));
        c.in.push_back(Shape::from_list(b));
    };
    m["PriorBox"] = [](Gen& g, Case& c) {
        std::vector<float> mins, maxs, ars;
        for (int i = g.range(0, 2); i > 0; i--)
            mins.push_back(g.chance(95) ? g.real(1, 100) : -1.f);
        if (g.chance(50))
            for (size_t i = 0; i < mins.size() + (g.chance(10) ? 1 : 0); i++)
                maxs.push_back(g.real(100, 200));
        for (int i = g.range(0, 2); i > 0; i--)
            ars.push_back(g.chance(95) ? g.real(0.5f, 3) : 0.f);
        if (!mins.empty() || g.chance(10))
            c.pd.set_floats(0, mins);
        if (!maxs.empty())
            c.pd.set_floats(1, maxs);
        if (!ars.empty())
            c.pd.set_floats(2, ars);
        c.pd.set_int(7, g.range(0, 1));
        c.pd.set_int(8, g.range(0, 1));
        const int iw = g.pick({-233, -233, 0, 300}), ih = g.pick({-233, -233, 300});
        c.pd.set_int(9, iw);
        c.pd.set_int(10, ih);
        if (g.chance(30)) {
            c.pd.set_float(11, g.pick({-233, 8, 16}));
            c.pd.set_float(12, g.pick({-233, 8, 0}));
        }
        c.pd.set_float(13, g.chance(50) ? 0.5f : 0.f);
        c.pd.set_int(14, g.range(0, 1));
        c.pd.set_int(15, g.range(0, 1));
        c.in.push_back(g.shape(1, 5));
        if (g.chance(60))
            c.in.push_back(Shape::d3(g.range(50, 300), g.range(50, 300), 3));
    };
    m["DetectionOutput"] = [](Gen& g, Case& c) {
        const int nc = g.pick({2, 3, 4, -233, 0});
        const int classes = nc == -233 ? g.range(1, 4) : nc;
        c.pd.set_int(0, nc);
        c.pd.set_float(1, g.real(0.1f, 0.9f));
        c.pd.set_int(2, g.pick({300, 2, 0, -1}));
        c.pd.set_int(3, g.pick({100, 1, 3}));
        c.pd.set_float(4, g.real(0.f, 0.6f));
        const int np = g.range(1, 12) + (g.chance(5) ? 1 : 0);
        const int np2 = g.chance(90) ? np : np + 1;
        c.in.push_back(Shape::d1(np * 4));
        if (nc == -233) {
            c.in.push_back(Shape::d2(np2, std::max(classes, 1)));
            c.in.push_back(Shape::d2(4, np));
        } else {
            c.in.push_back(Shape::d1(np2 * std::max(classes, 1)));
            c.in.push_back(g.chance(90) ? Shape::d2(np * 4, 2) : Shape::d1(np * 4));
        }
        c.lo = 0.f;
        c.hi = 1.f;
        if (g.chance(10))
            c.in.pop_back();
    };
    auto yolo = [](bool v3) {
        return [v3](Gen& g, Case& c) {
            const int nc = g.range(1, 3), nb = g.range(1, 3);
            c.pd.set_int(0, g.chance(95) ? nc : 0);
            c.pd.set_int(1, nb);
            c.pd.set_float(2, g.real(0.f, 0.7f));
            c.pd.set_float(3, g.real(0.1f, 0.9f));
            std::vector<float> biases;
            const int nanchor = v3 ? g.range(1, 4) : nb;
            for (int i = 0; i < 2 * nanchor - (g.chance(5) ? 1 : 0); i++)
                biases.push_back(g.real(1, 20));
            c.pd.set_floats(4, biases);
            const int ninputs = g.range(1, 2);
            if (v3) {
                std::vector<float> mask, scale;
                for (int i = 0; i < nb * ninputs - (g.chance(5) ? 1 : 0); i++)
                    mask.push_back(g.chance(97) ? (float)g.range(0, nanchor - 1) : 0.5f);
                for (int i = 0; i < ninputs - (g.chance(5) ? 1 : 0); i++)
                    scale.push_back(g.chance(95) ? g.real(4, 32) : 0.01f);
                c.pd.set_floats(5, mask);
                c.pd.set_floats(6, scale);
            }
            for (int i = 0; i < ninputs; i++)
                c.in.push_back(Shape::d3(g.range(1, 5), g.range(1, 5), nb * (5 + nc) + (g.chance(5) ? 1 : 0)));
            c.lo = -3.f;
            c.hi = 3.f;
        };
    };
    m["YoloDetectionOutput"] = yolo(false);
    m["Yolov3DetectionOutput"] = yolo(true);
    return m;
}

bool is_detection(const std::string& t) { return t.find("DetectionOutput") != std::string::npos; }

}  // namespace

TEST(RandomParamsShapeDetectionMatrix, RandomParamsAndShapesNeverCrash) {
    const int iterations = fuzz_iterations();
    for (auto& kv : makers()) {
        const std::string& type = kv.first;
        Outcomes o;
        int detections = 0;
        for (int it = 0; it < iterations; it++) {
            Gen g(7000u * (uint32_t)type.size() + (uint32_t)it);
            Case c;
            kv.second(g, c);
            SCOPED_TRACE(type + " iteration " + std::to_string(it));
            Built b = build(type, c.pd);
            if (o.refuses(b.st))
                continue;
            std::vector<Mat> in;
            for (size_t i = 0; i < c.in.size(); i++)
                in.push_back(rand_mat(c.in[i], it * 7 + (uint32_t)i, c.lo, c.hi));
            Status st;
            if (is_detection(type)) {
                std::vector<Row> rows;
                st = run_detect(*b.layer, in, rows);
                detections += (int)rows.size();
            } else {
                std::vector<Mat> out;
                st = run(*b.layer, in, out, c.ntops);
            }
            o.record_run(st);
        }
        // the generators are tuned so both paths are exercised for every type
        EXPECT_GT(o.ran, iterations / 10) << type;
        if (type != "Flatten") {  // any 1D-4D input flattens
            EXPECT_GT(o.refused, 0) << type;
        }
        if (is_detection(type)) {
            EXPECT_GT(detections, 0) << type;
        }
        std::printf("%-22s ran %3d refused %3d\n", type.c_str(), o.ran, o.refused);
    }
}
