// BinaryOp with constants: fuse_<host>_mul / _add (MemoryData on either side, through a Split,
// scalars, every broadcast form ncnn treats per channel), fuse_memorydata_binaryop,
// fuse_binaryop_eltwise, eliminate_reshape_before_binaryop; near misses where the constant is not
// per channel, not constant, or the shapes would change.
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";

struct Host {
    std::string type, line;  // reads "data" [3,6,7], writes "h"
    int channels, bias_param;
};

std::vector<Host> hosts() {
    return {
        {"convolution", "Convolution host 1 1 data h 0=4 1=3 4=1 5=1 6=108", 4, 5},
        {"convolutiondepthwise", "ConvolutionDepthWise host 1 1 data h 0=3 1=3 4=1 6=27 7=3", 3, 5},
        {"deconvolution", "Deconvolution host 1 1 data h 0=2 1=3 3=2 5=1 6=54", 2, 5},
        {"deconvolutiondepthwise", "DeconvolutionDepthWise host 1 1 data h 0=6 1=2 5=1 6=24 7=3", 6, 5},
        {"innerproduct", "InnerProduct host 1 1 data h 0=5 1=1 2=630", 5, 1},
    };
}

// y' = s[o] y + t[o] folded into the host of `before`, checked against `after` (a host without
// bias gets one only when some t is not zero).
void expect_affine(const Graph& before, const Graph& after, const Host& h, const std::vector<double>& s,
                   const std::vector<double>& t) {
    std::vector<float> w0 = pt::weights_of(before, "host", 0);
    const LayerNode* hb = pt::layer(before, "host");
    bool had_bias = hb->params.get_int(h.bias_param, 0) != 0;
    bool shift = false;
    for (double v : t)
        shift = shift || v != 0.0;
    std::vector<float> b0 = had_bias ? hb->weights[1].data : std::vector<float>(h.channels, 0.f);
    size_t per = w0.size() / h.channels;
    std::vector<double> w, b;
    for (int o = 0; o < h.channels; o++) {
        for (size_t k = 0; k < per; k++)
            w.push_back(w0[o * per + k] * s[o]);
        b.push_back(b0[o] * s[o] + t[o]);
    }
    pt::expect_near_all(pt::weights_of(after, "host", 0), w);
    EXPECT_EQ(pt::layer(after, "host")->params.get_int(h.bias_param, 0), had_bias || shift ? 1 : 0);
    if (had_bias || shift)
        pt::expect_near_all(pt::weights_of(after, "host", 1), b);
}

}  // namespace

TEST(FuseHostBinaryOp, MulAndAddByMemoryDataPerChannel) {
    PT_REQUIRE_LAYERS("BinaryOp");
    for (const Host& h : hosts()) {
        for (int op : {0, 2}) {
            SCOPED_TRACE(h.line + (op ? " mul" : " add"));
            std::string c = std::to_string(h.channels);
            auto o = pt::optimize_text(model({kIn, h.line, "MemoryData k 0 1 k 0=" + c,
                                              "BinaryOp op 2 1 h k out 0=" + std::to_string(op)}));
            ASSERT_TRUE(o.st.is_ok()) << o.st.message();
            // the host alone remains (with the Input); the MemoryData goes with the BinaryOp
            EXPECT_EQ(o.after.live_layer_count(), 2);
            EXPECT_EQ(pt::rewrites_of(o.report, "fuse_" + h.type + (op ? "_mul" : "_add")), 1);
            std::vector<float> k = pt::weights_of(o.before, "k", 0);
            std::vector<double> s(h.channels, 1.0), t(h.channels, 0.0);
            for (int q = 0; q < h.channels; q++)
                (op ? s[q] : t[q]) = k[q];
            expect_affine(o.before, o.after, h, s, t);
            pt::expect_same_outputs(o.before, o.after);
        }
    }
}

