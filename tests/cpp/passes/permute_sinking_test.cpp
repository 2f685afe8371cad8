// fuse_permute_reshape_chain and sink_permute: the Reshape -> 2D Permute -> Reshape spelling of a
// 3D transpose becomes one Permute, Permute pairs compose or cancel, Permutes move below
// elementwise layers so per-channel math after an NHWC transpose folds into the Convolution
// before it. Outputs equal before and after; near misses: a second consumer, a kept blob, a
// constant along two axes, a constant with another reader, unknown shapes.
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";  // [3,6,7]
const char* kChain = "fuse_permute_reshape_chain";
const char* kSink = "sink_permute";

}  // namespace

TEST(FusePermuteReshapeChain, ReshapePermuteReshapeIsOnePermute) {
    PT_REQUIRE_LAYERS("Permute", "Reshape", "ReLU");
    // [3,6,7] -> [3,42] -> transpose -> [42,3] -> [6,7,3]: NCHW -> NHWC, Permute order 3 (c w h)
    auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Reshape a 1 1 x a 0=42 1=3", "Permute b 1 1 a b 0=1",
                                      "Reshape c 1 1 b out 0=3 1=7 2=6"}),
                               pt::only({kChain}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kChain), 1);
    EXPECT_EQ(o.after.live_layer_count(), 3);
    const LayerNode* p = pt::layer(o.after, "a");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->type, "Permute");
    EXPECT_EQ(p->params.get_int(0, -1), 3);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FusePermuteReshapeChain, PairsCancelOrCompose) {
    PT_REQUIRE_LAYERS("Permute", "ReLU");
    {
        // order 3 then its inverse, order 4: nothing left between the Input and the ReLU
        auto o = pt::optimize_text(model({kIn, "Permute a 1 1 data a 0=3", "Permute b 1 1 a b 0=4", "ReLU r 1 1 b out"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kChain), 1);
        EXPECT_EQ(pt::count_type(o.after, "Permute"), 0);
        EXPECT_EQ(o.after.live_layer_count(), 2);
        pt::expect_same_outputs(o.before, o.after);
    }
    {
        // h <-> w twice, the second writing the model output: the output keeps its name
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute a 1 1 x a 0=1", "Permute b 1 1 a out 0=1"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::count_type(o.after, "Permute"), 0);
        EXPECT_EQ(o.after.live_layer_count(), 2);
        pt::expect_same_outputs(o.before, o.after);
    }
    {
        // two that do not cancel compose into one
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute a 1 1 x a 0=1", "Permute b 1 1 a out 0=2"}),
                                   pt::only({kChain}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::count_type(o.after, "Permute"), 1);
        pt::expect_same_outputs(o.before, o.after);
    }
    {
        // 4D pair
        auto o = pt::optimize_text(model({"Input data 0 1 data 0=5 1=4 11=3 2=2", "ReLU r 1 1 data x",
                                          "Permute a 1 1 x a 0=9", "Permute b 1 1 a b 0=0", "Permute c 1 1 b out 0=7"}),
                                   pt::only({kChain}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_LE(pt::count_type(o.after, "Permute"), 1);
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FusePermuteReshapeChain, MustNotFire) {
    PT_REQUIRE_LAYERS("Permute", "ReLU", "Split");
    {
        // the blob between the two Permutes has a second reader
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute a 1 1 x a 0=3", "Split s 1 2 a a1 a2",
                                          "Permute b 1 1 a1 out 0=4", "ReLU r2 1 1 a2 out2"}),
                                   pt::only({kChain}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kChain), 0);
    }
    {
        // kept
        OptimizeOptions opt = pt::only({kChain});
        opt.keep = {"a"};
        auto o = pt::optimize_text(
            model({kIn, "ReLU r 1 1 data x", "Permute a 1 1 x a 0=3", "Permute b 1 1 a out 0=4"}), opt);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kChain), 0);
    }
    {
        // a Reshape that is not a transpose in disguise: [3,42] read as [42,3] without a Permute,
        // then a Permute: nothing equals one Permute of the input
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Reshape a 1 1 x a 0=3 1=42",
                                          "Permute b 1 1 a b 0=1", "Reshape c 1 1 b out 0=7 1=6 2=3"}),
                                   pt::only({kChain}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kChain), 0);
        // unknown shape: refused, saying shapes unlock it
        auto u = pt::optimize_text(model({"Input data 0 1 data", "ReLU r 1 1 data x", "Permute a 1 1 x a 0=3",
                                          "Permute b 1 1 a out 0=4"}),
                                   pt::only({kChain}));
        ASSERT_TRUE(u.st.is_ok()) << u.st.message();
        EXPECT_EQ(pt::rewrites_of(u.report, kChain), 0);
        EXPECT_NE(pt::skip_reasons(u.report, kChain).find("give input shapes"), std::string::npos);
    }
}

