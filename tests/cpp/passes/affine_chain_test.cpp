// fuse_affine_binaryop_chain: per-channel Mul/Add/Sub/Div chains with constants and nothing to
// fold into become one Scale; scalar chains shrink to at most a multiply and an add. Outputs equal
// before and after; near misses: a second consumer inside the chain, a constant that is not per
// channel, a kept intermediate blob, an unknown shape, a host that takes the chain itself.
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";  // [3,6,7]
const char* kPass = "fuse_affine_binaryop_chain";

}  // namespace

TEST(FuseAffineChain, PerChannelMulAddBecomesOneScale) {
    PT_REQUIRE_LAYERS("BinaryOp", "Scale", "ReLU");
    // [c], [c,1,1] and [c,1] spellings of a per-channel constant
    for (std::string kdims : {"0=3", "0=1 1=1 2=3", "0=1 1=3"}) {
        SCOPED_TRACE(kdims);
        auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "MemoryData s 0 1 s " + kdims,
                                          "MemoryData t 0 1 t " + kdims, "BinaryOp mul 2 1 x s m 0=2",
                                          "BinaryOp add 2 1 m t out 0=0"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);
        EXPECT_EQ(o.after.live_layer_count(), 3);  // Input, ReLU, Scale
        ASSERT_EQ(pt::count_type(o.after, "Scale"), 1);
        const LayerNode* sc = pt::layer(o.after, "mul");
        ASSERT_NE(sc, nullptr);
        EXPECT_EQ(sc->params.get_int(0, 0), 3);
        EXPECT_EQ(sc->params.get_int(1, 0), 1);
        std::vector<float> s = pt::weights_of(o.before, "s", 0), t = pt::weights_of(o.before, "t", 0);
        pt::expect_near_all(sc->weights[0].data, {s[0], s[1], s[2]});
        pt::expect_near_all(sc->weights[1].data, {t[0], t[1], t[2]});
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FuseAffineChain, SubDivAndConstantFirstForms) {
    PT_REQUIRE_LAYERS("BinaryOp", "Scale", "ReLU");
    // (K1 - x) / K2 * 3 + K3, written with the constants on either side and rsub / rdiv
    auto o = pt::optimize_text(model({kIn, "ReLU r 1 1 data x", "MemoryData k1 0 1 k1 0=3", "MemoryData k2 0 1 k2 0=3",
                                      "MemoryData k3 0 1 k3 0=1 1=1 2=3", "BinaryOp a 2 1 k1 x y1 0=1",
                                      "BinaryOp b 2 1 k2 y1 y2 0=8", "BinaryOp c 1 1 y2 y3 0=2 1=1 2=3.0",
                                      "BinaryOp d 2 1 y3 k3 y4 0=7", "BinaryOp e 1 1 y4 out 0=1 1=1 2=0.25"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_EQ(pt::count_type(o.after, "MemoryData"), 0);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseAffineChain, OneDimensionalInputAndSharedConstantThroughSplit) {
    PT_REQUIRE_LAYERS("BinaryOp", "Scale", "ReLU", "Split");
    // x [5]; the same MemoryData read by two links through a Split
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=5", "ReLU r 1 1 data x", "MemoryData k 0 1 k 0=5",
                                      "Split sp 1 2 k k1 k2", "BinaryOp a 2 1 x k1 y1 0=2",
                                      "BinaryOp b 2 1 y1 k2 out 0=0"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);
    EXPECT_EQ(o.after.live_layer_count(), 3);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseAffineChain, ScalarChainShrinksToMulAndAdd) {
    PT_REQUIRE_LAYERS("BinaryOp", "ReLU");
    // unknown input shape: scalars need none
    auto o = pt::optimize_text(model({"Input data 0 1 data", "ReLU r 1 1 data x", "BinaryOp a 1 1 x y1 0=2 1=1 2=2.0",
                                      "BinaryOp b 1 1 y1 y2 0=0 1=1 2=3.0", "BinaryOp c 1 1 y2 y3 0=3 1=1 2=4.0",
                                      "BinaryOp d 1 1 y3 out 0=1 1=1 2=1.0"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);
    EXPECT_EQ(pt::count_type(o.after, "BinaryOp"), 2);
    // ((2 x + 3) / 4) - 1 = x * 0.5 - 0.25
    const LayerNode* a = pt::layer(o.after, "a");
    const LayerNode* b = pt::layer(o.after, "b");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->params.get_int(0, -1), 2);
    EXPECT_FLOAT_EQ(a->params.get_float(2, 0), 0.5f);
    EXPECT_EQ(b->params.get_int(0, -1), 0);
    EXPECT_FLOAT_EQ(b->params.get_float(2, 0), -0.25f);
    pt::expect_same_outputs(o.before, o.after, {{"data", Shape::d3(5, 4, 2)}});
    // a lone scalar op stays
    auto one = pt::optimize_text(model({"Input data 0 1 data", "ReLU r 1 1 data x", "BinaryOp a 1 1 x out 0=2 1=1 2=2.0"}),
                                 pt::only({kPass}));
    ASSERT_TRUE(one.st.is_ok());
    EXPECT_EQ(pt::rewrites_of(one.report, kPass), 0);
}

TEST(FuseAffineChain, MustNotFire) {
    PT_REQUIRE_LAYERS("BinaryOp", "Scale", "ReLU", "Split");
    const std::string r = "ReLU r 1 1 data x", s = "MemoryData s 0 1 s 0=3", t = "MemoryData t 0 1 t 0=3";
    {
        // the blob between the links has a second consumer: each link alone becomes a Scale, no chain
        auto o = pt::optimize_text(model({kIn, r, s, t, "BinaryOp mul 2 1 x s m 0=2", "Split sp 1 2 m m1 m2",
                                          "BinaryOp add 2 1 m1 t out 0=0", "ReLU r2 1 1 m2 out2"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 2);
        EXPECT_EQ(pt::count_type(o.after, "Scale"), 2);
        pt::expect_same_outputs(o.before, o.after);
    }
    {
        // a constant of the whole shape [3,6,7] is not per channel
        auto o = pt::optimize_text(model({kIn, r, "MemoryData s 0 1 s 0=7 1=6 2=3", t, "BinaryOp mul 2 1 x s m 0=2",
                                          "BinaryOp add 2 1 m t out 0=0"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);  // only the Add (its constant is [3])
        EXPECT_NE(pt::skip_reasons(o.report, kPass).find("not one value per channel"), std::string::npos)
            << pt::skip_reasons(o.report, kPass);
        EXPECT_EQ(pt::count_type(o.after, "BinaryOp"), 1);
        pt::expect_same_outputs(o.before, o.after);
    }
    {
        // the intermediate blob is kept: the links fuse separately, m survives with its values
        OptimizeOptions opt = pt::only({kPass});
        opt.keep = {"m"};
        auto o = pt::optimize_text(model({kIn, r, s, t, "BinaryOp mul 2 1 x s m 0=2", "BinaryOp add 2 1 m t out 0=0"}),
                                   opt);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::count_type(o.after, "Scale"), 2);
        EXPECT_GE(o.after.find_blob("m"), 0);
        pt::expect_same_outputs(o.before, o.after, {}, {"m"});
    }
    {
        // unknown shape: a [3] constant may not be per channel; the refusal says shapes unlock it
        auto o = pt::optimize_text(model({"Input data 0 1 data", r, s, t, "BinaryOp mul 2 1 x s m 0=2",
                                          "BinaryOp add 2 1 m t out 0=0"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 0);
        EXPECT_NE(pt::skip_reasons(o.report, kPass).find("give input shapes"), std::string::npos);
        OptimizeOptions with = pt::only({kPass});
        with.input_shapes = {{"data", Shape::d3(7, 6, 3)}};
        auto o2 = pt::optimize_text(model({"Input data 0 1 data", r, s, t, "BinaryOp mul 2 1 x s m 0=2",
                                           "BinaryOp add 2 1 m t out 0=0"}),
                                    with);
        ASSERT_TRUE(o2.st.is_ok()) << o2.st.message();
        EXPECT_EQ(pt::rewrites_of(o2.report, kPass), 1);
    }
    {
        // a divisor with a zero
        auto o = pt::optimize_text(model({kIn, r, "BinaryOp a 1 1 x y 0=3 1=1 2=0.0", "BinaryOp b 1 1 y out 0=0 1=1 2=1.0"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 0);
    }
    {
        // a Convolution before the chain takes it into its weights (full pipeline): no Scale
        auto o = pt::optimize_text(model({kIn, "Convolution x 1 1 data x 0=3 1=3 4=1 5=1 6=81", s, t,
                                          "BinaryOp mul 2 1 x s m 0=2", "BinaryOp add 2 1 m t out 0=0"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 2);
        EXPECT_EQ(pt::count_type(o.after, "Scale"), 0);
        pt::expect_same_outputs(o.before, o.after);
    }
}
