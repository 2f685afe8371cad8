// fuse_host_reshape_batchnorm: a BatchNorm (or Scale) separated from its InnerProduct /
// Convolution by Reshapes that keep each host channel inside one BatchNorm channel folds into the
// host's weights; the Reshapes that then cancel go (fuse_permute_reshape_chain, eliminate_noop).
// Near misses: a host channel spread over several BatchNorm channels, a second reader, a kept blob,
// a fused activation.
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {
const char* kPass = "fuse_host_reshape_batchnorm";
}

TEST(FuseHostReshapeBatchNorm, MatMulReshapeBatchNormReshapeIsOneInnerProduct) {
    PT_REQUIRE_LAYERS("InnerProduct", "Reshape", "BatchNorm");
    // the exporter's MatMul -> Reshape [1,1,4] -> (unit-axis transpose) [4,1,1] -> BN -> back -> [4]
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=8", "InnerProduct ip 1 1 data h 0=4 1=1 2=32",
                                      "Reshape r1 1 1 h r1 0=4 1=1 2=1", "Reshape r2 1 1 r1 r2 0=1 1=1 2=4",
                                      "BatchNorm bn 1 1 r2 b 0=4 1=0.001", "Reshape r3 1 1 b r3 0=4 1=1 2=1",
                                      "Reshape r4 1 1 r3 out 0=4"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);
    EXPECT_EQ(o.after.live_layer_count(), 2);  // Input, InnerProduct
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseHostReshapeBatchNorm, ConvolutionThroughFlattenAndScale) {
    PT_REQUIRE_LAYERS("Convolution", "Flatten", "Reshape", "BatchNorm", "Scale");
    // conv [4,6,7] -> Flatten [168] -> Reshape [2,84] (BN on 2 rows of 2 host channels each)
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6 2=3", "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108 9=0",
                                      "Flatten f 1 1 c f", "Reshape r 1 1 f r 0=84 1=2", "BatchNorm bn 1 1 r out 0=2 1=0.001"}),
                               pt::only({kPass}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::rewrites_of(o.report, kPass), 1);
    EXPECT_EQ(pt::count_type(o.after, "BatchNorm"), 0);
    pt::expect_same_outputs(o.before, o.after);
    auto s = pt::optimize_text(model({"Input data 0 1 data 0=8", "InnerProduct ip 1 1 data h 0=6 1=0 2=48",
                                      "Reshape r 1 1 h r 0=1 1=1 2=6", "Scale sc 1 1 r out 0=6 1=1"}),
                               pt::only({kPass}));
    ASSERT_TRUE(s.st.is_ok()) << s.st.message();
    EXPECT_EQ(pt::rewrites_of(s.report, kPass), 1);
    pt::expect_same_outputs(s.before, s.after);
}

