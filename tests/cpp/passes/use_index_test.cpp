// The graph's use index (model/graph.h): with it on, producer() / consumers() answer from the index,
// which every edit function keeps equal to a rescan of the layers; check_use_index() catches an
// edit made around those functions. The optimizer tests run check_use_index after every rewrite
// (passes_harness.h, zoo_optimize_test.cpp, tests/fuzz/optfuzz.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/graph.h"
#include "passes/optimizer.h"

namespace nnfold {
namespace {

LayerNode node(const std::string& type, const std::string& name, std::vector<int> bottoms, std::vector<int> tops) {
    LayerNode l;
    l.type = type;
    l.name = name;
    l.bottoms = std::move(bottoms);
    l.tops = std::move(tops);
    return l;
}

// in -> a -> b -> c (a, b, c Noops) plus a Concat reading b's input twice.
Graph small_graph() {
    Graph g;
    for (int i = 0; i < 5; i++)
        g.add_blob("b" + std::to_string(i));
    g.add_layer(node("Input", "in", {}, {0}));
    g.add_layer(node("Noop", "a", {0}, {1}));
    g.add_layer(node("Noop", "b", {1}, {2}));
    g.add_layer(node("Noop", "c", {2}, {3}));
    g.add_layer(node("Concat", "cat", {1, 1}, {4}));
    return g;
}

// The index's answers equal the scanning ones (the same graph with the index off).
void expect_same_as_scan(const Graph& g) {
    ASSERT_TRUE(g.use_index_on());
    ASSERT_TRUE(g.check_use_index().is_ok()) << g.check_use_index().message();
    Graph scan = g;
    scan.set_use_index(false);
    for (int b = -1; b <= (int)g.blobs.size(); b++) {
        EXPECT_EQ(g.producer(b), scan.producer(b)) << "blob " << b;
        EXPECT_EQ(g.consumers(b), scan.consumers(b)) << "blob " << b;
        EXPECT_EQ(g.consumer_count(b), scan.consumer_count(b)) << "blob " << b;
    }
}

TEST(UseIndex, EditFunctionsKeepItEqualToARescan) {
    Graph g = small_graph();
    g.set_use_index(true);
    expect_same_as_scan(g);
    EXPECT_EQ(g.consumers(1), (std::vector<int>{2, 4, 4}));  // once per use, in execution order

    g.set_bottom(3, 0, 1);  // c reads a's output
    expect_same_as_scan(g);
    g.replace_uses(1, 0);  // everything reading a's output reads the input
    expect_same_as_scan(g);
    EXPECT_EQ(g.consumers(0), (std::vector<int>{1, 2, 3, 4, 4}));
    g.erase_layer(1);
    expect_same_as_scan(g);
    g.set_top(2, 0, 1);  // b writes blob 1 (a is erased)
    expect_same_as_scan(g);
    g.erase_bottom(4, 1);
    g.set_bottoms(4, {1, 0, 1});
    expect_same_as_scan(g);
    int nb = g.add_blob("extra");
    int nl = g.add_layer(node("Split", "sp", {3}, {nb}));
    expect_same_as_scan(g);
    g.set_tops(nl, {nb, g.add_blob("extra2")});
    g.erase_top(nl, 0);
    expect_same_as_scan(g);
    g.insert_layer(1, node("Noop", "early", {0}, {g.add_blob("early_out")}));
    expect_same_as_scan(g);
    g.compact();
    expect_same_as_scan(g);
    ASSERT_TRUE(g.validate().is_ok()) << g.validate().message();
}

TEST(UseIndex, TwoProducersWhileARewriteMovesABlob) {
    // absorb_consumer's order: the producer takes the consumer's output, then the consumer goes
    Graph g = small_graph();
    g.set_use_index(true);
    g.set_top(1, 0, 2);  // a and b both write blob 2 for a moment
    expect_same_as_scan(g);
    EXPECT_EQ(g.producer(2), 1);
    g.erase_layer(2);
    expect_same_as_scan(g);
    EXPECT_EQ(g.producer(2), 1);
}

TEST(UseIndex, AnEditAroundTheEditFunctionsIsDetected) {
    Graph g = small_graph();
    g.set_use_index(true);
    g.layers[3].bottoms[0] = 0;  // not through set_bottom
    Status st = g.check_use_index();
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::Internal);
    EXPECT_NE(st.message().find("consumers of blob 'b0'"), std::string::npos) << st.message();

