// nnfold.Compare and nnfold.Where (docs/extension-layers.md) against hand-computed values and an
// independent broadcasting loop, on odd shapes, both broadcasting directions and scalar forms.
#include <gtest/gtest.h>

#include "io/ncnn_io.h"
#include "test_util.h"

namespace nnfold {
namespace {

using test::make_mat;
using test::run_graph;
using test::to_vector;

TEST(ExtensionLayers, CompareHandComputed) {
    const char* ops[] = {"0", "1", "2", "3", "4", "5"};
    // a = [1, 2, 3], b = [2, 2, 2]
    const std::vector<std::vector<float>> expect = {
        {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 1}, {1, 1, 0}, {1, 0, 1}};
    for (int op = 0; op < 6; op++) {
        std::string text = std::string("7767517\n3 3\nInput a 0 1 a 0=3\nInput b 0 1 b 0=3\n") +
                           "nnfold.Compare c 2 1 a b y 0=" + ops[op] + "\n";
        Graph g = test::graph_from_text(text);
        auto out = run_graph(g, {{"a", make_mat({3}, {1, 2, 3})}, {"b", make_mat({3}, {2, 2, 2})}});
        EXPECT_EQ(to_vector(out["y"]), expect[op]) << "op " << op;
    }
    // scalar form
    Graph g = test::graph_from_text("7767517\n2 2\nInput a 0 1 a 0=4\nnnfold.Compare c 1 1 a y 0=1 1=1 2=5.0e-01\n");
    auto out = run_graph(g, {{"a", make_mat({4}, {0.f, 0.5f, 0.75f, -1.f})}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{0, 0, 1, 0}));
}

TEST(ExtensionLayers, CompareBroadcastsBothWays) {
    // a [3,1,5] vs b [1,4,1]... in ncnn shapes [c,h,w] = [3,1,5] and [1,4,1] -> [3,4,5]
    std::vector<float> a(15), b(4);
    for (int i = 0; i < 15; i++)
        a[i] = (float)((i * 7) % 5) - 2.f;
    for (int i = 0; i < 4; i++)
        b[i] = (float)i - 1.5f;
    Graph g = test::graph_from_text(
        "7767517\n3 3\nInput a 0 1 a 0=5 1=1 2=3\nInput b 0 1 b 0=1 1=4 2=1\nnnfold.Compare c 2 1 a b y 0=1\n");
    auto out = run_graph(g, {{"a", make_mat({3, 1, 5}, a)}, {"b", make_mat({1, 4, 1}, b)}});
    ASSERT_EQ(out["y"].shape(), Shape::d3(5, 4, 3));
    std::vector<float> y = to_vector(out["y"]);
    for (int c = 0; c < 3; c++)
        for (int h = 0; h < 4; h++)
            for (int w = 0; w < 5; w++)
                EXPECT_EQ(y[(c * 4 + h) * 5 + w], a[c * 5 + w] > b[h] ? 1.f : 0.f);
}

TEST(ExtensionLayers, WhereWithBlobsAndScalars) {
    // cond [2,3] (h=2, w=3), x [3], y [2,1]
    std::vector<float> cond = {1, 0, 1, 0, 0, 1}, x = {10, 20, 30}, yv = {-1, -2};
    Graph g = test::graph_from_text(
        "7767517\n4 4\nInput c 0 1 c 0=3 1=2\nInput x 0 1 x 0=3\nInput y 0 1 y 0=1 1=2\n"
        "nnfold.Where w 3 1 c x y out\n");
    auto out = run_graph(g, {{"c", make_mat({2, 3}, cond)}, {"x", make_mat({3}, x)}, {"y", make_mat({2, 1}, yv)}});
    EXPECT_EQ(to_vector(out["out"]), (std::vector<float>{10, -1, 30, -2, -2, 30}));
    // x as a scalar param, y as a blob
    Graph g2 = test::graph_from_text(
        "7767517\n3 3\nInput c 0 1 c 0=3 1=2\nInput y 0 1 y 0=1 1=2\nnnfold.Where w 2 1 c y out 0=1 1=7.0e+00\n");
    auto out2 = run_graph(g2, {{"c", make_mat({2, 3}, cond)}, {"y", make_mat({2, 1}, yv)}});
    EXPECT_EQ(to_vector(out2["out"]), (std::vector<float>{7, -1, 7, -2, -2, 7}));
    // both scalars
    Graph g3 = test::graph_from_text(
        "7767517\n2 2\nInput c 0 1 c 0=3 1=2\nnnfold.Where w 1 1 c out 0=1 1=1.0e+00 2=1 3=-1.0e+00\n");
    auto out3 = run_graph(g3, {{"c", make_mat({2, 3}, cond)}});
    EXPECT_EQ(to_vector(out3["out"]), (std::vector<float>{1, -1, 1, -1, -1, 1}));
}

TEST(ExtensionLayers, BadParamsAndShapesAreErrors) {
    for (const char* text : {"7767517\n2 2\nInput a 0 1 a 0=3\nnnfold.Compare c 1 1 a y 0=9 1=1\n",
                             "7767517\n2 2\nInput a 0 1 a 0=3\nnnfold.Where c 1 1 a y 0=3\n"}) {
        Graph g;
        Warnings w;
        Status st = read_param(text, g, w);
        if (st.is_ok()) {
            Net net;
            st = net.load(std::move(g));
        }
        EXPECT_FALSE(st.is_ok()) << text;
    }
    Graph g2 = test::graph_from_text(
        "7767517\n3 3\nInput a 0 1 a 0=3\nInput b 0 1 b 0=4\nnnfold.Compare c 2 1 a b y\n");
    Net net;
    ASSERT_TRUE(net.load(std::move(g2)).is_ok());
    std::map<std::string, Mat> outs;
    Status st = net.run({{"a", make_mat({3}, {1, 2, 3})}, {"b", make_mat({4}, {1, 2, 3, 4})}}, {}, outs);
    EXPECT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
}

}  // namespace
}  // namespace nnfold
