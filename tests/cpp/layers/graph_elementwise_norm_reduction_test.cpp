// This set of layers through the real .param reader, random weights, the runtime (in-place and
// multi-input paths, automatic Split) and the canonical writer: a chain that uses every type,
// written as .param text with float tokens, int and float arrays (-23301 coeffs, -23303 axes),
// BinaryOp's one-input scalar form and Scale's two-input form. The graph's outputs must equal the
// same chain run layer by layer from params set in C++ (so the text parses to what the layers
// expect), and stay bit-identical after a canonical write -> read (so the param tables' defaults,
// which the writer omits, agree with what the layers read).
#include <cstring>
#include <set>
#include <sstream>

#include "io/ncnn_io.h"
#include "layer_harness.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct Step {
    std::string type, name;
    std::vector<std::string> in;
    std::string out;
    std::string param_text;  // as in a .param line
    ParamDict pd;            // the same params set in C++
};

ParamDict P(std::initializer_list<std::pair<int, int>> ints, std::initializer_list<std::pair<int, float>> floats = {}) {
    ParamDict pd = params(ints);
    for (auto& kv : floats)
        pd.set_float(kv.first, kv.second);
    return pd;
}

std::vector<Step> chain() {
    std::vector<Step> s;
    auto add = [&](std::string type, std::string name, std::vector<std::string> in, std::string out, std::string text,
                   ParamDict pd) { s.push_back({type, name, in, out, text, pd}); };
    add("BinaryOp", "add", {"x", "y"}, "a0", "0=0", P({{0, 0}}));  // [2,3,4] + [2,1,4]
    add("BinaryOp", "mulc", {"a0"}, "a1", "0=2 1=1 2=5.0e-01", P({{0, 2}, {1, 1}}, {{2, 0.5f}}));
    add("Clip", "clip", {"a1"}, "a2", "0=-9.0e-01 1=9.0e-01", P({}, {{0, -0.9f}, {1, 0.9f}}));
    add("Swish", "swish", {"a2"}, "a3", "", P({}));
    add("HardSwish", "hswish", {"a3"}, "a4", "0=1.66666672e-01 1=5.0e-01", P({}, {{0, 1.f / 6}, {1, 0.5f}}));
    add("HardSigmoid", "hsig", {"a4"}, "a5", "0=2.0e-01", P({}, {{0, 0.2f}}));
    add("GELU", "gelu", {"a5"}, "a6", "0=1", P({{0, 1}}));
    add("GELU", "gelu2", {"a6"}, "a7", "0=0", P({{0, 0}}));
    add("Mish", "mish", {"a7"}, "a8", "", P({}));
    add("ELU", "elu", {"a8"}, "a9", "0=1.0e+00", P({}, {{0, 1.f}}));
    add("SELU", "selu", {"a9"}, "b0", "", P({}));
    add("Sigmoid", "sig", {"b0"}, "b1", "", P({}));
    add("TanH", "tanh", {"b1"}, "b2", "", P({}));
    add("Exp", "exp", {"b2"}, "b3", "0=-1.0 1=5.0e-01 2=0.0", P({}, {{0, -1.f}, {1, 0.5f}, {2, 0.f}}));
    add("Log", "log", {"b3"}, "b4", "0=1.0e+01 2=1.0", P({}, {{0, 10.f}, {2, 1.f}}));
    add("Power", "pow", {"b4"}, "b5", "0=2.0 1=1.0 2=1.0e-01", P({}, {{0, 2.f}, {1, 1.f}, {2, 0.1f}}));
    add("BNLL", "bnll", {"b5"}, "b6", "", P({}));
    add("AbsVal", "abs", {"b6"}, "b7", "", P({}));
    add("Erf", "erf", {"b7"}, "b8", "", P({}));
    add("UnaryOp", "neg", {"b8"}, "b9", "0=1", P({{0, 1}}));
    add("PReLU", "prelu", {"b9"}, "c0", "0=2", P({{0, 2}}));
    add("BatchNorm", "bn", {"c0"}, "c1", "0=2 1=1.0e-05", P({{0, 2}}, {{1, 1e-5f}}));
    add("Scale", "scale", {"c1"}, "c2", "0=2 1=1", P({{0, 2}, {1, 1}}));
    add("InstanceNorm", "inorm", {"c2"}, "c3", "0=2 1=1.0e-03", P({{0, 2}}, {{1, 1e-3f}}));
    add("GroupNorm", "gnorm", {"c3"}, "c4", "0=2 1=2", P({{0, 2}, {1, 2}}));
    add("Threshold", "thr", {"c4"}, "c5", "0=0.0", P({}, {{0, 0.f}}));
    // [2,3,4] -> mean over h and w -> [2], the scales of a two-input Scale
    ParamDict red = P({{0, 3}, {1, 0}, {5, 1}});
    red.set_ints(3, {1, -1});
    add("Reduction", "red", {"c4"}, "s2", "0=3 1=0 -23303=2,1,-1 5=1", red);
    add("Scale", "scale2", {"c4", "s2"}, "c6", "0=-233", P({{0, -233}}));
    ParamDict elt = P({{0, 1}});
    elt.set_floats(1, {1.f, 2.f, -0.5f});
    add("Eltwise", "elt", {"c4", "c5", "c6"}, "c7", "0=1 -23301=3,1.0,2.0,-5.0e-01", elt);
    add("Eltwise", "eltmax", {"c7", "a0"}, "c8", "0=2", P({{0, 2}}));
    ParamDict red2 = P({{0, 10}, {1, 0}, {4, 1}, {5, 1}});
    red2.set_ints(3, {0});
    add("Reduction", "lse", {"c8"}, "out", "0=10 1=0 -23303=1,0 4=1 5=1", red2);
    return s;
}

