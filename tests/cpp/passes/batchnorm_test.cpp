// BatchNorm folding: fuse_batchnorm_scale, fuse_<host>_batchnorm for every host type,
// fuse_gemm_batchnorm; folded values computed here from ncnn's formulas, outputs compared; near
// misses (activated producer, shared blob, kept blob, row-wise InnerProduct, Gemm along the
// dynamic operand).
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";

struct BN {
    std::vector<double> a, b;  // y = b x + a
};

BN bn_of(const Graph& g, const std::string& name) {
    const LayerNode* l = pt::layer(g, name);
    BN r;
    int n = l->params.get_int(0, 0);
    float eps = l->params.get_float(1, 0.f);
    for (int i = 0; i < n; i++) {
        double slope = l->weights[0].data[i], mean = l->weights[1].data[i], var = l->weights[2].data[i],
               bias = l->weights[3].data[i];
        double sv = std::sqrt(var + (double)eps);
        r.b.push_back(slope / sv);
        r.a.push_back(bias - slope * mean / sv);
    }
    return r;
}

// The host's weights and bias after folding y' = b y + a per output channel, from `before`.
void expect_folded(const Graph& before, const Graph& after, const std::string& host, int bias_index, const BN& f) {
    std::vector<float> w0 = pt::weights_of(before, host, 0);
    const LayerNode* hb = pt::layer(before, host);
    size_t n = f.b.size();
    std::vector<float> b0 = hb->weights.size() > 1 && bias_index > 0 && hb->params.get_int(bias_index, 0)
                                ? hb->weights[1].data
                                : std::vector<float>(n, 0.f);
    size_t per = w0.size() / n;
    std::vector<double> w, b;
    for (size_t o = 0; o < n; o++) {
        for (size_t k = 0; k < per; k++)
            w.push_back(w0[o * per + k] * f.b[o]);
        b.push_back(b0[o] * f.b[o] + f.a[o]);
    }
    pt::expect_near_all(pt::weights_of(after, host, 0), w);
    pt::expect_near_all(pt::weights_of(after, host, 1), b);
    EXPECT_EQ(pt::layer(after, host)->params.get_int(bias_index, 0), 1);
}

struct Host {
    const char* pass;
    std::string line;  // reads "data" [3,6,7], writes "h"
    int channels;
    int bias_param;
};

std::vector<Host> hosts(bool bias) {
    std::string b = bias ? " 5=1" : "";
    std::string ib = bias ? " 1=1" : "";
    return {
        {"fuse_convolution_batchnorm", "Convolution host 1 1 data h 0=4 1=3 4=1 6=108" + b, 4, 5},
        {"fuse_convolutiondepthwise_batchnorm", "ConvolutionDepthWise host 1 1 data h 0=3 1=3 4=1 6=27 7=3" + b, 3, 5},
        {"fuse_deconvolution_batchnorm", "Deconvolution host 1 1 data h 0=2 1=3 3=2 6=54" + b, 2, 5},
        {"fuse_deconvolutiondepthwise_batchnorm", "DeconvolutionDepthWise host 1 1 data h 0=6 1=2 6=24 7=3" + b, 6, 5},
        {"fuse_innerproduct_batchnorm", "InnerProduct host 1 1 data h 0=5 2=630" + ib, 5, 1},
    };
}

}  // namespace

TEST(FuseBatchNorm, EveryHostTypeWithAndWithoutBias) {
    PT_REQUIRE_LAYERS("BatchNorm");
    for (bool bias : {true, false})
        for (const Host& h : hosts(bias)) {
            SCOPED_TRACE(h.line);
            auto o = pt::optimize_text(model({kIn, h.line, "BatchNorm bn 1 1 h out 0=" + std::to_string(h.channels) +
                                                               " 1=1e-03"}));
            ASSERT_TRUE(o.st.is_ok()) << o.st.message();
            EXPECT_EQ(o.after.live_layer_count(), 2);
            EXPECT_EQ(pt::rewrites_of(o.report, h.pass), 1);
            expect_folded(o.before, o.after, "host", h.bias_param, bn_of(o.before, "bn"));
            EXPECT_EQ(o.after.blobs[pt::layer(o.after, "host")->tops[0]].name, "out");
            pt::expect_same_outputs(o.before, o.after);
        }
}