TEST(FuseHostReshapeBatchNorm, MustNotFire) {
    PT_REQUIRE_LAYERS("Convolution", "Reshape", "BatchNorm", "Split", "ReLU");
    const std::string in = "Input data 0 1 data 0=7 1=6 2=3", conv = "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108";
    {
        // [4,42] -> [6,28]: host channels spread over several BN channels
        auto o = pt::optimize_text(model({in, conv, "Reshape r 1 1 c r 0=28 1=6", "BatchNorm bn 1 1 r out 0=6"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 0);
        EXPECT_NE(pt::skip_reasons(o.report, kPass).find("spans several channels"), std::string::npos);
    }
    {
        // the reshaped blob has a second reader
        auto o = pt::optimize_text(model({in, conv, "Reshape r 1 1 c r 0=84 1=2", "Split s 1 2 r r1 r2",
                                          "BatchNorm bn 1 1 r1 out 0=2", "ReLU x 1 1 r2 out2"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 0);
    }
    {
        // kept
        OptimizeOptions opt = pt::only({kPass});
        opt.keep = {"c"};
        auto o = pt::optimize_text(model({in, conv, "Reshape r 1 1 c r 0=84 1=2", "BatchNorm bn 1 1 r out 0=2"}), opt);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 0);
    }
    {
        // fused activation on the host
        auto o = pt::optimize_text(model({in, "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108 9=1",
                                          "Reshape r 1 1 c r 0=84 1=2", "BatchNorm bn 1 1 r out 0=2"}),
                                   pt::only({kPass}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, kPass), 0);
    }
}

TEST(FuseHostReshapeBinaryOp, BatchedMatMulBiasFoldsIntoTheInnerProduct) {
    PT_REQUIRE_LAYERS("InnerProduct", "Reshape", "BinaryOp");
    // ONNX MatMul [2,5,8] x [8,6] + bias [6]: Reshape [10,8] -> row-wise InnerProduct [10,6] ->
    // Reshape [2,5,6] -> Add [1,1,6] (along w = the InnerProduct's channels); also Mul and Sub
    for (int op : {0, 1, 2, 7}) {
        SCOPED_TRACE(op);
        auto o = pt::optimize_text(model({"Input data 0 1 data 0=8 1=5 2=2", "Reshape r0 1 1 data r0 0=8 1=10",
                                          "InnerProduct ip 1 1 r0 h 0=6 1=0 2=48", "Reshape r1 1 1 h r1 0=6 1=5 2=2",
                                          "MemoryData b 0 1 b 0=6 1=1 2=1",
                                          "BinaryOp add 2 1 r1 b out 0=" + std::to_string(op)}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, "fuse_host_reshape_binaryop"), 1);
        EXPECT_EQ(o.after.live_layer_count(), 4);  // Input, Reshape, InnerProduct, Reshape
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FuseHostReshapeBinaryOp, MustNotFire) {
    PT_REQUIRE_LAYERS("InnerProduct", "Reshape", "BinaryOp", "ReLU", "Split");
    const std::string head = "Input data 0 1 data 0=8 1=5 2=2";
    const std::string chain = "Reshape r0 1 1 data r0 0=8 1=10";
    {
        // a constant along h ([1,5,1]): each InnerProduct channel meets several values
        auto o = pt::optimize_text(model({head, chain, "InnerProduct ip 1 1 r0 h 0=6 1=0 2=48",
                                          "Reshape r1 1 1 h r1 0=6 1=5 2=2", "MemoryData b 0 1 b 0=1 1=5 2=1",
                                          "BinaryOp add 2 1 r1 b out 0=0"}),
                                   pt::only({"fuse_host_reshape_binaryop"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, "fuse_host_reshape_binaryop"), 0);
        EXPECT_NE(pt::skip_reasons(o.report, "fuse_host_reshape_binaryop").find("several values"), std::string::npos);
    }
    {
        // the reshaped output has a second reader
        auto o = pt::optimize_text(model({head, chain, "InnerProduct ip 1 1 r0 h 0=6 1=0 2=48",
                                          "Reshape r1 1 1 h r1 0=6 1=5 2=2", "Split s 1 2 r1 r1a r1b",
                                          "MemoryData b 0 1 b 0=6 1=1 2=1", "BinaryOp add 2 1 r1a b out 0=0",
                                          "ReLU x 1 1 r1b out2"}),
                                   pt::only({"fuse_host_reshape_binaryop"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, "fuse_host_reshape_binaryop"), 0);
    }
    {
        // the InnerProduct's output is kept
        OptimizeOptions opt = pt::only({"fuse_host_reshape_binaryop"});
        opt.keep = {"h"};
        auto o = pt::optimize_text(model({head, chain, "InnerProduct ip 1 1 r0 h 0=6 1=0 2=48",
                                          "Reshape r1 1 1 h r1 0=6 1=5 2=2", "MemoryData b 0 1 b 0=6 1=1 2=1",
                                          "BinaryOp add 2 1 r1 b out 0=0"}),
                                   opt);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::rewrites_of(o.report, "fuse_host_reshape_binaryop"), 0);
    }
}
