// The seed fusions: Slice -> N Convolutions -> Concat as one grouped ConvolutionDepthWise (and a
// BatchNorm after it then folds), N Convolutions of one input -> Concat as one Convolution with
// stacked filters; near misses (unequal parts, different branches, order, kept blobs).
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

// x [8,6,7] sliced into 4 parts of 2 channels, each convolved to 3 outputs (3x3, pad 1)
std::vector<std::string> grouped(const std::string& slice_params = "-23300=4,-233,-233,-233,-233",
                                 const std::string& cat_order = "c0 c1 c2 c3") {
    std::vector<std::string> l = {"Input data 0 1 data 0=7 1=6 2=8", "Slice s 1 4 data p0 p1 p2 p3 " + slice_params};
    for (int k = 0; k < 4; k++)
        l.push_back("Convolution cv" + std::to_string(k) + " 1 1 p" + std::to_string(k) + " c" + std::to_string(k) +
                    " 0=3 1=3 4=1 5=1 6=54");
    l.push_back("Concat cat 4 1 " + cat_order + " out");
    return l;
}

}  // namespace

TEST(FuseSliceConvolutionConcat, GroupedConvolution) {
    PT_REQUIRE_LAYERS("Slice", "Concat");
    auto o = pt::optimize_text(model(grouped()));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 2);
    const LayerNode* g = pt::layer(o.after, "cv0");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->type, "ConvolutionDepthWise");
    EXPECT_EQ(g->params.get_int(0, 0), 12);
    EXPECT_EQ(g->params.get_int(7, 0), 4);
    EXPECT_EQ(g->params.get_int(6, 0), 216);
    // weights: the branches' arrays one after another
    std::vector<double> w, b;
    for (int k = 0; k < 4; k++) {
        for (float v : pt::weights_of(o.before, "cv" + std::to_string(k), 0))
            w.push_back(v);
        for (float v : pt::weights_of(o.before, "cv" + std::to_string(k), 1))
            b.push_back(v);
    }
    pt::expect_near_all(g->weights[0].data, w, 0);
    pt::expect_near_all(g->weights[1].data, b, 0);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseSliceConvolutionConcat, ThenBatchNormFolds) {
    PT_REQUIRE_LAYERS("Slice", "Concat", "BatchNorm");
    auto lines = grouped();
    lines.back() = "Concat cat 4 1 c0 c1 c2 c3 cc";
    lines.push_back("BatchNorm bn 1 1 cc out 0=12");
    auto o = pt::optimize_text(model(lines));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 2);
    EXPECT_EQ(o.report.rounds, 2);  // both in the first round, then a round with no change
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseSliceConvolutionConcat, NearMisses) {
    PT_REQUIRE_LAYERS("Slice", "Concat");
    const OptimizeOptions only = pt::only({"fuse_slice_convolution_concat"});
    // unequal parts (1, 1, 2, 4 channels): the convolutions cannot all read 2 channels; use 1x1s
    {
        std::vector<std::string> l = {"Input data 0 1 data 0=7 1=6 2=8", "Slice s 1 2 data p0 p1 -23300=2,2,-233",
                                      "Convolution cv0 1 1 p0 c0 0=3 1=1 6=6", "Convolution cv1 1 1 p1 c1 0=3 1=1 6=18",
                                      "Concat cat 2 1 c0 c1 out"};
        auto o = pt::optimize_text(model(l), only);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 5);
        pt::expect_same_outputs(o.before, o.after);
    }
    // concatenated in another order than sliced
    auto o2 = pt::optimize_text(model(grouped("-23300=4,-233,-233,-233,-233", "c1 c0 c2 c3")), only);
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 7);
    EXPECT_NE(pt::skip_reasons(o2.report, "fuse_slice_convolution_concat").find("order"), std::string::npos);
    pt::expect_same_outputs(o2.before, o2.after);
    // a branch with another kernel
    auto l3 = grouped();
    l3[3] = "Convolution cv1 1 1 p1 c1 0=3 1=1 5=1 6=6";
    auto o3 = pt::optimize_text(model(l3), only);
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(o3.after.live_layer_count(), 7);
    // a slice output kept
    OptimizeOptions keep = only;
    keep.keep = {"p2"};
    auto o4 = pt::optimize_text(model(grouped()), keep);
    ASSERT_TRUE(o4.st.is_ok());
    EXPECT_EQ(o4.after.live_layer_count(), 7);
    // slicing along h: the parts are not channel groups
    std::vector<std::string> l5 = {"Input data 0 1 data 0=7 1=8 2=2", "Slice s 1 2 data p0 p1 -23300=2,-233,-233 1=1",
                                   "Convolution cv0 1 1 p0 c0 0=3 1=1 6=6", "Convolution cv1 1 1 p1 c1 0=3 1=1 6=6",
                                   "Concat cat 2 1 c0 c1 out"};
    auto o5 = pt::optimize_text(model(l5), only);
    ASSERT_TRUE(o5.st.is_ok()) << o5.st.message();
    EXPECT_EQ(o5.after.live_layer_count(), 5);
    pt::expect_same_outputs(o5.before, o5.after);
}

