// Helpers for the optimizer tests: build a small model from inline .param text with random weights,
// optimize a copy, and check that the copy computes the same outputs (docs/numbers.md
// measure, optimizer budget 1e-4) on seeded random inputs, with a straightforward Net run of each.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "io/ncnn_io.h"
#include "layers/layer.h"
#include "passes/optimizer.h"
#include "runtime/net.h"
#include "runtime/random.h"
#include "test_util.h"

namespace nnfold {
namespace pt {

// Fails the calling test when a layer type it needs is not registered (every build registers every
// layer type, so this names the type instead of crashing on a null factory).
#define PT_REQUIRE_LAYERS(...)                                                        \
    do {                                                                               \
        for (const char* t_ : {__VA_ARGS__})                                           \
            if (!::nnfold::find_layer_type(t_))                                        \
                FAIL() << "layer type " << t_ << " is not registered in this build";       \
    } while (0)

// A .param text from layer lines ("Type name nbottom ntop blobs... params..."): the magic and the
// layer / blob counts are added.
inline std::string model(const std::vector<std::string>& lines) {
    std::set<std::string> blobs;
    std::string body;
    for (auto& line : lines) {
        std::vector<std::string> tok;
        size_t pos = 0;
        while (pos < line.size()) {
            size_t sp = line.find(' ', pos);
            if (sp == std::string::npos)
                sp = line.size();
            if (sp > pos)
                tok.push_back(line.substr(pos, sp - pos));
            pos = sp + 1;
        }
        int nb = std::stoi(tok[2]), nt = std::stoi(tok[3]);
        for (int k = 0; k < nb + nt; k++)
            blobs.insert(tok[4 + k]);
        body += line + "\n";
    }
    return "7767517\n" + std::to_string(lines.size()) + " " + std::to_string(blobs.size()) + "\n" + body;
}

// Removes every Split (its consumers read the split blob directly), giving blobs with several
// consumers, as a graph built by an API rather than read from a .param may have.
inline void remove_splits(Graph& g) {
    for (size_t i = 0; i < g.layers.size(); i++) {
        if (g.layers[i].erased || g.layers[i].type != "Split")
            continue;
        g.erase_layer((int)i);
        for (int t : g.layers[i].tops)
            g.replace_uses(t, g.layers[i].bottoms[0]);
    }
    g.compact();
}

struct Optimized {
    Graph before, after;
    OptimizeReport report;
    Status st;
    Warnings warnings;
};

inline Optimized optimize_text(const std::string& param, OptimizeOptions opt = {}, uint32_t seed = 1) {
    Optimized o;
    o.before = test::graph_from_text(param, seed);
    o.after = o.before;
    opt.check_use_index = true;  // every rewrite keeps the graph's use index equal to a rescan
    o.st = optimize(o.after, opt, o.report, o.warnings);
    return o;
}

inline Optimized optimize_graph(const Graph& g, OptimizeOptions opt = {}) {
    Optimized o;
    o.before = g;
    o.after = g;
    opt.check_use_index = true;  // every rewrite keeps the graph's use index equal to a rescan
    o.st = optimize(o.after, opt, o.report, o.warnings);
    return o;
}

inline int count_type(const Graph& g, const std::string& type) {
    int n = 0;
    for (auto& l : g.layers)
        if (!l.erased && l.type == type)
            n++;
    return n;
}

inline const LayerNode* layer(const Graph& g, const std::string& name) {
    int i = g.find_layer(name);
    return i < 0 ? nullptr : &g.layers[i];
}

inline std::vector<std::string> output_names(const Graph& g) {
    std::vector<std::string> r;
    for (int b : g.output_blobs())
        r.push_back(g.blobs[b].name);
    std::sort(r.begin(), r.end());
    return r;
}

inline std::vector<std::string> input_names(const Graph& g) {
    std::vector<std::string> r;
    for (int b : g.input_blobs())
        r.push_back(g.blobs[b].name);
    return r;
}

// Both graphs on the same random inputs: same output names, each output within `tol`; extra
// `blobs` (present in both) compared too. Returns the largest error.
inline double expect_same_outputs(const Graph& a, const Graph& b, const std::map<std::string, Shape>& shapes = {},
                                  std::vector<std::string> blobs = {}, uint32_t seed = 5, double tol = 1e-4) {
    EXPECT_EQ(output_names(a), output_names(b));
    EXPECT_EQ(input_names(a), input_names(b));
    Net na, nb;
    Status st = na.load(a);
    EXPECT_TRUE(st.is_ok()) << st.message();
    st = nb.load(b);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (::testing::Test::HasFailure())
        return INFINITY;
    std::map<std::string, Mat> in = test::random_inputs(na, seed, shapes);
    std::vector<std::string> wanted = output_names(a);
    wanted.insert(wanted.end(), blobs.begin(), blobs.end());
    std::map<std::string, Mat> oa, ob;
    st = na.run(in, wanted, oa);
    EXPECT_TRUE(st.is_ok()) << st.message();
    st = nb.run(in, wanted, ob);
    EXPECT_TRUE(st.is_ok()) << st.message();
    double worst = 0;
    for (auto& n : wanted) {
        if (!oa.count(n) || !ob.count(n)) {
            ADD_FAILURE() << "blob " << n << " missing";
            continue;
        }
        double e = test::rel_err(oa[n], ob[n]);
        EXPECT_LE(e, tol) << "blob " << n;
        // the comparison must have compared something
        EXPECT_GT(oa[n].total_floats(), 0u) << "blob " << n;
        worst = std::max(worst, e);
    }
    return worst;
}

inline int rewrites_of(const OptimizeReport& r, const std::string& pass) {
    for (auto& p : r.passes)
        if (p.name == pass)
            return (int)p.rewrites.size();
    return 0;
}

// The reasons recorded (with explain) for a pass, joined.
inline std::string skip_reasons(const OptimizeReport& r, const std::string& pass) {
    std::string s;
    for (auto& k : r.skipped)
        if (k.pass == pass)
            s += k.reason + "\n";
    return s;
}

inline OptimizeOptions only(std::vector<std::string> passes, bool explain = true) {
    OptimizeOptions o;
    o.passes = std::move(passes);
    o.explain = explain;
    return o;
}

inline std::vector<float> weights_of(const Graph& g, const std::string& layer_name, size_t k) {
    const LayerNode* l = layer(g, layer_name);
    if (!l || k >= l->weights.size())
        return {};
    return l->weights[k].data;
}

// |a - b| <= tol * max(1, |b|) elementwise, with the first mismatch reported.
inline void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-6) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++)
        ASSERT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "at " << i;
}

}  // namespace pt
}  // namespace nnfold