std::string param_text(const std::vector<Step>& steps) {
    std::set<std::string> blobs = {"x", "y"};
    std::ostringstream body;
    body << "Input in_x 0 1 x 0=4 1=3 2=2\n";
    body << "Input in_y 0 1 y 0=4 1=1 2=2\n";
    for (const Step& s : steps) {
        body << s.type << " " << s.name << " " << s.in.size() << " 1";
        for (auto& b : s.in)
            body << " " << b;
        body << " " << s.out << " " << s.param_text << "\n";
        blobs.insert(s.out);
    }
    return "7767517\n" + std::to_string(steps.size() + 2) + " " + std::to_string(blobs.size()) + "\n" + body.str();
}

}  // namespace

TEST(GraphLayersA, ReaderRuntimeAndWriterAgreeWithDirectCalls) {
    const std::vector<Step> steps = chain();
    std::set<std::string> types;
    for (auto& s : steps)
        types.insert(s.type);
    EXPECT_EQ(types.size(), 26u) << "every type of this set appears in the chain";

    const std::string text = param_text(steps);
    Graph g = test::graph_from_text(text, 17);
    std::map<std::string, Mat> inputs = {{"x", rand_mat(Shape::d3(4, 3, 2), 1)}, {"y", rand_mat(Shape::d3(4, 1, 2), 2)}};
    std::vector<std::string> wanted;
    for (auto& s : steps)
        wanted.push_back(s.out);
    auto got = test::run_graph(g, inputs, wanted);
    ASSERT_EQ(got.size(), steps.size());

    // the same chain, layer by layer, with params set in C++ and the graph's random weights
    std::map<std::string, Mat> blobs = inputs;
    for (const Step& s : steps) {
        SCOPED_TRACE(s.type + " " + s.name);
        int li = g.find_layer(s.name);
        ASSERT_GE(li, 0);
        std::vector<std::vector<float>> w;
        for (auto& a : g.layers[li].weights)
            w.push_back(a.data);
        Built b = build(s.type, s.pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        std::vector<Mat> in;
        for (auto& n : s.in)
            in.push_back(blobs.at(n));
        Mat out = run1(*b.layer, in);
        ASSERT_TRUE(got.count(s.out));
        EXPECT_EQ(got[s.out].shape(), out.shape());
        EXPECT_EQ(0, std::memcmp(got[s.out].data, out.data, out.bytes())) << "blob " << s.out;
        blobs[s.out] = out;
    }
    EXPECT_EQ(blobs.at("out").shape(), Shape::d3(4, 3, 1));
    EXPECT_EQ(blobs.at("s2").shape(), Shape::d1(2));

    // canonical write -> read: same outputs bit for bit
    Warnings warn;
    std::string written;
    ASSERT_TRUE(write_param(g, written, warn).is_ok());
    Graph g2;
    Status st = read_param(written, g2, warn, "written.param");
    ASSERT_TRUE(st.is_ok()) << st.message() << "\n" << written;
    ASSERT_EQ(g2.layers.size(), g.layers.size());
    for (size_t i = 0; i < g.layers.size(); i++)
        g2.layers[i].weights = g.layers[i].weights;
    auto got2 = test::run_graph(g2, inputs, wanted);
    for (auto& kv : got) {
        ASSERT_TRUE(got2.count(kv.first)) << kv.first;
        EXPECT_EQ(0, std::memcmp(kv.second.data, got2[kv.first].data, kv.second.bytes()))
            << "the canonical rewrite changed " << kv.first << ":\n" << written;
    }
}

TEST(GraphLayersA, ReaderRefusesBadLines) {
    const char* cases[][2] = {
        {"BinaryOp op 1 1 x z 0=0\n", "takes 2 bottom"},              // two-input form with one bottom
        {"BinaryOp op 2 1 x x2 z 0=0 1=1\n", "takes 1 bottom"},       // scalar form with two
        {"Scale s 1 1 x z 0=-233\n", "takes 2 bottom"},               // two-input Scale with one
        {"Reduction r 1 1 x z 1=0 -23303=1,0\n", "fixbug0"},          // axes of an old converter
        {"UnaryOp u 1 1 x z 0=25\n", "op_type"},
    };
    for (auto& c : cases) {
        SCOPED_TRACE(c[0]);
        std::string text = std::string("7767517\n3 3\nInput a 0 1 x 0=4\nInput b 0 1 x2 0=4\n") + c[0];
        Graph g;
        Warnings w;
        Status st = read_param(text, g, w, "t.param");
        EXPECT_FALSE(st.is_ok());
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel) << st.message();
        EXPECT_NE(st.message().find(c[1]), std::string::npos) << st.message();
    }
}
