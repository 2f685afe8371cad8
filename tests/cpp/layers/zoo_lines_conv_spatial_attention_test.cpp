// Every zoo layer of the convolution family / spatial / attention types loads from the zoo's
// .param files: each such line is read on its own (behind Input layers for its bottoms) through
// the real .param reader, gets random weights from its weight specs, and, where the zoo gives the
// bottoms' shapes (-23330 hints, or vision_transformer's known token shapes), its inferred top
// shapes must equal the zoo's hints (ncnn's own shape inference). Cheap layers also run, once as
// read and once after a canonical write -> read round trip: identical outputs show the param
// tables' defaults agree with what the layers read. Without the zoo: skipped, failed under CI.
#include <cstring>
#include <set>
#include <sstream>

#include "analysis/analysis.h"
#include "analysis/weight_specs.h"
#include "io/ncnn_io.h"
#include "layer_harness.h"
#include "runtime/net.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

namespace {

const std::set<std::string> kTypes = {"Convolution", "ConvolutionDepthWise", "Deconvolution", "DeconvolutionDepthWise",
                                      "InnerProduct", "Gemm", "Pooling", "Padding", "Crop", "Interp",
                                      "MultiHeadAttention", "LayerNorm", "Softmax", "LRN"};

using Line = lt::ZooLine;

// vision_transformer declares no shapes: a 384x384 image, then [145 tokens, 768] (or the MLP's 3072).
Shape vit_input_shape(const Line& l) {
    if (l.type == "Convolution")
        return Shape::d3(384, 384, 3);
    if (l.type == "Gemm") {
        auto t = lt::words(l.text);
        for (auto& x : t)
            if (x.rfind("9=", 0) == 0)
                return Shape::d2(std::stoi(x.substr(2)), l.text.find("cls_score") != std::string::npos ? 1 : 145);
    }
    if (l.type == "Softmax")
        return Shape::d2(1000, 1);
    return Shape::d2(768, 145);
}

uint64_t cost(const Graph& g, const std::vector<Shape>& shapes, uint64_t weights) {
    uint64_t c = 0;
    for (auto& l : g.layers)
        for (int t : l.tops) {
            const Shape& s = shapes[t];
            c += weights * (uint64_t)s.w * s.h + s.total() * 64;
        }
    return c;
}

}  // namespace

TEST(ZooLinesConvSpatialAttention, EveryOwnedLayerLoadsAndMatchesZooShapes) {
    NNFOLD_REQUIRE_ZOO();
    // about 0.3 s of scalar compute natively; sanitizer builds run the cheapest layers only
    const uint64_t budget = test::sanitizer_build() ? 1000000 : 10000000;
    int loaded = 0, shape_checked = 0, ran = 0;
    std::set<std::string> types_seen;
    for (const std::string& path : test::zoo_params()) {
        const std::string file = path.substr(path.rfind('/') + 1);
        const bool vit = file.find("vision_transformer") != std::string::npos;
        auto lines = lt::parse_zoo_lines(test::read_text(path));
        std::map<std::string, Shape> known;
        for (auto& l : lines)
            for (size_t i = 0; i < l.hints.size() && i < l.tops.size(); i++)
                known[l.tops[i]] = l.hints[i];
        for (const Line& l : lines) {
            if (!kTypes.count(l.type))
                continue;
            SCOPED_TRACE(file + ": " + l.text);
            std::string text = "7767517\n" + std::to_string(l.bottoms.size() + 1) + " " +
                               std::to_string(l.bottoms.size() + l.tops.size()) + "\n";
            std::set<std::string> seen;
            for (size_t i = 0; i < l.bottoms.size(); i++)
                if (seen.insert(l.bottoms[i]).second)
                    text += "Input in" + std::to_string(i) + " 0 1 " + l.bottoms[i] + "\n";
            text += l.text + "\n";
            if (seen.size() != l.bottoms.size())
                continue;  // a blob used twice by one layer (not in this zoo)
            Graph g;
            Warnings w;
            Status st = read_param(text, g, w, file);
            ASSERT_TRUE(st.is_ok()) << st.message();
            // weight specs of every layer (randomized below only for the layers that run)
            uint64_t nweights = 0;
            for (auto& layer : g.layers) {
                std::vector<WeightSpec> specs;
                st = weight_specs_for(layer, specs);
                ASSERT_TRUE(st.is_ok()) << st.message();
                for (auto& sp : specs)
                    nweights += sp.count;
            }
            loaded++;
            types_seen.insert(l.type);

            std::map<std::string, Shape> in_shapes;
            for (auto& b : l.bottoms) {
                if (known.count(b))
                    in_shapes[b] = known[b];
                else if (vit)
                    in_shapes[b] = vit_input_shape(l);
            }
            if (in_shapes.size() != l.bottoms.size())
                continue;
            std::vector<Shape> shapes;
            st = infer_shapes(g, in_shapes, shapes);
            ASSERT_TRUE(st.is_ok()) << st.message();
            for (size_t i = 0; i < l.hints.size(); i++) {
                int b = g.find_blob(l.tops[i]);
                EXPECT_EQ(shapes[b], l.hints[i]) << "inferred " << shapes[b].str() << ", zoo hint " << l.hints[i].str();
                shape_checked++;
            }
            if (cost(g, shapes, nweights) > budget)
                continue;
            ASSERT_TRUE(randomize_weights(g, 5).is_ok());

            // run as read, and after a canonical write -> read round trip with the same weights
            std::string written;
            ASSERT_TRUE(write_param(g, written, w).is_ok());
            Graph g2;
            ASSERT_TRUE(read_param(written, g2, w, file).is_ok()) << written;
            ASSERT_EQ(g2.layers.size(), g.layers.size());
            for (size_t i = 0; i < g.layers.size(); i++)
                g2.layers[i].weights = g.layers[i].weights;
            std::map<std::string, Mat> inputs;
            uint32_t seed = 9;
            for (auto& kv : in_shapes)
                inputs[kv.first] = lt::rand_mat(kv.second, ++seed);
            auto out1 = test::run_graph(g, inputs);
            auto out2 = test::run_graph(g2, inputs);
            ASSERT_EQ(out1.size(), l.tops.size());
            for (auto& kv : out1) {
                ASSERT_TRUE(out2.count(kv.first));
                EXPECT_EQ(kv.second.shape(), out2[kv.first].shape());
                EXPECT_EQ(0, std::memcmp(kv.second.data, out2[kv.first].data, kv.second.bytes()))
                    << "the canonical rewrite changed " << kv.first << ":\n" << written;
            }
            ran++;
        }
    }
    // every owned type present in the zoo was read; most lines have hinted inputs
    for (const char* t : {"Convolution", "ConvolutionDepthWise", "InnerProduct", "Gemm", "Pooling", "Padding", "Crop",
                          "Interp", "MultiHeadAttention", "LayerNorm", "Softmax", "LRN"})
        EXPECT_TRUE(types_seen.count(t)) << t << " not found in the zoo";
    EXPECT_GT(loaded, 300);
    EXPECT_GT(shape_checked, 150);
    EXPECT_GT(ran, test::sanitizer_build() ? 20 : 100);
    std::printf("zoo layers: %d loaded, %d top shapes checked against hints, %d run twice\n", loaded, shape_checked, ran);
}