TEST(FuseBatchNorm, InnerProductPathOfAConvolution) {
    // a 1x1 Convolution on a 1D input gives 1D [num_output]: BatchNorm normalizes those values
    PT_REQUIRE_LAYERS("BatchNorm");
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=12", "Convolution host 1 1 data h 0=5 1=1 6=60",
                                      "BatchNorm bn 1 1 h out 0=5"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 2);
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseBatchNorm, NearMisses) {
    PT_REQUIRE_LAYERS("BatchNorm");
    const OptimizeOptions conv_only = pt::only({"fuse_convolution_batchnorm"});
    // producer already activated: y = bn(relu(conv)) is not conv' x
    auto o = pt::optimize_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108 9=1",
                                      "BatchNorm bn 1 1 h out 0=4"}),
                               conv_only);
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_convolution_batchnorm").find("fused activation"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
    // shared intermediate blob
    Graph g = test::graph_from_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108",
                                           "BatchNorm bn 1 1 h out 0=4", "ReLU r 1 1 h out2"}));
    pt::remove_splits(g);
    auto o2 = pt::optimize_graph(g, conv_only);
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 4);
    EXPECT_NE(pt::skip_reasons(o2.report, "fuse_convolution_batchnorm").find("2 consumers"), std::string::npos);
    pt::expect_same_outputs(o2.before, o2.after);
    // kept
    OptimizeOptions keep = conv_only;
    keep.keep = {"h"};
    auto o3 = pt::optimize_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108", "BatchNorm bn 1 1 h out 0=4"}),
                                keep);
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(o3.after.live_layer_count(), 3);
    pt::expect_same_outputs(o3.before, o3.after, {}, {"h"});
    // int8 weights
    auto o4 = pt::optimize_text(model({kIn, "Convolution host 1 1 data h 0=4 1=3 4=1 6=108 8=1", "BatchNorm bn 1 1 h out 0=4"}),
                                conv_only);
    ASSERT_TRUE(o4.st.is_ok());
    EXPECT_EQ(o4.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o4.report, "fuse_convolution_batchnorm").find("int8"), std::string::npos);
}

