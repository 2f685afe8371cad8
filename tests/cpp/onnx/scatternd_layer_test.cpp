// nnfold.ScatterND (CONVENTIONS section 6) against hand-computed values: plain assignment and the
// reductions, offsets given as a blob; offsets outside the data and bad params are errors.
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

}  // namespace
}  // namespace nnfold
