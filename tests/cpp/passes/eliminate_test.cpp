// eliminate_dropout, eliminate_pooling1x1, eliminate_noop, eliminate_split,
// eliminate_orphaned_memorydata, fuse_innerproduct_dropout and the Convolution -> InnerProduct
// replacements: they fire, keep every input and output name, and refuse what is not an identity.
#include "passes_harness.h"
#include "passes/registry.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";
const char* kConv = "Convolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108";

}  // namespace

TEST(EliminateDropout, RemovedInTheMiddle) {
    auto o = pt::optimize_text(model({kIn, kConv, "Dropout drop 1 1 c d", "Pooling pool 1 1 d out 0=1 1=2 2=2"}),
                               pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::count_type(o.after, "Dropout"), 0);
    EXPECT_EQ(o.after.live_layer_count(), 3);
    // the pooling now reads the convolution's output, whose name is kept
    EXPECT_EQ(o.after.blobs[pt::layer(o.after, "pool")->bottoms[0]].name, "c");
    pt::expect_same_outputs(o.before, o.after);
}

TEST(EliminateDropout, AtTheEndTheOutputNameStays) {
    auto o = pt::optimize_text(model({kIn, kConv, "Dropout drop 1 1 c out"}), pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 2);
    EXPECT_EQ(o.after.blobs[pt::layer(o.after, "conv")->tops[0]].name, "out");
    pt::expect_same_outputs(o.before, o.after);
}

TEST(EliminateDropout, DirectlyOnTheInputBetweenInputAndOutput) {
    // Input -> Dropout -> output: neither name may change, so it stays
    auto o = pt::optimize_text(model({kIn, "Dropout drop 1 1 data out"}), pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 2);
    EXPECT_NE(pt::skip_reasons(o.report, "eliminate_dropout").find("model input"), std::string::npos);
    // on the input with a consumer after it: the consumer reads the input
    auto o2 = pt::optimize_text(model({kIn, "Dropout drop 1 1 data d", "Pooling pool 1 1 d out 0=1 1=2 2=2"}),
                                pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 2);
    EXPECT_EQ(pt::input_names(o2.after), std::vector<std::string>{"data"});
    pt::expect_same_outputs(o2.before, o2.after);
}

TEST(EliminateDropout, ScaledDropoutIsNotAnIdentity) {
    auto o = pt::optimize_text(model({kIn, kConv, "Dropout drop 1 1 c out 0=5e-01"}), pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "eliminate_dropout").find("scales by 0.5"), std::string::npos);
}

TEST(EliminateDropout, KeptOutputOfTheDropout) {
    OptimizeOptions opt = pt::only({"eliminate_dropout"});
    opt.keep = {"d"};
    auto o = pt::optimize_text(model({kIn, kConv, "Dropout drop 1 1 c d", "Pooling pool 1 1 d out 0=1 1=2 2=2"}), opt);
    ASSERT_TRUE(o.st.is_ok());
    // the convolution writes "d" directly: "c" disappears, "d" survives
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_GE(o.after.find_blob("d"), 0);
    EXPECT_LT(o.after.find_blob("c"), 0);
    pt::expect_same_outputs(o.before, o.after, {}, {"d"});
    // both ends kept: nothing to do
    opt.keep = {"c", "d"};
    auto o2 = pt::optimize_text(model({kIn, kConv, "Dropout drop 1 1 c d", "Pooling pool 1 1 d out 0=1 1=2 2=2"}), opt);
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 4);
}