TEST(FuseSplitConvolutionConcat, StackedFilters) {
    PT_REQUIRE_LAYERS("Concat");
    // three convolutions of x (3x3, stride 2; 2, 3 and 4 filters; one without bias) joined
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=9 1=8 2=3", "Convolution a 1 1 data ya 0=2 1=3 3=2 5=1 6=54",
                                      "Convolution b 1 1 data yb 0=3 1=3 3=2 6=81",
                                      "Convolution c 1 1 data yc 0=4 1=3 3=2 5=1 6=108", "Concat cat 3 1 yb ya yc out"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 2);
    const LayerNode* s = pt::layer(o.after, "b");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->type, "Convolution");
    EXPECT_EQ(s->params.get_int(0, 0), 9);
    EXPECT_EQ(s->params.get_int(5, 0), 1);
    std::vector<double> w, bias;
    for (std::string n : {"b", "a", "c"}) {
        for (float v : pt::weights_of(o.before, n, 0))
            w.push_back(v);
        std::vector<float> bb = pt::layer(o.before, n)->params.get_int(5, 0) ? pt::weights_of(o.before, n, 1)
                                                                            : std::vector<float>(3, 0.f);
        for (float v : bb)
            bias.push_back(v);
    }
    pt::expect_near_all(s->weights[0].data, w, 0);
    pt::expect_near_all(s->weights[1].data, bias, 0);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseSplitConvolutionConcat, NearMisses) {
    PT_REQUIRE_LAYERS("Concat");
    const OptimizeOptions only = pt::only({"fuse_split_convolution_concat"});
    // different strides
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=9 1=8 2=3", "Convolution a 1 1 data ya 0=2 1=1 6=6",
                                      "Convolution b 1 1 data yb 0=3 1=1 3=2 6=9", "Concat cat 2 1 ya yb out"}),
                               only);
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 5);  // with the Split the reader put after "data"
    // a branch also read elsewhere
    auto o2 = pt::optimize_text(model({"Input data 0 1 data 0=9 1=8 2=3", "Convolution a 1 1 data ya 0=2 1=1 6=6",
                                       "Convolution b 1 1 data yb 0=3 1=1 6=9", "Concat cat 2 1 ya yb out",
                                       "ReLU r 1 1 yb out2"}),
                                only);
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::count_type(o2.after, "Concat"), 1);
    pt::expect_same_outputs(o2.before, o2.after);
    // other Split outputs stay for their readers
    auto o3 = pt::optimize_text(model({"Input data 0 1 data 0=9 1=8 2=3", "Convolution a 1 1 data ya 0=2 1=1 6=6",
                                       "Convolution b 1 1 data yb 0=3 1=1 6=9", "Concat cat 2 1 ya yb out",
                                       "ReLU r 1 1 data out2"}));
    ASSERT_TRUE(o3.st.is_ok()) << o3.st.message();
    EXPECT_EQ(pt::count_type(o3.after, "Concat"), 0);
    EXPECT_EQ(pt::count_type(o3.after, "Convolution"), 1);
    pt::expect_same_outputs(o3.before, o3.after);
}