TEST(SinkPermute, PerChannelMathAfterNhwcTransposeFoldsIntoConvolution) {
    PT_REQUIRE_LAYERS("Permute", "BinaryOp", "Convolution");
    // Conv [4,6,7] -> NHWC [6,7,4] -> * s + t with s, t along the last axis ([1,1,4]), and the
    // same with [4] constants (along w of [6,7,4] since c is 6)
    for (std::string kd : {"0=4 1=1 2=1", "0=4"}) {
        SCOPED_TRACE(kd);
        auto o = pt::optimize_text(model({kIn, "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108",
                                          "Permute p 1 1 c p 0=3", "MemoryData s 0 1 s " + kd,
                                          "BinaryOp mul 2 1 p s m 0=2", "MemoryData t 0 1 t " + kd,
                                          "BinaryOp add 2 1 m t out 0=0"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kSink), 2);
        EXPECT_EQ(o.after.live_layer_count(), 3);  // Input, Convolution, Permute
        EXPECT_EQ(pt::count_type(o.after, "Permute"), 1);
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(SinkPermute, UnaryScalarAndConstantBeforeThePermute) {
    PT_REQUIRE_LAYERS("Permute", "BinaryOp", "Sigmoid", "ReLU");
    // the MemoryData comes before the Permute; a constant along h of the NHWC output ([1,7,1])
    auto o = pt::optimize_text(model({kIn, "MemoryData k 0 1 k 0=1 1=7 2=1", "ReLU r 1 1 data x",
                                      "Permute p 1 1 x p 0=3", "Sigmoid sg 1 1 p s1",
                                      "BinaryOp sc 1 1 s1 s2 0=2 1=1 2=1.5", "BinaryOp k2 2 1 k s2 out 0=1"}),
                               pt::only({kSink}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kSink), 3);
    // the Permute is last
    const LayerNode* last = nullptr;
    for (auto& l : o.after.layers)
        if (!l.erased)
            last = &l;
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->type, "Permute");
    pt::expect_same_outputs(o.before, o.after);
}

TEST(SinkPermute, MustNotFire) {
    PT_REQUIRE_LAYERS("Permute", "BinaryOp", "ReLU", "Split");
    {
        // the Permute's output has a second reader
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute p 1 1 x p 0=3", "Split s 1 2 p p1 p2",
                                          "ReLU a 1 1 p1 out", "ReLU b 1 1 p2 out2"}),
                                   pt::only({kSink}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kSink), 0);
    }
    {
        // a constant varying along two axes, one kept blob, a constant with another reader
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute p 1 1 x p 0=3",
                                          "MemoryData k 0 1 k 0=3 1=7 2=1", "BinaryOp b 2 1 p k out 0=0"}),
                                   pt::only({kSink}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kSink), 0);
        EXPECT_NE(pt::skip_reasons(o.report, kSink).find("several axes"), std::string::npos);
        OptimizeOptions opt = pt::only({kSink});
        opt.keep = {"p"};
        auto kept = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute p 1 1 x p 0=3", "ReLU a 1 1 p out"}), opt);
        ASSERT_TRUE(kept.st.is_ok()) << kept.st.message();
        EXPECT_EQ(pt::rewrites_of(kept.report, kSink), 0);
        auto shared = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "Permute p 1 1 x p 0=3",
                                               "MemoryData k 0 1 k 0=3", "Split s 1 2 k k1 k2",
                                               "BinaryOp b 2 1 p k1 m 0=0", "BinaryOp c 2 1 m k2 out 0=2"}),
                                        pt::only({kSink}));
        ASSERT_TRUE(shared.st.is_ok()) << shared.st.message();
        EXPECT_EQ(pt::rewrites_of(shared.report, kSink), 0);
        pt::expect_same_outputs(shared.before, shared.after);
    }
}

TEST(SinkPermute, PerChannelLayersOnlyWhenTheChannelAxisStays) {
    PT_REQUIRE_LAYERS("Permute", "BatchNorm", "Scale", "Convolution");
    // order 1 swaps h and w, c stays: the BatchNorm moves above the Permute and folds into the conv
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6 2=3", "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108",
                                      "Permute p 1 1 c p 0=1", "BatchNorm bn 1 1 p b 0=4 1=0.001",
                                      "Scale sc 1 1 b out 0=4 1=1"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 3);  // Input, Convolution, Permute
    pt::expect_same_outputs(o.before, o.after);
    // order 3 moves c: the BatchNorm (of the NHWC blob's 6 "channels") stays below
    auto n = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6 2=3", "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108",
                                      "Permute p 1 1 c p 0=3", "BatchNorm bn 1 1 p out 0=6 1=0.001"}),
                               pt::only({"sink_permute"}));
    ASSERT_TRUE(n.st.is_ok()) << n.st.message();
    EXPECT_EQ(pt::rewrites_of(n.report, "sink_permute"), 0);
    pt::expect_same_outputs(n.before, n.after);
}