TEST(EliminatePooling1x1, MaxAndAverage) {
    for (const char* type : {"0", "1"}) {
        auto o = pt::optimize_text(model({kIn, kConv, std::string("Pooling pool 1 1 c p 0=") + type + " 1=1 2=1",
                                          "ReLU relu 1 1 p out"}),
                                   pt::only({"eliminate_pooling1x1"}));
        ASSERT_TRUE(o.st.is_ok());
        EXPECT_EQ(pt::count_type(o.after, "Pooling"), 0);
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(EliminatePooling1x1, NearMisses) {
    // stride 2, padding, global: not identities
    for (std::string p : {"0=0 1=1 2=2", "0=0 1=1 2=1 3=1", "0=1 4=1"}) {
        auto o = pt::optimize_text(model({kIn, kConv, "Pooling pool 1 1 c p " + p, "ReLU relu 1 1 p out"}),
                                   pt::only({"eliminate_pooling1x1"}));
        ASSERT_TRUE(o.st.is_ok());
        EXPECT_EQ(pt::count_type(o.after, "Pooling"), 1) << p;
    }
    // on a 2D input Pooling outputs 3D: not an identity
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6", "Pooling pool 1 1 data p 0=0 1=1 2=1",
                                      "ReLU relu 1 1 p out"}),
                               pt::only({"eliminate_pooling1x1"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::count_type(o.after, "Pooling"), 1);
    EXPECT_NE(pt::skip_reasons(o.report, "eliminate_pooling1x1").find("turns [6,7] into [1,6,7]"), std::string::npos);
    // unknown input shape: refused with the reason
    auto o2 = pt::optimize_text(model({"Input data 0 1 data", "Pooling pool 1 1 data p 0=0 1=1 2=1", "ReLU relu 1 1 p out"}),
                                pt::only({"eliminate_pooling1x1"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_NE(pt::skip_reasons(o2.report, "eliminate_pooling1x1").find("unknown"), std::string::npos);
    // ... and done once the shape is given
    OptimizeOptions opt = pt::only({"eliminate_pooling1x1"});
    opt.input_shapes = {{"data", Shape::d3(7, 6, 3)}};
    auto o3 = pt::optimize_graph(o2.before, opt);
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(pt::count_type(o3.after, "Pooling"), 0);
    pt::expect_same_outputs(o3.before, o3.after, opt.input_shapes);
}

TEST(EliminateNoop, OneAndSeveralBlobs) {
    auto o = pt::optimize_text(model({kIn, kConv, "Noop noop 1 1 c n", "ReLU relu 1 1 n out"}), pt::only({"eliminate_noop"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::count_type(o.after, "Noop"), 0);
    pt::expect_same_outputs(o.before, o.after);
    auto o2 = pt::optimize_text(model({kIn, "Split split 1 2 data a b", "ReLU r1 1 1 a ra", "ReLU r2 1 1 b rb 0=1e-01",
                                       "Noop noop 2 2 ra rb na nb", "Pooling p1 1 1 na out1 0=1 1=2 2=2",
                                       "Pooling p2 1 1 nb out2 0=0 1=2 2=2"}),
                                pt::only({"eliminate_noop"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::count_type(o2.after, "Noop"), 0);
    pt::expect_same_outputs(o2.before, o2.after);
}

TEST(EliminateSplit, OneOutputLeftAfterAFusion) {
    // a Split with one output (as a pass leaves it) is removed; Splits with two readers stay
    auto o = pt::optimize_text(model({kIn, kConv, "Split split 1 1 c s", "ReLU relu 1 1 s out"}), pt::only({"eliminate_split"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::count_type(o.after, "Split"), 0);
    pt::expect_same_outputs(o.before, o.after);
    auto o2 = pt::optimize_text(model({kIn, kConv, "ReLU r1 1 1 c o1", "ReLU r2 1 1 c o2 0=1e-01"}), pt::only({"eliminate_split"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::count_type(o2.after, "Split"), 1);
}

TEST(EliminateOrphanedMemoryData, OnlyWhatPassesOrphaned) {
    // an unread MemoryData of the model is one of its outputs: it stays
    auto o = pt::optimize_text(model({kIn, "MemoryData md 0 1 m 0=4", kConv, "ReLU relu 1 1 c out"}),
                               pt::only({"eliminate_orphaned_memorydata"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::count_type(o.after, "MemoryData"), 1);
    EXPECT_NE(pt::skip_reasons(o.report, "eliminate_orphaned_memorydata").find("a model output"), std::string::npos);
    // the pass itself, on a MemoryData nothing protects (as when another pass orphaned it)
    Graph g = test::graph_from_text(model({kIn, "MemoryData md 0 1 m 0=4", kConv, "ReLU relu 1 1 c out"}));
    PassContext ctx(g);
    ctx.shapes.assign(g.blobs.size(), Shape());
    ctx.protected_blob.assign(g.blobs.size(), 0);
    ctx.protected_why.assign(g.blobs.size(), "");
    const Pass* p = find_pass("eliminate_orphaned_memorydata");
    ASSERT_NE(p, nullptr);
    Candidate c;
    int md = g.find_layer("md");
    EXPECT_EQ(p->match(ctx, g.find_layer("conv"), c).kind, MatchResult::None);
    ASSERT_EQ(p->match(ctx, md, c).kind, MatchResult::Ok);
    std::string detail;
    ASSERT_TRUE(p->rewrite(ctx, c, detail).is_ok());
    EXPECT_TRUE(g.layers[md].erased);
    EXPECT_NE(detail.find("md"), std::string::npos);
}

TEST(FuseInnerProductDropout, ScaleFoldsIntoWeights) {
    auto o = pt::optimize_text(model({kIn, "InnerProduct ip 1 1 data h 0=5 1=1 2=630", "Dropout drop 1 1 h out 0=2.5e-01"}),
                               pt::only({"fuse_innerproduct_dropout"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 2);
    std::vector<float> w0 = pt::weights_of(o.before, "ip", 0), b0 = pt::weights_of(o.before, "ip", 1);
    std::vector<double> w, b;
    for (float v : w0)
        w.push_back(v * 0.25);
    for (float v : b0)
        b.push_back(v * 0.25);
    pt::expect_near_all(pt::weights_of(o.after, "ip", 0), w);
    pt::expect_near_all(pt::weights_of(o.after, "ip", 1), b);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseInnerProductDropout, ActivatedProducerNeedsScaleOne) {
    auto o = pt::optimize_text(model({kIn, "InnerProduct ip 1 1 data h 0=5 1=1 2=630 9=2 -23310=1,1e-01",
                                      "Dropout drop 1 1 h out 0=2.5e-01"}),
                               pt::only({"fuse_innerproduct_dropout"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_innerproduct_dropout").find("activation"), std::string::npos);
    auto o2 = pt::optimize_text(model({kIn, "InnerProduct ip 1 1 data h 0=5 1=1 2=630 9=1", "Dropout drop 1 1 h out"}),
                                pt::only({"fuse_innerproduct_dropout"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 2);
    pt::expect_same_outputs(o2.before, o2.after);
}

TEST(ReplaceConvolutionWithInnerProduct, AfterGlobalPooling) {
    auto o = pt::optimize_text(model({kIn, kConv, "Pooling gp 1 1 c g 0=1 4=1",
                                      "Convolution fc 1 1 g out 0=10 1=1 5=1 6=40 9=1"}),
                               pt::only({"replace_convolution_with_innerproduct_after_global_pooling"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    const LayerNode* fc = pt::layer(o.after, "fc");
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc->type, "InnerProduct");
    EXPECT_EQ(fc->params.get_int(0, 0), 10);
    EXPECT_EQ(fc->params.get_int(1, 0), 1);
    EXPECT_EQ(fc->params.get_int(2, 0), 40);
    EXPECT_EQ(fc->params.get_int(9, 0), 1);
    EXPECT_EQ(fc->weights[0].data, pt::weights_of(o.before, "fc", 0));
    pt::expect_same_outputs(o.before, o.after);
    // also without shapes: a global Pooling's output is always 1D
    OptimizeOptions opt = pt::only({"replace_convolution_with_innerproduct_after_global_pooling"});
    auto o2 = pt::optimize_text(model({"Input data 0 1 data", kConv, "Pooling gp 1 1 c g 0=1 4=1",
                                       "Convolution fc 1 1 g out 0=10 1=1 5=1 6=40"}),
                                opt);
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::count_type(o2.after, "InnerProduct"), 1);
    pt::expect_same_outputs(o2.before, o2.after, {{"data", Shape::d3(9, 8, 3)}});
}

TEST(ReplaceConvolutionWithInnerProduct, AfterInnerProductNeedsA1DInput) {
    auto o = pt::optimize_text(model({kIn, "InnerProduct ip 1 1 data h 0=8 2=1008",
                                      "Convolution fc 1 1 h out 0=6 1=1 6=48"}),
                               pt::only({"replace_convolution_with_innerproduct_after_innerproduct"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::count_type(o.after, "InnerProduct"), 2);
    pt::expect_same_outputs(o.before, o.after);
    // a 3x3 kernel is not the InnerProduct path
    auto o2 = pt::optimize_text(model({kIn, "InnerProduct ip 1 1 data h 0=8 2=1008",
                                       "Convolution fc 1 1 h out 0=6 1=3 4=1 6=432"}),
                                pt::only({"replace_convolution_with_innerproduct_after_innerproduct"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::count_type(o2.after, "Convolution"), 1);
    // a row-wise InnerProduct (2D output) does not feed the InnerProduct path
    auto o3 = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6", "InnerProduct ip 1 1 data h 0=8 2=56",
                                       "Convolution fc 1 1 h out 0=6 1=1 6=6"}),
                                pt::only({"replace_convolution_with_innerproduct_after_innerproduct"}));
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(pt::count_type(o3.after, "Convolution"), 1);
    EXPECT_NE(pt::skip_reasons(o3.report, "replace_convolution_with_innerproduct_after_innerproduct").find("not 1D"),
              std::string::npos);
    pt::expect_same_outputs(o3.before, o3.after);
}

TEST(FusePaddingConvolution, PadsAddUp) {
    // Padding (top 1, bottom 2, left 3, right 0, value 0.5) then a convolution padding 1 with 0.5
    for (std::string conv : {"Convolution cv 1 1 p out 0=4 1=3 4=1 18=5e-01 5=1 6=108",
                             "ConvolutionDepthWise cv 1 1 p out 0=3 1=3 2=2 3=2 6=27 7=3",
                             "Convolution cv 1 1 p out 0=4 1=3 4=1 14=0 15=2 16=1 18=5e-01 6=108"}) {
        SCOPED_TRACE(conv);
        auto o = pt::optimize_text(model({kIn, "Padding pad 1 1 data p 0=1 1=2 2=3 3=0 5=5e-01", conv}),
                                   pt::only({"fuse_padding_convolution"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        if (conv.find("DepthWise") != std::string::npos) {
            // no padding of its own: takes the Padding's value
            EXPECT_EQ(o.after.live_layer_count(), 2);
            const LayerNode* cv = pt::layer(o.after, "cv");
            EXPECT_EQ(cv->params.get_int(4, 0), 3);
            EXPECT_EQ(cv->params.get_int(15, 0), 0);
            EXPECT_EQ(cv->params.get_int(14, 0), 1);
            EXPECT_EQ(cv->params.get_int(16, 0), 2);
            EXPECT_EQ(cv->params.get_float(18, 0.f), 0.5f);
        } else {
            EXPECT_EQ(o.after.live_layer_count(), 2);
        }
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FusePaddingConvolution, NearMisses) {
    const OptimizeOptions only = pt::only({"fuse_padding_convolution"});
    // other pad values, reflect padding, channel padding, SAME convolution, a 2D input
    std::vector<std::vector<std::string>> cases = {
        {kIn, "Padding pad 1 1 data p 0=1 1=1 2=1 3=1 5=5e-01", "Convolution cv 1 1 p out 0=4 1=3 4=1 6=108"},
        {kIn, "Padding pad 1 1 data p 0=1 1=1 2=1 3=1 4=2", "Convolution cv 1 1 p out 0=4 1=3 6=108"},
        {kIn, "Padding pad 1 1 data p 7=1 8=0", "Convolution cv 1 1 p out 0=4 1=3 6=144"},
        {kIn, "Padding pad 1 1 data p 0=1 1=1 2=1 3=1", "Convolution cv 1 1 p out 0=4 1=3 4=-233 6=108"},
        {"Input data 0 1 data 0=7 1=6", "Padding pad 1 1 data p 0=1 1=1 2=1 3=1", "Convolution cv 1 1 p out 0=4 1=3 6=36"},
    };
    for (auto& c : cases) {
        SCOPED_TRACE(c[1] + " / " + c[2]);
        auto o = pt::optimize_text(model(c), only);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 3);
        EXPECT_FALSE(pt::skip_reasons(o.report, "fuse_padding_convolution").empty());
        pt::expect_same_outputs(o.before, o.after);
    }
}
