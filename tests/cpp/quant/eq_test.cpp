// EQ's row-at-a-time weight search (quant/eq.h eq_weight_scales) against the search as ncnn2table
// writes it (the whole layer per candidate, eq_weight_scales_full): the same scales on a
// Convolution, a depthwise and a grouped ConvolutionDepthWise, and an InnerProduct.
#include <gtest/gtest.h>

#include "quant/calibration.h"
#include "quant/eq.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::quant;

namespace {

struct EqCase {
    const char* name;
    const char* param;
    std::vector<int> in_shape;  // outermost first
};

void check_case(const EqCase& k) {
    SCOPED_TRACE(k.name);
    Graph g = test::graph_from_text(k.param, 3);
    std::vector<Int8Candidate> cs;
    ASSERT_TRUE(find_candidates(g, cs).is_ok());
    ASSERT_EQ(cs.size(), 1u);
    const Int8Candidate& c = cs[0];
    const LayerNode& node = g.layers[(size_t)c.layer];
    auto alloc = std::make_shared<Allocator>();
    std::unique_ptr<Layer> fp;
    ASSERT_TRUE(build_layer(node, alloc.get(), fp).is_ok());
    std::vector<Mat> ins, outs;
    size_t count = 1;
    for (int d : k.in_shape)
        count *= (size_t)d;
    uint32_t seed = 11;
    float amax = 0;
    for (int i = 0; i < 3; i++) {
        std::vector<float> v(count);
        uint32_t st = seed + (uint32_t)i * 7919u;
        for (auto& x : v) {
            st = st * 1664525u + 1013904223u;
            x = ((st >> 8) / 16777216.f) * 2.f - 1.f;  // U(-1, 1) from an LCG
        }
        Mat in = test::make_mat(k.in_shape, v);
        Mat out;
        ASSERT_TRUE(forward_layer(*fp, in, alloc.get(), out).is_ok());
        amax = std::max(amax, absmax(in.data, in.total_floats()));
        ins.push_back(in);
        outs.push_back(out);
    }
    const std::vector<float>& w = node.weights[0].data;
    std::vector<float> start = weight_scales_absmax(w.data(), c.rows, c.row_size, c.qmax);
    const float bottom = 127 / amax;
    std::vector<float> fast = start, full = start;
    ASSERT_TRUE(eq_weight_scales(node, c, bottom, ins, outs, alloc.get(), fast).is_ok());
    ASSERT_TRUE(eq_weight_scales_full(node, c, bottom, ins, outs, alloc.get(), full).is_ok());
    // Candidates whose summed similarities differ by float noise (~1e-7) may be picked differently
    // (ncnn's float sums pick among them by that noise too): the two searches agree on most rows,
    // and the whole layer's similarity with either set of scales is the same to 1e-6.
    int same = 0;
    for (size_t r = 0; r < fast.size(); r++)
        same += fast[r] == full[r] ? 1 : 0;
    EXPECT_GE(same * 2, (int)fast.size()) << "rows chosen alike: " << same;
    auto similarity = [&](const std::vector<float>& ws) {
        std::unique_ptr<Layer> l;
        EXPECT_TRUE(build_int8_layer(node, c, ws, bottom, alloc.get(), l).is_ok());
        double sum = 0;
        for (size_t i = 0; i < ins.size(); i++) {
            Mat o;
            EXPECT_TRUE(forward_layer(*l, ins[i], alloc.get(), o).is_ok());
            sum += cosine_similarity(outs[i].data, o.data, o.total_floats());
        }
        return sum;
    };
    const double s_fast = similarity(fast), s_full = similarity(full), s_start = similarity(start);
    EXPECT_NEAR(s_fast, s_full, 1e-6 * ins.size());
    // on these samples the search improves on the starting scales (greedy per row, so not a law)
    EXPECT_GE(s_fast, s_start - 1e-6 * ins.size());
    int moved = 0;
    for (size_t r = 0; r < start.size(); r++)
        moved += fast[r] != start[r] ? 1 : 0;
    EXPECT_GT(moved, 0);  // the search did something to compare
    float b = bottom;
    ASSERT_TRUE(eq_bottom_scale(node, c, fast, ins, outs, alloc.get(), b).is_ok());
    EXPECT_GE(b, bottom * 0.5f);
    EXPECT_LT(b, bottom * 2.f);
}

}  // namespace

TEST(EqSearch, RowSearchMatchesWholeLayerSearch) {
    check_case({"conv 3x3 s2",
                "7767517\n2 2\nInput data 0 1 data 0=6 1=6 2=3\n"
                "Convolution c 1 1 data c 0=5 1=3 3=2 4=1 5=1 6=135 9=1\n",
                {3, 6, 6}});
    check_case({"depthwise",
                "7767517\n2 2\nInput data 0 1 data 0=5 1=5 2=4\n"
                "ConvolutionDepthWise d 1 1 data d 0=4 1=3 4=1 5=1 6=36 7=4\n",
                {4, 5, 5}});
    check_case({"grouped",
                "7767517\n2 2\nInput data 0 1 data 0=5 1=5 2=4\n"
                "ConvolutionDepthWise d 1 1 data d 0=6 1=1 5=1 6=12 7=2\n",
                {4, 5, 5}});
    check_case({"innerproduct",
                "7767517\n2 2\nInput data 0 1 data 0=12\n"
                "InnerProduct f 1 1 data f 0=7 1=1 2=84\n",
                {12}});
}