TEST(FuseBatchNorm, RowWiseInnerProductIsNormalizedPerRow) {
    // [5,7] -> InnerProduct (5 outputs, row-wise) -> [5,5]: BatchNorm normalizes the 5 ROWS;
    // folding it per output channel (ncnnoptimize does) would be wrong
    PT_REQUIRE_LAYERS("BatchNorm");
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=7 1=5", "InnerProduct host 1 1 data h 0=5 1=1 2=35",
                                      "BatchNorm bn 1 1 h out 0=5"}),
                               pt::only({"fuse_innerproduct_batchnorm"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_innerproduct_batchnorm").find("row-wise"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
    // unknown shape: refused too
    auto o2 = pt::optimize_text(model({"Input data 0 1 data", "InnerProduct host 1 1 data h 0=5 1=1 2=35",
                                       "BatchNorm bn 1 1 h out 0=5"}),
                                pt::only({"fuse_innerproduct_batchnorm"}));
    ASSERT_TRUE(o2.st.is_ok());
    EXPECT_EQ(o2.after.live_layer_count(), 3);
}

TEST(FuseBatchNormScale, WithAndWithoutBias) {
    PT_REQUIRE_LAYERS("BatchNorm", "Scale");
    for (const char* bias : {" 1=1", ""}) {
        auto o = pt::optimize_text(model({kIn, "BatchNorm bn 1 1 data b 0=3 1=1e-05", std::string("Scale sc 1 1 b out 0=3") + bias}),
                                   pt::only({"fuse_batchnorm_scale"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 2);
        std::vector<float> slope = pt::weights_of(o.before, "bn", 0), bb = pt::weights_of(o.before, "bn", 3);
        std::vector<float> s = pt::weights_of(o.before, "sc", 0);
        std::vector<float> t = *bias ? pt::weights_of(o.before, "sc", 1) : std::vector<float>(3, 0.f);
        std::vector<double> want_slope, want_bias;
        for (int q = 0; q < 3; q++) {
            want_slope.push_back((double)slope[q] * s[q]);
            want_bias.push_back((double)bb[q] * s[q] + t[q]);
        }
        pt::expect_near_all(pt::weights_of(o.after, "bn", 0), want_slope);
        pt::expect_near_all(pt::weights_of(o.after, "bn", 3), want_bias);
        EXPECT_EQ(pt::weights_of(o.after, "bn", 1), pt::weights_of(o.before, "bn", 1));  // mean
        EXPECT_EQ(pt::weights_of(o.after, "bn", 2), pt::weights_of(o.before, "bn", 2));  // var
        pt::expect_same_outputs(o.before, o.after);
    }
    // 2D and 1D inputs: both layers work along the same (outermost) axis
    for (std::string in : {"Input data 0 1 data 0=7 1=3", "Input data 0 1 data 0=3"}) {
        auto o = pt::optimize_text(model({in, "BatchNorm bn 1 1 data b 0=3", "Scale sc 1 1 b out 0=3 1=1"}),
                                   pt::only({"fuse_batchnorm_scale"}));
        ASSERT_TRUE(o.st.is_ok());
        EXPECT_EQ(o.after.live_layer_count(), 2);
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FuseBatchNormScale, ScaleByABlobStays) {
    PT_REQUIRE_LAYERS("BatchNorm", "Scale");
    auto o = pt::optimize_text(model({kIn, "Input s 0 1 s 0=1 1=1 2=3", "BatchNorm bn 1 1 data b 0=3",
                                      "Scale sc 2 1 b s out 0=-233"}),
                               pt::only({"fuse_batchnorm_scale"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.after.live_layer_count(), 4);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_batchnorm_scale").find("by a blob"), std::string::npos);
}

TEST(FuseGemmBatchNorm, ConstantAAlongM) {
    PT_REQUIRE_LAYERS("BatchNorm");
    // A constant [M=4, K=6] (or [K, M] with transA), B the input [K=6, N=5]; output [4,5], rows = M
    struct Case {
        std::string params;
    };
    std::vector<std::string> variants = {
        "4=1 7=4 9=6",                    // no C
        "2=1 4=1 7=4 9=6",                // transA
        "0=5e-01 4=1 6=1 7=4 9=6 10=0",   // scalar C, alpha
        "1=2e+00 4=1 6=1 7=4 9=6 10=1",   // per-M C, beta
        "4=1 6=1 7=4 8=5 9=6 10=4",       // per-N C: becomes a full [M,N] C
        "4=1 6=1 7=4 8=5 9=6 10=3",       // full C
        "4=1 7=4 9=6 11=1",               // N1M output [4,1,5]
    };
    for (auto& v : variants) {
        SCOPED_TRACE(v);
        auto o = pt::optimize_text(model({"Input data 0 1 data 0=5 1=6", "Gemm gm 1 1 data h " + v, "BatchNorm bn 1 1 h out 0=4"}),
                                   pt::only({"fuse_gemm_batchnorm"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 2);
        EXPECT_EQ(pt::layer(o.after, "gm")->params.get_int(6, 0), 1);
        pt::expect_same_outputs(o.before, o.after);
    }
}

TEST(FuseGemmBatchNorm, FoldedValues) {
    PT_REQUIRE_LAYERS("BatchNorm");
    // alpha 0.5, beta 2, A [4,6] constant, scalar C: A'[m,:] = b[m] A[m,:], C'[m] = b[m] c + a[m] / (alpha beta)
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=5 1=6", "Gemm gm 1 1 data h 0=5e-01 1=2e+00 4=1 6=1 7=4 9=6 10=0",
                                      "BatchNorm bn 1 1 h out 0=4 1=1e-02"}),
                               pt::only({"fuse_gemm_batchnorm"}));
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    BN f = bn_of(o.before, "bn");
    std::vector<float> A = pt::weights_of(o.before, "gm", 0), C = pt::weights_of(o.before, "gm", 1);
    std::vector<double> wantA, wantC;
    for (int m = 0; m < 4; m++) {
        for (int k = 0; k < 6; k++)
            wantA.push_back(A[m * 6 + k] * f.b[m]);
        wantC.push_back(f.b[m] * C[0] + f.a[m] / (0.5 * 2.0));
    }
    pt::expect_near_all(pt::weights_of(o.after, "gm", 0), wantA);
    pt::expect_near_all(pt::weights_of(o.after, "gm", 1), wantC);
    const LayerNode* g = pt::layer(o.after, "gm");
    EXPECT_EQ(g->params.get_int(10, 0), 1);  // C per M
    EXPECT_EQ(g->params.get_int(7, 0), 4);
    EXPECT_EQ(g->weights[1].storage, WeightStorage::F32);  // C_data is a tagged array
    pt::expect_same_outputs(o.before, o.after);
}

TEST(FuseGemmBatchNorm, ConstantBAlongNWhenTransposed) {
    PT_REQUIRE_LAYERS("BatchNorm");
    // A the input [M=3, K=6], B constant [K,N=5] (transB: [N,K]); output_transpose gives [N=5, M=3]
    for (std::string v : {"5=1 8=5 9=6 14=1", "3=1 5=1 8=5 9=6 14=1", "5=1 6=1 7=3 8=5 9=6 10=2 14=1"}) {
        SCOPED_TRACE(v);
        auto o = pt::optimize_text(model({"Input data 0 1 data 0=6 1=3", "Gemm gm 1 1 data h " + v, "BatchNorm bn 1 1 h out 0=5"}),
                                   pt::only({"fuse_gemm_batchnorm"}));
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_EQ(o.after.live_layer_count(), 2);
        pt::expect_same_outputs(o.before, o.after);
    }
    // B constant but not transposed: BatchNorm works along M, the rows of the input
    auto o = pt::optimize_text(model({"Input data 0 1 data 0=6 1=3", "Gemm gm 1 1 data h 5=1 8=5 9=6",
                                      "BatchNorm bn 1 1 h out 0=3"}),
                               pt::only({"fuse_gemm_batchnorm"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 3);
    EXPECT_NE(pt::skip_reasons(o.report, "fuse_gemm_batchnorm").find("not constant"), std::string::npos);
    pt::expect_same_outputs(o.before, o.after);
}
