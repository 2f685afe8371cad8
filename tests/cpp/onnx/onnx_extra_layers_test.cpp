// The layers the ONNX importer added for issue 13, against hand-computed values: nnfold.ScatterND
// (docs/extension-layers.md; plain assignment and the reductions, offsets given as a blob; offsets
// outside the data and bad params are errors), nnfold.Gather (runtime indices) and ncnn's
// CumulativeSum.
#include <gtest/gtest.h>

#include <cstdio>

#include "io/ncnn_io.h"
#include "test_util.h"

namespace nnfold {
namespace {

using test::make_mat;
using test::run_graph;
using test::to_vector;

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
        Graph g = test::graph_from_text(two_rows(0));
        Net net;
        ASSERT_TRUE(net.load(std::move(g)).is_ok());
        std::map<std::string, Mat> outs;
        Status st = net.run({{"d", make_mat({3, 4}, std::vector<float>(12, 0.f))},
                             {"o", make_mat({2}, {0, bad})},
                             {"u", make_mat({2, 4}, std::vector<float>(8, 1.f))}},
                            {}, outs);
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << bad << ": " << st.message();
    }
}

TEST(ScatterNDLayer, BadParamsAndShapesAreErrors) {
    for (const char* text :
         {"7767517\n4 4\nInput d 0 1 d 0=4\nInput o 0 1 o 0=1\nInput u 0 1 u 0=4\nnnfold.ScatterND s 3 1 d o u y 0=0\n",
          "7767517\n4 4\nInput d 0 1 d 0=4\nInput o 0 1 o 0=1\nInput u 0 1 u 0=4\nnnfold.ScatterND s 3 1 d o u y 0=4 1=7\n"}) {
        Graph g;
        Warnings w;
        Status st = read_param(text, g, w);
        if (st.is_ok()) {
            Net net;
            st = net.load(std::move(g));
        }
        EXPECT_FALSE(st.is_ok()) << text;
    }
    // 2 offsets of 4 elements need 8 updates, not 6
    Graph g = test::graph_from_text(
        "7767517\n4 4\nInput d 0 1 d 0=4 1=3\nInput o 0 1 o 0=2\nInput u 0 1 u 0=6\nnnfold.ScatterND s 3 1 d o u y 0=4\n");
    Net net;
    ASSERT_TRUE(net.load(std::move(g)).is_ok());
    std::map<std::string, Mat> outs;
    Status st = net.run({{"d", make_mat({3, 4}, std::vector<float>(12, 0.f))}, {"o", make_mat({2}, {0, 4})},
                         {"u", make_mat({6}, std::vector<float>(6, 1.f))}},
                        {}, outs);
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
        Graph g2 = test::graph_from_text(text);
        Net net;
        ASSERT_TRUE(net.load(std::move(g2)).is_ok());
        std::map<std::string, Mat> outs;
        Status st = net.run({{"d", make_mat({12}, d)}, {"i", make_mat({2}, {0, bad})}}, {}, outs);
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