TEST(FuseHostBinaryOp, BroadcastFormsAndSides) {
    PT_REQUIRE_LAYERS("BinaryOp");
    const Host h = hosts()[0];  // 4 channels, output [4,6,7]
    // [c], [c,1,1] (w=1 h=1 c=4), [c,1] (w=1 h=4), [1]; the constant first or second
    for (std::string md : {"0=4", "0=1 1=1 2=4", "0=1 1=4", "0=1"})
        for (std::string order : {"h k", "k h"})
            for (int op : {0, 1, 2, 7}) {
                SCOPED_TRACE(md + " / " + order + " / op " + std::to_string(op));
                auto o = pt::optimize_text(model({kIn, h.line, "MemoryData k 0 1 k " + md,
                                                  "BinaryOp op 2 1 " + order + " out 0=" + std::to_string(op)}));
                ASSERT_TRUE(o.st.is_ok()) << o.st.message();
                EXPECT_EQ(o.after.live_layer_count(), 2);
                pt::expect_same_outputs(o.before, o.after);
            }
    // division by a constant (second input only)
    auto o = pt::optimize_text(model({kIn, h.line, "MemoryData k 0 1 k 0=4", "BinaryOp op 2 1 h k out 0=3"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 2);
    pt::expect_same_outputs(o.before, o.after);
    // k / y is not linear in y
    auto o2 = pt::optimize_text(model({kIn, h.line, "MemoryData k 0 1 k 0=4", "BinaryOp op 2 1 k h out 0=3"}),
                                pt::only({"fuse_convolution_mul"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 4);
}

TEST(FuseHostBinaryOp, Scalars) {
    PT_REQUIRE_LAYERS("BinaryOp");
    for (const Host& h : hosts())
        for (std::string op : {"0=0 1=1 2=2.5e-01", "0=1 1=1 2=2.5e-01", "0=2 1=1 2=-1.5e+00", "0=3 1=1 2=4e+00",
                               "0=7 1=1 2=5e-01"}) {
            SCOPED_TRACE(h.line + " / " + op);
            auto o = pt::optimize_text(model({kIn, h.line, "BinaryOp op 1 1 h out " + op}));
            ASSERT_TRUE(o.st.is_ok()) << o.st.message();
            EXPECT_EQ(o.after.live_layer_count(), 2);
            pt::expect_same_outputs(o.before, o.after);
        }
}

TEST(FuseHostBinaryOp, ConstantSharedThroughASplit) {
    PT_REQUIRE_LAYERS("BinaryOp");
    // one MemoryData read by two BinaryOps (the reader puts a Split after it)
    auto o = pt::optimize_text(model({kIn, "Convolution c1 1 1 data h1 0=4 1=3 4=1 5=1 6=108",
                                      "Convolution c2 1 1 data h2 0=4 1=1 6=12", "MemoryData k 0 1 k 0=4",
                                      "BinaryOp m1 2 1 h1 k o1 0=2", "BinaryOp m2 2 1 k h2 o2 0=0"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::count_type(o.after, "BinaryOp"), 0);
    EXPECT_EQ(pt::count_type(o.after, "MemoryData"), 0);
    EXPECT_EQ(pt::count_type(o.after, "Split"), 1);  // the Split of "data" (two convolutions)
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseHostBinaryOp, NotPerChannel) {
    PT_REQUIRE_LAYERS("BinaryOp");
    const OptimizeOptions conv = pt::only({"fuse_convolution_mul", "fuse_convolution_add"});
    const Host h = hosts()[0];  // output [4,6,7]
    // per column [1,1,7] (w=7) and per row [1,6,1] (h=6, c=1): valid broadcasts, not per channel
    for (std::string md : {"0=7 1=1 2=1", "0=1 1=6 2=1", "0=7 1=6 2=4"}) {
        SCOPED_TRACE(md);
        auto o = pt::optimize_text(model({kIn, h.line, "MemoryData k 0 1 k " + md, "BinaryOp op 2 1 h k out 0=2"}), conv);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 4);
        EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_mul").find("per output channel"), std::string::npos);
        pt::expect_same_outputs(o.before, o.after);
    }
    // a row-wise InnerProduct [5 rows, 5 outputs]: [5] runs along the rows, not the outputs
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=5", "InnerProduct host 1 1 data h 0=5 1=1 2=35",
                                      "MemoryData k 0 1 k 0=5", "BinaryOp op 2 1 h k out 0=0"}),
                               pt::only({"fuse_innerproduct_add"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 4);
    pt::expect_same_outputs(o.before, o.after);
    // with 4 outputs on 5 rows, [4] aligns with w (ncnn: [n] matches the rows only when n == h)
    auto o1 = pt::optimize_text(model({"Input data 0 1 data 0=7 1=5", "InnerProduct host 1 1 data h 0=4 1=1 2=28",
                                       "MemoryData k 0 1 k 0=4", "BinaryOp op 2 1 h k out 0=0"}),
                                pt::only({"fuse_innerproduct_add"}));
    ASSERT_TRUE(o1.st.is_ok());
    EXPECT_EQ(o1.after.live_layer_count(), 2);
    pt::expect_same_outputs(o1.before, o1.after);
    // ... while [1,5] (w=5, h=1) is per output there
    auto o2 = pt::optimize_text(model({"Input data 0 1 data 0=7 1=5", "InnerProduct host 1 1 data h 0=5 1=1 2=35",
                                       "MemoryData k 0 1 k 0=5 1=1", "BinaryOp op 2 1 h k out 0=0"}),
                                pt::only({"fuse_innerproduct_add"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 2);
    pt::expect_same_outputs(o2.before, o2.after);
}

TEST(FuseHostBinaryOp, NearMisses) {
    PT_REQUIRE_LAYERS("BinaryOp");
    const OptimizeOptions conv = pt::only({"fuse_convolution_mul"});
    // not a constant: the other input is computed
    auto o = pt::optimize_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108", "Convolution c2 1 1 data h2 0=4 1=3 4=1 6=108",
                                      "BinaryOp op 2 1 h h2 out 0=2"}),
                               conv);
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 5);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_mul").find("not a constant"), std::string::npos);
    // producer activated
    auto o2 = pt::optimize_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108 9=1", "MemoryData k 0 1 k 0=4",
                                       "BinaryOp op 2 1 h k out 0=2"}),
                                conv);
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 4);
    EXPECT_NE(pt::skip_reasons(o2.report, "fuse_convolution_mul").find("fused activation"), std::string::npos);
    pt::expect_same_outputs(o2.before, o2.after);
    // the constant is kept
    OptimizeOptions keep = conv;
    keep.keep = {"k"};
    auto o3 = pt::optimize_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108", "MemoryData k 0 1 k 0=4",
                                       "BinaryOp op 2 1 h k out 0=2"}),
                                keep);
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(o3.after.live_layer_count(), 4);
    // shared intermediate
    Graph g = test::graph_from_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108", "MemoryData k 0 1 k 0=4",
                                           "BinaryOp op 2 1 h k out 0=2", "ReLU r 1 1 h out2"}));
    pt::remove_splits(g);
    auto o4 = pt::optimize_graph(g, conv);
    ASSERT_TRUE(o4.st.is_ok());
    EXPECT_EQ(o4.after.live_layer_count(), 5);
    pt::expect_same_outputs(o4.before, o4.after);
    // unknown output shape for an InnerProduct: only scalars
    auto o5 = pt::optimize_text(model({"Input data 0 1 data", "InnerProduct host 1 1 data h 0=5 1=1 2=35",
                                       "MemoryData k 0 1 k 0=5", "BinaryOp op 2 1 h k out 0=0"}),
                                pt::only({"fuse_innerproduct_add"}));
    ASSERT_TRUE(o5.st.is_ok());
    EXPECT_EQ(o5.after.live_layer_count(), 4);
    EXPECT_NE(pt::skip_reasons(o5.report, "fuse_innerproduct_add").find("unknown"), std::string::npos);
}

