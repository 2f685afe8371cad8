// Flatten / Reshape eliminations after global Pooling and InnerProduct, Reduction -> global
// Pooling, PReLU -> ReLU: they fire where the layer is an identity (or an equivalent), refuse
// where the shape would change.
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";

}  // namespace

TEST(EliminateFlattenReshape, AfterGlobalPooling) {
    PT_REQUIRE_LAYERS("Flatten", "Reshape");
    for (std::string l : {"Flatten f 1 1 g x", "Reshape f 1 1 g x 0=-1", "Reshape f 1 1 g x 0=3"}) {
        SCOPED_TRACE(l);
        auto o = pt::optimize_text(model({kIn, "Pooling gp 1 1 data g 0=1 4=1", l, "InnerProduct fc 1 1 x out 0=4 2=12"}),
                                   pt::only({"eliminate_flatten_after_global_pooling", "eliminate_reshape_after_global_pooling"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 3);
        pt::expect_same_outputs(o.before, o.after);
        // without shapes: Flatten and Reshape to -1 go, a Reshape to a given width needs shapes
        auto o2 = pt::optimize_text(model({"Input data 0 1 data", "Pooling gp 1 1 data g 0=1 4=1", l,
                                           "InnerProduct fc 1 1 x out 0=4 2=12"}),
                                    pt::only({"eliminate_flatten_after_global_pooling", "eliminate_reshape_after_global_pooling"}));
        ASSERT_TRUE(o2.st.is_ok());
        EXPECT_EQ(o2.after.live_layer_count(), l.find("0=3") != std::string::npos ? 4 : 3);
        pt::expect_same_outputs(o2.before, o2.after, {{"data", Shape::d3(7, 6, 3)}});
    }
    // a Reshape that changes the shape stays
    auto o = pt::optimize_text(model({kIn, "Pooling gp 1 1 data g 0=1 4=1", "Reshape f 1 1 g out 0=1 1=3"}),
                               pt::only({"eliminate_reshape_after_global_pooling"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "eliminate_reshape_after_global_pooling").find("turns [3] into [3,1]"),
              std::string::npos);
}

TEST(EliminateFlattenReshape, AfterInnerProduct) {
    PT_REQUIRE_LAYERS("Flatten");
    auto o = pt::optimize_text(model({kIn, "InnerProduct ip 1 1 data h 0=8 2=1008", "Flatten f 1 1 h out"}),
                               pt::only({"eliminate_flatten_after_innerproduct"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 2);
    EXPECT_EQ(o.after.blobs[pt::layer(o.after, "ip")->tops[0]].name, "out");
    pt::expect_same_outputs(o.before, o.after);
    // row-wise [6, 8] -> Flatten [48]: not an identity
    auto o2 = pt::optimize_text(model({"Input data 0 1 data 0=7 1=6", "InnerProduct ip 1 1 data h 0=8 2=56", "Flatten f 1 1 h out"}),
                                pt::only({"eliminate_flatten_after_innerproduct"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 3);
    pt::expect_same_outputs(o2.before, o2.after);
    // shape unknown: refused
    auto o3 = pt::optimize_text(model({"Input data 0 1 data", "InnerProduct ip 1 1 data h 0=8 2=56", "Flatten f 1 1 h out"}),
                                pt::only({"eliminate_flatten_after_innerproduct"}));
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(o3.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o3.report, "eliminate_flatten_after_innerproduct").find("unknown"), std::string::npos);
}

TEST(ReplaceReduction, MeanOverHeightAndWidth) {
    PT_REQUIRE_LAYERS("Reduction");
    // one Reduction over h and w; a pair (w then h; h then w with keepdims on the first)
    std::vector<std::vector<std::string>> cases = {
        {"Reduction r1 1 1 data out 0=3 1=0 -23303=2,1,2 5=1"},
        {"Reduction r1 1 1 data m 0=3 1=0 -23303=1,2 5=1", "Reduction r2 1 1 m out 0=3 1=0 -23303=1,1 5=1"},
        {"Reduction r1 1 1 data m 0=3 1=0 -23303=1,-2 4=1 5=1", "Reduction r2 1 1 m out 0=3 1=0 -23303=2,1,2 5=1"},
    };
    for (auto& c : cases) {
        SCOPED_TRACE(c[0]);
        std::vector<std::string> lines = {kIn};
        lines.insert(lines.end(), c.begin(), c.end());
        auto o = pt::optimize_text(model(lines), pt::only({"replace_reduction_with_global_pooling"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 2);
        const LayerNode* p = pt::layer(o.after, c.size() == 1 ? "r1" : "r2");
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->type, "Pooling");
        EXPECT_EQ(p->params.get_int(0, 0), 1);  // average
        EXPECT_EQ(p->params.get_int(4, 0), 1);  // global
        EXPECT_EQ(o.after.blobs[p->bottoms[0]].name, "data");
        EXPECT_EQ(o.after.blobs[p->tops[0]].name, "out");
        pt::expect_same_outputs(o.before, o.after);
    }
    // over c and w, with a coefficient, max instead of mean, keepdims result [3,1,1]: not a global pooling
    std::vector<std::vector<std::string>> misses = {
        {"Reduction r1 1 1 data out 0=3 1=0 -23303=2,0,2 5=1"},
        {"Reduction r1 1 1 data out 0=3 1=0 2=2e+00 -23303=2,1,2 5=1"},
        {"Reduction r1 1 1 data out 0=4 1=0 -23303=2,1,2 5=1"},
        {"Reduction r1 1 1 data out 0=3 1=0 -23303=2,1,2 4=1 5=1"},
    };
    for (auto& c : misses) {
        SCOPED_TRACE(c[0]);
        auto o = pt::optimize_text(model({kIn, c[0]}), pt::only({"replace_reduction_with_global_pooling"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(pt::count_type(o.after, "Pooling"), 0);
    }
}

TEST(ReplacePReLU, OneSlopeOrEqualSlopes) {
    PT_REQUIRE_LAYERS("PReLU");
    auto o = pt::optimize_text(model({kIn, "PReLU p 1 1 data out 0=1"}), pt::only({"replace_prelu_with_leaky_relu"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    const LayerNode* p = pt::layer(o.after, "p");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->type, "ReLU");
    EXPECT_EQ(p->params.get_float(0, 0.f), pt::weights_of(o.before, "p", 0)[0]);
    EXPECT_TRUE(p->weights.empty());
    pt::expect_same_outputs(o.before, o.after);
    // three equal slopes: the same; three different (random) ones: stays
    Graph g = test::graph_from_text(model({kIn, "PReLU p 1 1 data out 0=3"}));
    auto o2 = pt::optimize_graph(g, pt::only({"replace_prelu_with_leaky_relu"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(pt::layer(o2.after, "p")->type, "PReLU");
    EXPECT_NE(pt::skip_reasons(o2.report, "replace_prelu_with_leaky_relu").find("different slopes"), std::string::npos);
    g.layers[g.find_layer("p")].weights[0].set_values({0.2f, 0.2f, 0.2f});
    auto o3 = pt::optimize_graph(g, pt::only({"replace_prelu_with_leaky_relu"}));
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(pt::layer(o3.after, "p")->type, "ReLU");
    pt::expect_same_outputs(o3.before, o3.after);
}
