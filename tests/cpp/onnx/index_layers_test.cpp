// The layers behind ONNX TopK/ArgMax/ArgMin, Mod, GatherND and Einsum, against hand-computed values:
// nnfold.TopK (ties, smallest, select_last, NaN, k larger than the axis), nnfold.Mod (both sign
// rules, broadcasting, division by 0), nnfold.GatherND (batch dims, negative indices, indices out
// of range), nnfold.NonMaxSuppression (suppression, thresholds, limits) and ncnn's Einsum in its canonical form (matmul, contraction over two letters,
// diagonal, trace, equations ncnn's form does not allow).
#include <gtest/gtest.h>

#include <cmath>

#include "io/ncnn_io.h"
#include "test_util.h"

namespace nnfold {
namespace {

using test::make_mat;
using test::run_graph;
using test::to_vector;

Status run_status(const std::string& text, const std::map<std::string, Mat>& in) {
    Graph g;
    Warnings w;
    Status st = read_param(text, g, w);
    if (!st)
        return st;
    Net net;
    st = net.load(std::move(g));
    if (!st)
        return st;
    std::map<std::string, Mat> outs;
    return net.run(in, {}, outs);
}

// ---------------------------------------------------------------------------------------------
// nnfold.TopK

TEST(TopKLayer, LargestAlongEachAxisWithTiesBySmallerIndex) {
    // [2, 4]: row 0 has a tie (3 at 1 and 3)
    const std::vector<float> x = {1, 3, 2, 3, 8, -1, 5, 0};
    Graph g = test::graph_from_text("7767517\n2 3\nInput x 0 1 x 0=4 1=2\nnnfold.TopK t 1 2 x v i 0=1 1=2\n");
    auto out = run_graph(g, {{"x", make_mat({2, 4}, x)}});
    EXPECT_EQ(to_vector(out["v"]), (std::vector<float>{3, 3, 8, 5}));
    EXPECT_EQ(to_vector(out["i"]), (std::vector<float>{1, 3, 0, 2}));
    // axis 0 (columns), k = 1, smallest
    Graph g0 = test::graph_from_text("7767517\n2 3\nInput x 0 1 x 0=4 1=2\nnnfold.TopK t 1 2 x v i 0=0 1=1 2=0\n");
    out = run_graph(g0, {{"x", make_mat({2, 4}, x)}});
    EXPECT_EQ(to_vector(out["v"]), (std::vector<float>{1, -1, 2, 0}));
    EXPECT_EQ(to_vector(out["i"]), (std::vector<float>{0, 1, 0, 1}));
}

TEST(TopKLayer, ArgMaxFormSelectLastAndNaN) {
    const std::vector<float> x = {3, 1, 3, 0};
    for (int last : {0, 1}) {
        Graph g = test::graph_from_text("7767517\n2 2\nInput x 0 1 x 0=4\nnnfold.TopK t 1 1 x i 0=-1 1=1 3=" +
                                        std::to_string(last) + " 4=1\n");
        auto out = run_graph(g, {{"x", make_mat({4}, x)}});
        EXPECT_EQ(to_vector(out["i"]), (std::vector<float>{last ? 2.f : 0.f})) << last;
    }
    Graph g = test::graph_from_text("7767517\n2 2\nInput x 0 1 x 0=4\nnnfold.TopK t 1 1 x i 1=2 4=1\n");
    auto out = run_graph(g, {{"x", make_mat({4}, {1, NAN, 5, 2})}});
    EXPECT_EQ(to_vector(out["i"]), (std::vector<float>{1, 2}));
}

TEST(TopKLayer, KLargerThanTheAxisAndBadParamsAreErrors) {
    Status st = run_status("7767517\n2 3\nInput x 0 1 x 0=4\nnnfold.TopK t 1 2 x v i 1=5\n",
                           {{"x", make_mat({4}, {1, 2, 3, 4})}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
    for (const char* p : {"1=0", "1=-3", "2=2", "0=3"}) {
        st = run_status(std::string("7767517\n2 3\nInput x 0 1 x 0=4\nnnfold.TopK t 1 2 x v i ") + p + "\n",
                        {{"x", make_mat({4}, {1, 2, 3, 4})}});
        EXPECT_FALSE(st.is_ok()) << p;
    }
}

TEST(ArgMaxLayer, NcnnsFlattenedTopKWithValuesAndTiesToTheLargerIndex) {
    // [2, 3] flattened: 5 at 1 and 4 (a tie: ncnn's sort by (value, index) descending puts 4 first)
    const std::vector<float> x = {1, 5, 2, 0, 5, 3};
    Graph g = test::graph_from_text("7767517\n2 2\nInput x 0 1 x 0=3 1=2\nArgMax a 1 1 x y 1=3\n");
    auto out = run_graph(g, {{"x", make_mat({2, 3}, x)}});
    EXPECT_EQ(out["y"].shape(), Shape::d2(3, 1));
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{4, 1, 5}));
    Graph gv = test::graph_from_text("7767517\n2 2\nInput x 0 1 x 0=3 1=2\nArgMax a 1 1 x y 0=1 1=2\n");
    out = run_graph(gv, {{"x", make_mat({2, 3}, x)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{5, 5, 4, 1}));  // values, then indices
    Status st = run_status("7767517\n2 2\nInput x 0 1 x 0=3\nArgMax a 1 1 x y 1=4\n", {{"x", make_mat({3}, {1, 2, 3})}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
}

// ---------------------------------------------------------------------------------------------
// nnfold.Mod

TEST(ModLayer, BothSignRulesWithBroadcastingAndZero) {
    // a [2, 3] against b [3]
    const std::vector<float> a = {7, -7, 7, -7.5f, 5, 0};
    const std::vector<float> b = {3, 3, -3};
    const char* text = "7767517\n3 3\nInput a 0 1 a 0=3 1=2\nInput b 0 1 b 0=3\nnnfold.Mod m 2 1 a b y 0=%d\n";
    char buf[200];
    std::snprintf(buf, sizeof buf, text, 1);
    auto out = run_graph(test::graph_from_text(buf), {{"a", make_mat({2, 3}, a)}, {"b", make_mat({3}, b)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{1, -1, 1, -1.5f, 2, 0}));
    std::snprintf(buf, sizeof buf, text, 0);
    out = run_graph(test::graph_from_text(buf), {{"a", make_mat({2, 3}, a)}, {"b", make_mat({3}, b)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{1, 2, -2, 1.5f, 2, 0}));
    out = run_graph(test::graph_from_text(buf), {{"a", make_mat({2, 3}, a)}, {"b", make_mat({3}, {0, 1, 1})}});
    EXPECT_TRUE(std::isnan(to_vector(out["y"])[0]));
}

// ---------------------------------------------------------------------------------------------
// nnfold.GatherND

TEST(GatherNDLayer, TuplesSlicesBatchesAndNegativeIndices) {
    // data [2, 3, 2] = 0..11, k = 2 (slices of 2): tuples (1, -1) and (0, 0)
    std::vector<float> d(12);
    for (int i = 0; i < 12; i++)
        d[i] = (float)i;
    Graph g = test::graph_from_text(
        "7767517\n3 3\nInput d 0 1 d 0=12\nInput i 0 1 i 0=4\nnnfold.GatherND g 2 1 d i y 1=2 -23302=2,2,3\n");
    auto out = run_graph(g, {{"d", make_mat({12}, d)}, {"i", make_mat({4}, {1, -1, 0, 0})}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{10, 11, 0, 1}));
    // batch_dims = 1: data [2 batches, 3, slice 2], one tuple per batch: row 2 of batch 0, row 0 of batch 1
    Graph gb = test::graph_from_text(
        "7767517\n3 3\nInput d 0 1 d 0=12\nInput i 0 1 i 0=2\nnnfold.GatherND g 2 1 d i y 0=2 1=2 -23302=1,3\n");
    out = run_graph(gb, {{"d", make_mat({12}, d)}, {"i", make_mat({2}, {2, 0})}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{4, 5, 6, 7}));
}

TEST(GatherNDLayer, IndicesOutOfRangeAreErrors) {
    for (float bad : {3.f, -4.f, 1.5f, NAN}) {
        Status st = run_status(
            "7767517\n3 3\nInput d 0 1 d 0=6\nInput i 0 1 i 0=2\nnnfold.GatherND g 2 1 d i y 1=2 -23302=1,3\n",
            {{"d", make_mat({6}, std::vector<float>(6, 1.f))}, {"i", make_mat({2}, {0, bad})}});
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << bad << ": " << st.message();
    }
}

// ---------------------------------------------------------------------------------------------
// Einsum (ncnn's layer, canonical equations)

std::string einsum_param(const std::string& eq) {
    std::string s = "-23300=" + std::to_string(eq.size());
    for (char c : eq)
        s += "," + std::to_string((int)c);
    return s;
}

TEST(EinsumLayer, MatMulContractionDiagonalAndTrace) {
    // "im,mj->ij": [2, 3] x [3, 2]
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1};
    Graph g = test::graph_from_text("7767517\n3 3\nInput a 0 1 a 0=3 1=2\nInput b 0 1 b 0=2 1=3\nEinsum e 2 1 a b y " +
                                    einsum_param("im,mj->ij") + "\n");
    auto out = run_graph(g, {{"a", make_mat({2, 3}, a)}, {"b", make_mat({3, 2}, b)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{4, 5, 10, 11}));
    // "mn,mn->i" with i absent from the inputs: the full contraction as a [1] tensor
    g = test::graph_from_text("7767517\n3 3\nInput a 0 1 a 0=3 1=2\nInput b 0 1 b 0=3 1=2\nEinsum e 2 1 a b y " +
                              einsum_param("mn,mn->i") + "\n");
    out = run_graph(g, {{"a", make_mat({2, 3}, a)}, {"b", make_mat({2, 3}, a)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{91}));
    // diagonal "ii->i" and trace "ii"
    const std::vector<float> sq = {1, 2, 3, 4};
    g = test::graph_from_text("7767517\n2 2\nInput a 0 1 a 0=2 1=2\nEinsum e 1 1 a y " + einsum_param("ii->i") + "\n");
    out = run_graph(g, {{"a", make_mat({2, 2}, sq)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{1, 4}));
    g = test::graph_from_text("7767517\n2 2\nInput a 0 1 a 0=2 1=2\nEinsum e 1 1 a y " + einsum_param("ii") + "\n");
    out = run_graph(g, {{"a", make_mat({2, 2}, sq)}});
    EXPECT_EQ(to_vector(out["y"]), (std::vector<float>{5}));
}

TEST(EinsumLayer, NonCanonicalEquationsAndMismatchedExtentsAreErrors) {
    for (const char* eq : {"ij->ji", "ab->a", "ij", "ijklm->i", "im,mj->ijklm"}) {
        Status st = run_status("7767517\n2 2\nInput a 0 1 a 0=2 1=2\nEinsum e 1 1 a y " + einsum_param(eq) + "\n",
                               {{"a", make_mat({2, 2}, {1, 2, 3, 4})}});
        EXPECT_FALSE(st.is_ok()) << eq;
    }
    Status st = run_status("7767517\n3 3\nInput a 0 1 a 0=3 1=2\nInput b 0 1 b 0=2 1=2\nEinsum e 2 1 a b y " +
                               einsum_param("im,mj->ij") + "\n",
                           {{"a", make_mat({2, 3}, std::vector<float>(6, 1.f))},
                            {"b", make_mat({2, 2}, std::vector<float>(4, 1.f))}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
}

// ---------------------------------------------------------------------------------------------
// nnfold.NonMaxSuppression

TEST(NonMaxSuppressionLayer, SuppressesOverlapsKeepsScoreOrderAndLimits) {
    // corners [y1, x1, y2, x2]: box 1 overlaps box 0 with IoU 0.9, box 2 is apart; class 1 scores
    // put box 2 first
    const std::vector<float> boxes = {0, 0, 1, 1, 0, 0, 1, 0.9f, 2, 2, 3, 3};
    const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.1f, 0.2f, 0.95f};
    auto run = [&](const std::string& params) {
        Graph g = test::graph_from_text("7767517\n3 3\nInput b 0 1 b 0=4 1=3\nInput s 0 1 s 0=3 1=2\n"
                                        "nnfold.NonMaxSuppression n 2 1 b s y " + params + "\n");
        auto out = run_graph(g, {{"b", make_mat({3, 4}, boxes)}, {"s", make_mat({2, 3}, scores)}});
        return to_vector(out["y"]);
    };
    EXPECT_EQ(run("0=10 1=5.0e-01"), (std::vector<float>{0, 0, 0, 0, 0, 2, 0, 1, 2, 0, 1, 1}));
    // the suppressed box comes back when the IoU threshold is above its overlap
    EXPECT_EQ(run("0=10 1=9.5e-01"), (std::vector<float>{0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 2, 0, 1, 1, 0, 1, 0}));
    // score threshold 0.75 (strictly above) and one box per class
    EXPECT_EQ(run("0=1 1=5.0e-01 2=7.5e-01 3=1"), (std::vector<float>{0, 0, 0, 0, 1, 2}));
    // a limit of 0 selects nothing: an empty result
    EXPECT_TRUE(run("0=0 1=5.0e-01").empty());
}

TEST(NonMaxSuppressionLayer, BadParamsAndShapesAreErrors) {
    for (const char* p : {"0=-1", "1=1.5e+00", "3=2", "4=3", "5=0"}) {
        Status st = run_status(std::string("7767517\n3 3\nInput b 0 1 b 0=4 1=3\nInput s 0 1 s 0=3\n"
                                           "nnfold.NonMaxSuppression n 2 1 b s y ") + p + "\n",
                               {{"b", make_mat({3, 4}, std::vector<float>(12, 0.f))}, {"s", make_mat({3}, {1, 2, 3})}});
        EXPECT_FALSE(st.is_ok()) << p;
    }
    // 3 boxes but 4 scores per class
    Status st = run_status("7767517\n3 3\nInput b 0 1 b 0=4 1=3\nInput s 0 1 s 0=4\nnnfold.NonMaxSuppression n 2 1 b s y 0=2\n",
                           {{"b", make_mat({3, 4}, std::vector<float>(12, 0.f))}, {"s", make_mat({4}, {1, 2, 3, 4})}});
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
}

}  // namespace
}  // namespace nnfold