TEST(FuseMemoryDataBinaryOp, ScalarConstantsBecomeWithScalar) {
    PT_REQUIRE_LAYERS("BinaryOp", "Sigmoid");
    // the constant second: op unchanged; first: operands swapped (sub -> rsub, div -> rdiv, ...)
    for (int op : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
        for (std::string order : {"x k", "k x"}) {
            SCOPED_TRACE(order + " op " + std::to_string(op));
            auto o = pt::optimize_text(model({"Input data 0 1 data 0=5 1=4 2=3", "Sigmoid s 1 1 data x",
                                              "MemoryData md 0 1 k 0=1", "BinaryOp op 2 1 " + order + " out 0=" + std::to_string(op)}),
                                       pt::only({"fuse_memorydata_binaryop"}));
            if (!o.st.is_ok() && o.st.code() == ErrorCode::InvalidModel)
                continue;  // an op_type this BinaryOp does not implement
            ASSERT_TRUE(o.st.is_ok()) << o.st.message();
            const LayerNode* b = pt::layer(o.after, "op");
            ASSERT_NE(b, nullptr);
            EXPECT_EQ(b->params.get_int(1, 0), 1);
            EXPECT_EQ(b->params.get_float(2, 0.f), pt::weights_of(o.before, "md", 0)[0]);
            EXPECT_EQ(pt::count_type(o.after, "MemoryData"), 0);
            pt::expect_same_outputs(o.before, o.after);
        }
}

TEST(FuseMemoryDataBinaryOp, NearMisses) {
    PT_REQUIRE_LAYERS("BinaryOp");
    // [1,1,1] against a 1D input would make a 3D output
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=5", "MemoryData md 0 1 k 0=1 1=1 2=1",
                                      "BinaryOp op 2 1 data k out 0=0"}),
                               pt::only({"fuse_memorydata_binaryop"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_memorydata_binaryop").find("raise"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
    // ... fine against a 3D input
    auto o2 = pt::optimize_text(model({kIn, "MemoryData md 0 1 k 0=1 1=1 2=1", "BinaryOp op 2 1 data k out 0=0"}),
                                pt::only({"fuse_memorydata_binaryop"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 2);
    pt::expect_same_outputs(o2.before, o2.after);
    // a shared scalar: both uses become scalars, the MemoryData and Split go
    auto o3 = pt::optimize_text(model({kIn, "MemoryData md 0 1 k 0=1", "BinaryOp a 2 1 data k x 0=0",
                                       "BinaryOp b 2 1 k x out 0=1"}),
                                pt::only({"fuse_memorydata_binaryop"}));
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(o3.after.live_layer_count(), 3);
    pt::expect_same_outputs(o3.before, o3.after);
}

TEST(FuseBinaryOpEltwise, ScaledSum) {
    PT_REQUIRE_LAYERS("BinaryOp", "Eltwise");
    auto o = pt::optimize_text(model({kIn, "Split sp 1 2 data a b", "BinaryOp m0 1 1 a a2 0=2 1=1 2=5e-01",
                                      "BinaryOp m1 1 1 b b2 0=2 1=1 2=-2e+00", "BinaryOp add 2 1 a2 b2 out 0=0"}),
                               pt::only({"fuse_binaryop_eltwise"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    const LayerNode* e = pt::layer(o.after, "add");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->type, "Eltwise");
    EXPECT_EQ(e->params.get_int(0, 0), 1);
    EXPECT_EQ(e->params.get_floats(1), (std::vector<float>{0.5f, -2.f}));
    EXPECT_EQ(o.after.live_layer_count(), 3);
    pt::expect_same_outputs(o.before, o.after);
    // one side only
    auto o2 = pt::optimize_text(model({kIn, "Split sp 1 2 data a b", "BinaryOp m0 1 1 a a2 0=2 1=1 2=5e-01",
                                       "BinaryOp add 2 1 b a2 out 0=0"}),
                                pt::only({"fuse_binaryop_eltwise"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::layer(o2.after, "add")->params.get_floats(1), (std::vector<float>{1.f, 0.5f}));
    pt::expect_same_outputs(o2.before, o2.after);
}

TEST(FuseBinaryOpEltwise, BroadcastingAddStays) {
    PT_REQUIRE_LAYERS("BinaryOp", "Eltwise");
    auto o = pt::optimize_text(model({kIn, "Input v 0 1 v 0=3", "BinaryOp m0 1 1 data a2 0=2 1=1 2=5e-01",
                                      "BinaryOp add 2 1 a2 v out 0=0"}),
                               pt::only({"fuse_binaryop_eltwise"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::count_type(o.after, "Eltwise"), 0);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_binaryop_eltwise").find("broadcasts"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(EliminateReshapeBeforeBinaryOp, OneDimensionalOperandBroadcastsTheSame) {
    PT_REQUIRE_LAYERS("BinaryOp", "Reshape");
    auto o = pt::optimize_text(model({kIn, "Input v 0 1 v 0=3", "Reshape r 1 1 v v3 0=1 1=1 2=-1",
                                      "BinaryOp mul 2 1 data v3 out 0=2"}),
                               pt::only({"eliminate_reshape_before_binaryop"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::count_type(o.after, "Reshape"), 0);
    pt::expect_same_outputs(o.before, o.after);
    // against a 2D operand [3,5] the 1D one would broadcast differently: kept
    auto o2 = pt::optimize_text(model({"Input data 0 1 data 0=5 1=3", "Input v 0 1 v 0=3", "Reshape r 1 1 v v3 0=1 1=1 2=-1",
                                       "BinaryOp mul 2 1 data v3 out 0=2"}),
                                pt::only({"eliminate_reshape_before_binaryop"}));
    ASSERT_TRUE(o2.st.is_ok()) << o2.st.message();
    EXPECT_EQ(pt::count_type(o2.after, "Reshape"), 1);
    pt::expect_same_outputs(o2.before, o2.after);
    // against a one-channel [1,6,3]: [3,1,1] broadcasts it to 3 channels, [3] would run along w
    auto o3 = pt::optimize_text(model({"Input data 0 1 data 0=3 1=6 2=1", "Input v 0 1 v 0=3", "Reshape r 1 1 v v3 0=1 1=1 2=-1",
                                       "BinaryOp mul 2 1 data v3 out 0=2"}),
                                pt::only({"eliminate_reshape_before_binaryop"}));
    ASSERT_TRUE(o3.st.is_ok()) << o3.st.message();
    EXPECT_EQ(pt::count_type(o3.after, "Reshape"), 1);
    pt::expect_same_outputs(o3.before, o3.after);
}
