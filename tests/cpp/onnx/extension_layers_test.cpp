// The layers nnfold adds beyond ncnn's (docs/extension-layers.md) and the ncnn layer the ONNX
// importer needed beside them (issue 13), against hand-computed values: nnfold.Compare and
// nnfold.Where (an independent broadcasting loop, odd shapes, both broadcasting directions and the
// scalar forms), nnfold.ScatterND (plain assignment and the reductions, offsets given as a blob),
// nnfold.Gather (runtime indices) and ncnn's CumulativeSum. Bad params are refused at load;
// offsets, indices and shapes that only a run can check are errors of that run.
#include <gtest/gtest.h>

#include <cstdio>

#include "io/ncnn_io.h"
#include "test_util.h"

namespace nnfold {
namespace {

using test::make_mat;
using test::run_graph;
using test::to_vector;

// A .param text the reader or Net::load must refuse (bad params or blob counts).
void expect_refused_at_load(const char* text) {
    Graph g;
    Warnings w;
    Status st = read_param(text, g, w);
    if (st.is_ok()) {
        Net net;
        st = net.load(std::move(g));
    }
    EXPECT_FALSE(st.is_ok()) << text;
}

// Loads `text` (it must load) and runs it on `inputs`: the run's status (the shape and value
// errors only a run with these inputs can find).
Status run_status(const std::string& text, const std::map<std::string, Mat>& inputs) {
    Net net;
    Status st = net.load(test::graph_from_text(text));
    EXPECT_TRUE(st.is_ok()) << st.message();
    std::map<std::string, Mat> outs;
    return net.run(inputs, {}, outs);
}

TEST(CompareWhereLayers, CompareHandComputed) {
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

TEST(CompareWhereLayers, CompareBroadcastsBothWays) {
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

TEST(CompareWhereLayers, WhereWithBlobsAndScalars) {
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

TEST(CompareWhereLayers, BadParamsAndShapesAreErrors) {
    for (const char* text : {"7767517\n2 2\nInput a 0 1 a 0=3\nnnfold.Compare c 1 1 a y 0=9 1=1\n",
                             "7767517\n2 2\nInput a 0 1 a 0=3\nnnfold.Where c 1 1 a y 0=3\n"})
        expect_refused_at_load(text);
    Status st = run_status("7767517\n3 3\nInput a 0 1 a 0=3\nInput b 0 1 b 0=4\nnnfold.Compare c 2 1 a b y\n",
                           {{"a", make_mat({3}, {1, 2, 3})}, {"b", make_mat({4}, {1, 2, 3, 4})}});
    EXPECT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
}

const char* kTwoRows =
    "7767517\n4 4\nInput d 0 1 d 0=4 1=3\nInput o 0 1 o 0=2\nInput u 0 1 u 0=4 1=2\n"
    "nnfold.ScatterND s 3 1 d o u y 0=4 1=%d\n";

std::string two_rows(int reduction) {
    char buf[256];
    std::snprintf(buf, sizeof buf, kTwoRows, reduction);
    return buf;
}

TEST(ScatterNDLayer, WritesSlicesAtOffsets) {
    // data [3, 4] = 1..12; rows 2 and 0 (offsets 8 and 0) get updates
    std::vector<float> d(12), u = {-1, -2, -3, -4, 5, 6, 7, 8};
    for (int i = 0; i < 12; i++)
        d[i] = (float)(i + 1);
    std::vector<float> none = {5, 6, 7, 8, 5, 6, 7, 8, -1, -2, -3, -4};
    std::vector<float> add = {6, 8, 10, 12, 5, 6, 7, 8, 8, 8, 8, 8};
    std::vector<float> mul = {5, 12, 21, 32, 5, 6, 7, 8, -9, -20, -33, -48};
    std::vector<float> mx = {5, 6, 7, 8, 5, 6, 7, 8, 9, 10, 11, 12};
    std::vector<float> mn = {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4};
    const std::vector<float>* want[] = {&none, &add, &mul, &mx, &mn};
    for (int r = 0; r < 5; r++) {
        Graph g = test::graph_from_text(two_rows(r));
        auto out = run_graph(g, {{"d", make_mat({3, 4}, d)}, {"o", make_mat({2}, {8, 0})}, {"u", make_mat({2, 4}, u)}});
        EXPECT_EQ(to_vector(out["y"]), *want[r]) << "reduction " << r;
    }
}

TEST(ScatterNDLayer, OffsetsOutsideTheDataAreErrors) {
    for (float bad : {9.f, -4.f, 2.5f}) {  // 9 + 4 > 12; negative; not an integer
        Status st = run_status(two_rows(0), {{"d", make_mat({3, 4}, std::vector<float>(12, 0.f))},
                                             {"o", make_mat({2}, {0, bad})},
                                             {"u", make_mat({2, 4}, std::vector<float>(8, 1.f))}});
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << bad << ": " << st.message();
    }
}

TEST(ScatterNDLayer, BadParamsAndShapesAreErrors) {
    for (const char* text :
         {"7767517\n4 4\nInput d 0 1 d 0=4\nInput o 0 1 o 0=1\nInput u 0 1 u 0=4\nnnfold.ScatterND s 3 1 d o u y 0=0\n",
          "7767517\n4 4\nInput d 0 1 d 0=4\nInput o 0 1 o 0=1\nInput u 0 1 u 0=4\nnnfold.ScatterND s 3 1 d o u y 0=4 1=7\n"})
        expect_refused_at_load(text);
    // 2 offsets of 4 elements need 8 updates, not 6
    Status st = run_status(
        "7767517\n4 4\nInput d 0 1 d 0=4 1=3\nInput o 0 1 o 0=2\nInput u 0 1 u 0=6\nnnfold.ScatterND s 3 1 d o u y 0=4\n",
        {{"d", make_mat({3, 4}, std::vector<float>(12, 0.f))}, {"o", make_mat({2}, {0, 4})},
         {"u", make_mat({6}, std::vector<float>(6, 1.f))}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
}

TEST(GatherLayer, RowsByFloatIndicesNegativeWrapAndErrors) {
    // data [outer 2, dim 3, inner 2] = 0..11; indices [2, -1] -> rows 2 and 2 of each outer block
    std::vector<float> d(12);
    for (int i = 0; i < 12; i++)
        d[i] = (float)i;
    const char* text =
        "7767517\n3 3\nInput d 0 1 d 0=12\nInput i 0 1 i 0=2\nnnfold.Gather g 2 1 d i y 0=2 1=3 2=2\n";
    Graph g = test::graph_from_text(text);
    auto out = run_graph(g, {{"d", make_mat({12}, d)}, {"i", make_mat({2}, {2, -1})}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{4, 5, 4, 5, 10, 11, 10, 11}));
    for (float bad : {3.f, -4.f, 0.5f}) {
        Status st = run_status(text, {{"d", make_mat({12}, d)}, {"i", make_mat({2}, {0, bad})}});
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << bad << ": " << st.message();
    }
}

TEST(CumulativeSumLayer, EachAxisOf2DAnd3D) {
    // [h=2, w=3] = 1..6
    const std::vector<float> x = {1, 2, 3, 4, 5, 6};
    const std::vector<std::vector<float>> want2 = {{1, 2, 3, 5, 7, 9}, {1, 3, 6, 4, 9, 15}};
    for (int axis : {0, 1, -1}) {
        Graph g = test::graph_from_text("7767517\n2 2\nInput x 0 1 x 0=3 1=2\nCumulativeSum c 1 1 x y 0=" +
                                        std::to_string(axis) + "\n");
        auto out = run_graph(g, {{"x", make_mat({2, 3}, x)}});
        EXPECT_EQ(to_vector(out["y"]), want2[axis == 0 ? 0 : 1]) << axis;
    }
    // [c=2, h=1, w=3]: axis 0 adds the channels
    Graph g = test::graph_from_text("7767517\n2 2\nInput x 0 1 x 0=3 1=1 2=2\nCumulativeSum c 1 1 x y 0=0\n");
    auto out = run_graph(g, {{"x", make_mat({2, 1, 3}, x)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{1, 2, 3, 5, 7, 9}));
}

}  // namespace
}  // namespace nnfold
