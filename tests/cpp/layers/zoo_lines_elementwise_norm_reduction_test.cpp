// Every zoo line of this set's types (BinaryOp, Eltwise, Swish, GELU in the benchmark zoo) loads
// through the real .param reader behind Input layers for its bottoms; where the zoo gives the
// bottoms' shapes (-23330 hints, or vision_transformer's [145 tokens, 768]), the inferred top shape
// must equal the zoo's hint (ncnn's own shape inference) and the layer runs, once as read and once
// after a canonical write -> read, with identical outputs. Without the zoo: skipped, failed under CI.
#include <cstring>
#include <set>
#include <sstream>

#include "analysis/analysis.h"
#include "io/ncnn_io.h"
#include "layer_harness.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

namespace {

const std::set<std::string> kTypes = {"AbsVal", "BatchNorm", "BinaryOp", "BNLL", "Clip", "Eltwise", "ELU", "Erf", "Exp",
                                      "GELU", "GroupNorm", "HardSigmoid", "HardSwish", "InstanceNorm", "Log", "Mish",
                                      "Power", "PReLU", "Reduction", "Scale", "SELU", "Sigmoid", "Swish", "TanH",
                                      "Threshold", "UnaryOp"};

}  // namespace

TEST(ZooLinesElementwiseNormReduction, EveryLineLoadsMatchesHintsAndRuns) {
    NNFOLD_REQUIRE_ZOO();
    int loaded = 0, checked = 0, ran = 0;
    std::set<std::string> seen_types;
    const uint64_t budget = test::sanitizer_build() ? 200000 : 2000000;  // elements per line run
    for (const std::string& path : test::zoo_params()) {
        const std::string file = path.substr(path.rfind('/') + 1);
        const bool vit = file.find("vision_transformer") != std::string::npos;
        std::istringstream is(test::read_text(path));
        std::string line;
        std::vector<std::string> lines;
        while (std::getline(is, line))
            lines.push_back(line);
        std::map<std::string, Shape> known;  // blob -> hinted shape
        for (size_t i = 2; i < lines.size(); i++) {
            auto t = lt::words(lines[i]);
            if (t.size() < 4)
                continue;
            size_t nb = std::stoul(t[2]), nt = std::stoul(t[3]);
            auto hs = lt::shape_hints(t, nt);
            for (size_t k = 0; k < hs.size(); k++)
                known[t[4 + nb + k]] = hs[k];
        }
        for (size_t i = 2; i < lines.size(); i++) {
            auto t = lt::words(lines[i]);
            if (t.size() < 4 || !kTypes.count(t[0]))
                continue;
            SCOPED_TRACE(file + ": " + lines[i]);
            size_t nb = std::stoul(t[2]), nt = std::stoul(t[3]);
            std::vector<std::string> bottoms(t.begin() + 4, t.begin() + 4 + nb);
            std::string text = "7767517\n" + std::to_string(nb + 1) + " " + std::to_string(nb + nt) + "\n";
            for (size_t k = 0; k < nb; k++)
                text += "Input in" + std::to_string(k) + " 0 1 " + bottoms[k] + "\n";
            text += lines[i] + "\n";
            Graph g;
            Warnings w;
            Status st = read_param(text, g, w, file);
            ASSERT_TRUE(st.is_ok()) << st.message();
            loaded++;
            seen_types.insert(t[0]);

            std::map<std::string, Shape> in_shapes;
            for (auto& b : bottoms)
                if (known.count(b))
                    in_shapes[b] = known[b];
                else if (vit)
                    in_shapes[b] = Shape::d2(768, 145);
            if (in_shapes.size() != nb)
                continue;
            std::vector<Shape> shapes;
            st = infer_shapes(g, in_shapes, shapes);
            ASSERT_TRUE(st.is_ok()) << st.message();
            auto hs = lt::shape_hints(t, nt);
            for (size_t k = 0; k < hs.size(); k++) {
                EXPECT_EQ(shapes[g.find_blob(t[4 + nb + k])], hs[k]);
                checked++;
            }
            uint64_t elems = 0;
            for (auto& s : shapes)
                elems += s.total();
            if (elems > budget)
                continue;
            ASSERT_TRUE(randomize_weights(g, 3).is_ok());
            std::string written;
            ASSERT_TRUE(write_param(g, written, w).is_ok());
            Graph g2;
            ASSERT_TRUE(read_param(written, g2, w, file).is_ok()) << written;
            for (size_t k = 0; k < g.layers.size(); k++)
                g2.layers[k].weights = g.layers[k].weights;
            std::map<std::string, Mat> inputs;
            uint32_t seed = 5;
            for (auto& kv : in_shapes)
                inputs[kv.first] = lt::rand_mat(kv.second, ++seed);
            auto out1 = test::run_graph(g, inputs);
            auto out2 = test::run_graph(g2, inputs);
            ASSERT_EQ(out1.size(), nt);
            for (auto& kv : out1) {
                ASSERT_TRUE(out2.count(kv.first));
                EXPECT_EQ(0, std::memcmp(kv.second.data, out2[kv.first].data, kv.second.bytes())) << written;
            }
            ran++;
        }
    }
    for (const char* type : {"BinaryOp", "Eltwise", "Swish", "GELU"})
        EXPECT_TRUE(seen_types.count(type)) << type << " not found in the zoo";
    EXPECT_GT(loaded, 150);
    EXPECT_GT(checked, 80);
    EXPECT_GT(ran, test::sanitizer_build() ? 20 : 100);
    std::printf("zoo layers of this set: %d loaded, %d shapes checked against hints, %d run twice\n", loaded, checked,
                ran);
}
