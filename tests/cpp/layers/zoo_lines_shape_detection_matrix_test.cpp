// Every zoo line of the shape / detection / matrix types loads from the zoo's .param files: each
// line is read on its own (behind Input layers for its bottoms) through the real .param reader;
// where the zoo gives the bottoms' shapes (-23330 hints, or vision_transformer's known token
// shapes) the inferred top shapes must equal the zoo's hints (ncnn's own shape inference; the
// detection count is data dependent and not compared). Every line also runs, once as read and
// once after a canonical write -> read round trip: identical outputs show the param tables'
// defaults and float/int kinds agree with what the layers read. Without the zoo: skipped, failed under CI.
#include <cstring>
#include <set>
#include <sstream>

#include "analysis/analysis.h"
#include "io/ncnn_io.h"
#include "coord_harness.h"
#include "test_util.h"

using namespace nnfold;

namespace {

const std::set<std::string> kTypes = {"Concat",  "Slice",      "Permute",      "Reshape", "Flatten", "ShuffleChannel",
                                      "Squeeze", "ExpandDims", "Tile",         "PixelShuffle", "Reorg", "MatMul",
                                      "PriorBox", "DetectionOutput", "YoloDetectionOutput", "Yolov3DetectionOutput"};

using Line = lt::ZooLine;

std::map<std::string, Shape> vit_shapes() {
    return {{"onnx::Shape_153", Shape::d3(12, 12, 768)},
            {"onnx::Transpose_161", Shape::d2(144, 768)},
            {"onnx::Concat_162", Shape::d2(768, 144)},
            {"backbone.cls_token", Shape::d2(768, 1)}};
}
std::map<std::string, Shape> vit_outputs() {
    return {{"onnx::Transpose_161", Shape::d2(144, 768)},
            {"onnx::Concat_162", Shape::d2(768, 144)},
            {"onnx::Add_163", Shape::d2(768, 145)}};
}

}  // namespace

TEST(ZooLinesShapeDetectionMatrix, EveryOwnedLayerLoadsMatchesZooShapesAndSurvivesRoundTrip) {
    NNFOLD_REQUIRE_ZOO();
    int loaded = 0, shape_checked = 0, ran = 0;
    std::set<std::string> types_seen;
    for (const std::string& path : test::zoo_params()) {
        const std::string file = path.substr(path.rfind('/') + 1);
        const bool vit = file.find("vision_transformer") != std::string::npos;
        auto lines = lt::parse_zoo_lines(test::read_text(path));
        std::map<std::string, Shape> known = vit ? vit_shapes() : std::map<std::string, Shape>();
        for (auto& l : lines)
            for (size_t i = 0; i < l.hints.size() && i < l.tops.size(); i++)
                known[l.tops[i]] = l.hints[i];
        for (const Line& l : lines) {
            if (!kTypes.count(l.type))
                continue;
            SCOPED_TRACE(file + ": " + l.text.substr(0, 300));
            std::string text = "7767517\n" + std::to_string(l.bottoms.size() + 1) + " " +
                               std::to_string(l.bottoms.size() + l.tops.size()) + "\n";
            for (size_t i = 0; i < l.bottoms.size(); i++)
                text += "Input in" + std::to_string(i) + " 0 1 " + l.bottoms[i] + "\n";
            text += l.text + "\n";
            Graph g;
            Warnings w;
            Status st = read_param(text, g, w, file);
            ASSERT_TRUE(st.is_ok()) << st.message();
            loaded++;
            types_seen.insert(l.type);

            std::map<std::string, Shape> in_shapes;
            for (auto& b : l.bottoms)
                if (known.count(b))
                    in_shapes[b] = known[b];
            ASSERT_EQ(in_shapes.size(), l.bottoms.size()) << "every owned zoo line has known input shapes";
            std::vector<Shape> shapes;
            st = infer_shapes(g, in_shapes, shapes);
            ASSERT_TRUE(st.is_ok()) << st.message();
            for (size_t i = 0; i < l.tops.size(); i++) {
                const Shape& got = shapes[g.find_blob(l.tops[i])];
                if (i < l.hints.size() && !got.dynamic) {
                    EXPECT_EQ(got, l.hints[i]) << "inferred " << got.str() << ", zoo hint " << l.hints[i].str();
                    shape_checked++;
                } else if (vit && vit_outputs().count(l.tops[i])) {
                    EXPECT_EQ(got, vit_outputs()[l.tops[i]]) << "inferred " << got.str();
                    shape_checked++;
                } else {
                    EXPECT_TRUE(got.dynamic) << l.tops[i] << " has no hint";
                }
            }

            // run as read, and after a canonical write -> read round trip
            std::string written;
            ASSERT_TRUE(write_param(g, written, w).is_ok());
            Graph g2;
            ASSERT_TRUE(read_param(written, g2, w, file).is_ok()) << written;
            std::map<std::string, Mat> inputs;
            uint32_t seed = 9;
            for (auto& kv : in_shapes)
                inputs[kv.first] = lt::rand_mat(kv.second, ++seed, l.type == "DetectionOutput" ? 0.f : -1.f, 1.f);
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
    for (const char* t : {"Concat", "Slice", "Permute", "Reshape", "Flatten", "ShuffleChannel", "PriorBox",
                          "DetectionOutput", "Yolov3DetectionOutput"})
        EXPECT_TRUE(types_seen.count(t)) << t << " not found in the zoo";
    EXPECT_GT(loaded, 100);
    EXPECT_GT(shape_checked, 100);
    std::printf("zoo layers (shape/detection/matrix): %d loaded, %d top shapes checked, %d run twice\n", loaded,
                shape_checked, ran);
}
