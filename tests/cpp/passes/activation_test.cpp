// fuse_*_activation: every host type takes each activation layer; near misses (shared blob,
// producer already activated, kept blob, output names) leave the graph alone.
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

struct Host {
    const char* pass;
    std::string line;  // the host layer, reading "data" [3,6,7], writing "h"
};

// Hosts over an input of [3, 6, 7].
std::vector<Host> hosts() {
    return {
        {"fuse_convolution_activation", "Convolution conv 1 1 data h 0=4 1=3 4=1 5=1 6=108"},
        {"fuse_convolutiondepthwise_activation", "ConvolutionDepthWise conv 1 1 data h 0=3 1=3 4=1 5=1 6=27 7=3"},
        {"fuse_deconvolution_activation", "Deconvolution conv 1 1 data h 0=2 1=3 3=2 5=1 6=54"},
        {"fuse_deconvolutiondepthwise_activation", "DeconvolutionDepthWise conv 1 1 data h 0=3 1=2 5=1 6=12 7=3"},
        {"fuse_innerproduct_activation", "InnerProduct conv 1 1 data h 0=5 1=1 2=630"},
    };
}

std::string with_act(const Host& h, const std::string& act_line) {
    return model({"Input data 0 1 data 0=7 1=6 2=3", h.line, act_line});
}

}  // namespace

TEST(FuseActivation, ReLUFoldsIntoEveryHostType) {
    for (const Host& h : hosts()) {
        SCOPED_TRACE(h.line);
        auto o = pt::optimize_text(with_act(h, "ReLU relu 1 1 h out"));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 2);
        EXPECT_EQ(pt::rewrites_of(o.report, h.pass), 1);
        const LayerNode* c = pt::layer(o.after, "conv");
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->params.get_int(9, 0), 1);
        EXPECT_FALSE(c->params.has(10));
        EXPECT_EQ(o.after.blobs[c->tops[0]].name, "out");
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FuseActivation, LeakyReLUCarriesItsSlope) {
    for (const Host& h : hosts()) {
        SCOPED_TRACE(h.line);
        auto o = pt::optimize_text(with_act(h, "ReLU relu 1 1 h out 0=1.5e-01"));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        const LayerNode* c = pt::layer(o.after, "conv");
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->params.get_int(9, 0), 2);
        EXPECT_EQ(c->params.get_floats(10), std::vector<float>{0.15f});
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FuseActivation, OtherActivationLayers) {
    PT_REQUIRE_LAYERS("Clip", "Sigmoid", "Mish", "HardSwish");
    struct Case {
        std::string line;
        int type;
        std::vector<float> params;
    };
    std::vector<Case> cases = {
        {"Clip act 1 1 h out 0=-2.5e-01 1=5e-01", 3, {-0.25f, 0.5f}},
        {"Sigmoid act 1 1 h out", 4, {}},
        {"Mish act 1 1 h out", 5, {}},
        {"HardSwish act 1 1 h out 0=2.5e-01 1=4e-01", 6, {0.25f, 0.4f}},
        {"HardSwish act 1 1 h out", 6, {1.f / 6, 0.5f}},  // ncnn source default alpha 1/6
    };
    for (const Host& h : hosts())
        for (auto& k : cases) {
            SCOPED_TRACE(h.line + " + " + k.line);
            auto o = pt::optimize_text(with_act(h, k.line));
            ASSERT_TRUE(o.st.is_ok()) << o.st.message();
            EXPECT_EQ(o.after.live_layer_count(), 2);
            const LayerNode* c = pt::layer(o.after, "conv");
            ASSERT_NE(c, nullptr);
            EXPECT_EQ(c->params.get_int(9, 0), k.type);
            EXPECT_EQ(c->params.get_floats(10), k.params);
            pt::expect_same_outputs(o.before, o.after);
        }
}

TEST(FuseActivation, ClipWithMinAboveMaxIsLeftAlone) {
    PT_REQUIRE_LAYERS("Clip");
    auto o = pt::optimize_text(with_act(hosts()[0], "Clip act 1 1 h out 0=1e+00 1=-1e+00"),
                               pt::only({"fuse_convolution_activation"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_activation").find("above max"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseActivation, ProducerAlreadyActivated) {
    // a second activation would replace the first: ncnnoptimize drops the ReLU6 here
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6 2=3",
                                      "Convolution conv 1 1 data h 0=4 1=3 4=1 5=1 6=108 9=2 -23310=1,3e-01",
                                      "ReLU relu 1 1 h out"}),
                               pt::only({"fuse_convolution_activation"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_activation").find("already applies a fused activation"),
              std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseActivation, SharedIntermediateBlob) {
    std::string text = model({"Input data 0 1 data 0=7 1=6 2=3", "Convolution conv 1 1 data h 0=4 1=3 4=1 5=1 6=108",
                              "ReLU relu 1 1 h out", "Pooling pool 1 1 h out2 0=1 1=2 2=2"});
    // as read, a Split sits after conv (ncnn's converters insert it): nothing to fuse
    auto o = pt::optimize_text(text, pt::only({"fuse_convolution_activation"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::rewrites_of(o.report, "fuse_convolution_activation"), 0);
    // without the Split, conv's output has two consumers
    Graph g = test::graph_from_text(text);
    pt::remove_splits(g);
    auto o2 = pt::optimize_graph(g, pt::only({"fuse_convolution_activation"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 4);
    EXPECT_NE(pt::skip_reasons(o2.report, "fuse_convolution_activation").find("has 2 consumers"), std::string::npos);
    pt::expect_same_outputs(o2.before, o2.after);
}

TEST(FuseActivation, KeptBlobIsNotFusedAway) {
    OptimizeOptions opt = pt::only({"fuse_convolution_activation"});
    opt.keep = {"h"};
    auto o = pt::optimize_text(with_act(hosts()[0], "ReLU relu 1 1 h out"), opt);
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_activation").find("kept"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after, {}, {"h"});
}

TEST(FuseActivation, ModelOutputBehindASplitStays) {
    // conv's output is both read by the ReLU and a model output (the Split's unread output)
    std::string text = "7767517\n4 5\nInput data 0 1 data 0=7 1=6 2=3\n"
                       "Convolution conv 1 1 data h 0=4 1=3 4=1 5=1 6=108\n"
                       "Split split 1 2 h h0 h1\n"
                       "ReLU relu 1 1 h0 out\n";
    auto o = pt::optimize_text(text);
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(pt::output_names(o.after), (std::vector<std::string>{"h1", "out"}));
    EXPECT_EQ(o.after.live_layer_count(), 4);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseActivation, Int8HostIsLeftAlone) {
    // int8_scale_term: ncnn requantizes around the activation; nnfold leaves such layers alone
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6 2=3",
                                      "Convolution conv 1 1 data h 0=4 1=3 4=1 5=1 6=108 8=1", "ReLU relu 1 1 h out"}),
                               pt::only({"fuse_convolution_activation"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_activation").find("int8"), std::string::npos);
}