    Graph h = small_graph();
    h.set_use_index(true);
    h.layers[2].erased = true;  // not through erase_layer
    st = h.check_use_index();
    ASSERT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("consumers of blob 'b1'"), std::string::npos) << st.message();  // b read b1

    // off: nothing to compare, the queries scan
    Graph k = small_graph();
    k.layers[3].bottoms[0] = 0;
    EXPECT_TRUE(k.check_use_index().is_ok());
    EXPECT_EQ(k.consumers(0), (std::vector<int>{1, 3}));
}

TEST(UseIndex, RandomEditsAgreeWithARescan) {
    std::mt19937 rng(16);
    for (int trial = 0; trial < 50; trial++) {
        Graph g;
        int nblobs = 12;
        for (int b = 0; b < nblobs; b++)
            g.add_blob("b" + std::to_string(b));
        for (int i = 0; i < 10; i++)
            g.add_layer(node("Noop", "l" + std::to_string(i), {(int)(rng() % nblobs)}, {(int)(rng() % nblobs)}));
        g.set_use_index(true);
        for (int step = 0; step < 40; step++) {
            int l = (int)(rng() % g.layers.size());
            int b = (int)(rng() % g.blobs.size());
            switch (rng() % 8) {
            case 0: g.set_bottom(l, 0, b); break;
            case 1: g.set_top(l, 0, b); break;
            case 2: g.replace_uses(b, (int)(rng() % g.blobs.size())); break;
            case 3: g.erase_layer(l); break;
            case 4: g.set_bottoms(l, {b, b, (int)(rng() % g.blobs.size())}); break;
            case 5: g.add_layer(node("Noop", "n" + std::to_string(step), {b}, {g.add_blob("n")})); break;
            case 6: g.insert_layer(l, node("Noop", "i" + std::to_string(step), {b}, {b})); break;
            case 7:
                if (g.layers[l].bottoms.size() > 1)
                    g.erase_bottom(l, 0);
                break;
            }
            ASSERT_NO_FATAL_FAILURE(expect_same_as_scan(g)) << "trial " << trial << " step " << step;
        }
        g.compact();
        ASSERT_NO_FATAL_FAILURE(expect_same_as_scan(g));
    }
}

// A chain of Dropouts is removed in one pass that queries and rewires every layer (with the index
// kept current by the graph's edit functions). Correctness only: the speed of this (linear with the
// index; 20,000 layers in about 0.1 s, 100,000 in under a second) is measured by
// tests/bench/optimizer_bench.cpp, never asserted as a timing in a test.
TEST(UseIndex, OptimizerRemovesALongChain) {
    const int n = 8000;
    Graph g;
    g.add_blob("b0");
    LayerNode in = node("Input", "in", {}, {0});
    in.params.set_int(0, 8);
    in.params.set_int(1, 8);
    in.params.set_int(2, 4);
    g.add_layer(in);
    for (int i = 1; i <= n; i++)
        g.add_layer(node("Dropout", "d" + std::to_string(i), {i - 1}, {g.add_blob("b" + std::to_string(i))}));
    OptimizeReport r;
    Warnings w;
    Status st = optimize(g, OptimizeOptions(), r, w);
    ASSERT_TRUE(st.is_ok()) << st.message();
    // the last Dropout stays: it writes the model's output and its input is the model's input
    EXPECT_EQ(g.live_layer_count(), 2);
    EXPECT_FALSE(g.use_index_on());  // off again for callers that edit the graph directly
}

}  // namespace
}  // namespace nnfold
