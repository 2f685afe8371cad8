// Residual Add (+ activation) fused into the producing convolution's store (runtime/fuse_store.h):
// each graph runs with the fusion off, then on, on the same seeded weights and inputs. The fused run
// must plan the expected fusion, run fewer layers and give the same bits (the store adds and
// activates exactly as BinaryOp/Eltwise and the activation layers do), and stay within the SIMD
// budget of the reference layers; at 1, 2 and 3 threads the same bits. Near misses must not fuse and
// still give the unfused outputs.
#include <gtest/gtest.h>

#include <cstring>

#include "core/parallel.h"
#include "io/ncnn_io.h"
#include "passes/passes_harness.h"
#include "runtime/net.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

namespace {

// .param text from layer lines: the optimizer tests' helper (magic and counts added).
using pt::model;

struct NetRun {
    std::map<std::string, Mat> out;
    size_t layers_run = 0;
    size_t fusions = 0;
    uint64_t peak = 0;
};

NetRun run(const Graph& g, const std::map<std::string, Mat>& in, bool optimized, bool fuse,
        const std::vector<std::string>& wanted = {}) {
    NetRun r;
    Net net;
    NetOptions o;
    o.use_optimized = optimized;
    o.fuse_residual = fuse;
    Status st = net.load(g, o);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!st)
        return r;
    RunStats stats;
    st = net.run(in, wanted, r.out, &stats);
    EXPECT_TRUE(st.is_ok()) << st.message();
    r.layers_run = stats.layers.size();
    r.fusions = net.store_fusions().size();
    r.peak = stats.peak_bytes;
    return r;
}

std::map<std::string, Mat> inputs_for(const Graph& g, uint32_t seed) {
    Net net;
    EXPECT_TRUE(net.load(g).is_ok());
    return test::random_inputs(net, seed);
}

bool same_bits(const Mat& a, const Mat& b) {
    return a.shape() == b.shape() && std::memcmp(a.data, b.data, a.total_floats() * sizeof(float)) == 0;
}

// Fusion off vs on (optimized layers) and vs the reference layers; returns the fused run.
NetRun check_fused(const std::string& text, size_t expect_fusions, size_t expect_skipped,
                const std::vector<std::string>& wanted = {}) {
    Graph g = test::graph_from_text(text, 7);
    auto in = inputs_for(g, 3);
    NetRun ref = run(g, in, false, false, wanted);
    NetRun off = run(g, in, true, false, wanted);
    NetRun on = run(g, in, true, true, wanted);
    EXPECT_EQ(off.fusions, 0u);
    EXPECT_EQ(on.fusions, expect_fusions);
    EXPECT_EQ(on.layers_run + expect_skipped, off.layers_run);
    EXPECT_EQ(on.out.size(), off.out.size());
    EXPECT_FALSE(on.out.empty());
    for (auto& kv : off.out) {
        auto it = on.out.find(kv.first);
        EXPECT_TRUE(it != on.out.end()) << kv.first;
        if (it == on.out.end())
            continue;
        EXPECT_TRUE(same_bits(kv.second, it->second)) << kv.first << " err " << test::rel_err(kv.second, it->second);
        EXPECT_LE(test::rel_err(ref.out.at(kv.first), it->second), 1e-4) << kv.first;
    }
    return on;
}

// Input [c, h, w], a shortcut convolution, and a main convolution `conv` (reads "data", writes "x");
// the shortcut "r" comes first so the main convolution can take it.
std::string residual_model(const std::string& input, const std::string& shortcut, const std::string& conv,
                           const std::string& add, const std::string& tail) {
    std::vector<std::string> lines = {input, "Split sp 1 2 data d0 d1", shortcut, conv, add};
    if (!tail.empty())
        lines.push_back(tail);
    return model(lines);
}

struct Case {
    const char* what;
    std::string input, shortcut, conv;
};

std::vector<Case> conv_cases() {
    return {
        // 1x1 stride 1: the strided-B GEMM (odd channels and pixels: edge tiles in both directions)
        {"1x1", "Input in 0 1 data 0=7 1=5 2=5", "Convolution sc 1 1 d0 r 0=6 1=1 5=1 6=30",
         "Convolution main 1 1 d1 x 0=6 1=1 5=1 6=30"},
        // 3x3 pad 1 im2col (few channels: not Winograd), with the conv's own fused ReLU
        {"3x3", "Input in 0 1 data 0=9 1=7 2=3", "Convolution sc 1 1 d0 r 0=5 1=1 5=1 6=15",
         "Convolution main 1 1 d1 x 0=5 1=3 4=1 5=1 6=135 9=1"},
        // 3x3 stride 2 im2col against a 1x1 stride-2 shortcut
        {"3x3s2", "Input in 0 1 data 0=11 1=9 2=3", "Convolution sc 1 1 d0 r 0=7 1=1 3=2 5=1 6=21",
         "Convolution main 1 1 d1 x 0=7 1=3 3=2 4=1 5=1 6=189"},
        // 3x3 stride 1 with >= 16 channels: Winograd F(4,3), output 13x10 (partial tiles)
        {"winograd", "Input in 0 1 data 0=13 1=10 2=16", "Convolution sc 1 1 d0 r 0=17 1=1 5=1 6=272",
         "Convolution main 1 1 d1 x 0=17 1=3 4=1 5=1 6=2448"},
        // ncnn's 1D InnerProduct form of a 1x1 convolution (GEMV), residual a 1D blob
        {"gemv", "Input in 0 1 data 0=10", "Convolution sc 1 1 d0 r 0=9 1=1 5=1 6=90",
         "Convolution main 1 1 d1 x 0=9 1=1 5=1 6=90"},
    };
}

TEST(StoreFusion, BinaryOpAddReluEveryConvPath) {
    for (const Case& c : conv_cases()) {
        SCOPED_TRACE(c.what);
        check_fused(residual_model(c.input, c.shortcut, c.conv, "BinaryOp add 2 1 x r y 0=0", "ReLU act 1 1 y z"), 1,
                    2);
        // the addends the other way round (r + x)
        check_fused(residual_model(c.input, c.shortcut, c.conv, "BinaryOp add 2 1 r x y 0=0", "ReLU act 1 1 y z"), 1,
                    2);
    }
}

TEST(StoreFusion, EltwiseSumAndActivations) {
    const Case c = conv_cases()[3];  // Winograd
    const Case d = conv_cases()[1];  // im2col
    for (const Case* k : {&c, &d}) {
        SCOPED_TRACE(k->what);
        // Eltwise sum, plain and with coefficients 1, then no activation at all
        check_fused(residual_model(k->input, k->shortcut, k->conv, "Eltwise add 2 1 r x y 0=1", ""), 1, 1);
        check_fused(residual_model(k->input, k->shortcut, k->conv, "Eltwise add 2 1 r x y 0=1 -23301=2,1.0,1.0",
                                   "Noop tail 1 1 y z"),
                    1, 1);
        for (const char* act : {"ReLU act 1 1 y z 0=0.1", "Clip act 1 1 y z 0=-0.25 1=0.5",
                                "HardSwish act 1 1 y z 0=0.2 1=0.5", "Sigmoid act 1 1 y z"})
            check_fused(residual_model(k->input, k->shortcut, k->conv, "Eltwise add 2 1 r x y 0=1", act), 1, 2);
        // an activation the kernels do not compute with the layer's bits stays a layer: Add fused only
        check_fused(residual_model(k->input, k->shortcut, k->conv, "Eltwise add 2 1 r x y 0=1", "TanH act 1 1 y z"), 1,
                    1);
        check_fused(residual_model(k->input, k->shortcut, k->conv, "Eltwise add 2 1 r x y 0=1",
                                   "Clip act 1 1 y z 0=0.5 1=-0.5"),
                    1, 1);
    }
}

TEST(StoreFusion, NearMissesDoNotFuse) {
    const Case c = conv_cases()[1];
    // not an add: mul, sub, a scalar add, Eltwise max, Eltwise sum with a coefficient 2
    for (const char* add : {"BinaryOp add 2 1 x r y 0=2", "BinaryOp add 2 1 x r y 0=1", "Eltwise add 2 1 x r y 0=2",
                            "Eltwise add 2 1 x r y 0=1 -23301=2,1.0,2.0"}) {
        SCOPED_TRACE(add);
        check_fused(residual_model(c.input, c.shortcut, c.conv, add, "ReLU act 1 1 y z"), 0, 0);
    }
    // the other addend is computed after the convolution (by a layer that cannot fuse): nothing to
    // add yet when the convolution stores
    check_fused(model({c.input, "Split sp 1 2 data d0 d1", c.conv, c.shortcut, "Sigmoid s 1 1 r r2",
                       "BinaryOp add 2 1 x r2 y 0=0"}),
                0, 0);
    // ... but when that later producer is a convolution, it takes the Add instead
    check_fused(model({c.input, "Split sp 1 2 data d0 d1", c.conv, c.shortcut, "BinaryOp add 2 1 x r y 0=0"}), 1, 1);
    // the convolution's output has a second consumer
    check_fused(model({c.input, "Split sp 1 2 data d0 d1", c.shortcut, c.conv, "Split sx 1 2 x x0 x1",
                       "BinaryOp add 2 1 x0 r y 0=0", "Sigmoid other 1 1 x1 w"}),
                0, 0);
    // a broadcast add (r is per channel [5,1,1]): the Add stays (the plan needs equal shapes per run)
    check_fused(model({"Input in 0 1 data 0=9 1=7 2=3", "Split sp 1 2 data d0 d1",
                       "Pooling gp 1 1 d0 r 0=1 4=1", "Convolution sc 1 1 r r5 0=5 1=1 5=1 6=15",
                       "Convolution main 1 1 d1 x 0=5 1=3 4=1 5=1 6=135", "BinaryOp add 2 1 x r5 y 0=0"}),
                1, 0);
    // the reference layers never fuse
    Graph g = test::graph_from_text(
        residual_model(c.input, c.shortcut, c.conv, "BinaryOp add 2 1 x r y 0=0", "ReLU act 1 1 y z"), 7);
    auto in = inputs_for(g, 3);
    EXPECT_EQ(run(g, in, false, true).fusions, 0u);
}

TEST(StoreFusion, AskingForAnInnerBlobRunsUnfused) {
    const Case c = conv_cases()[3];
    const std::string text =
        residual_model(c.input, c.shortcut, c.conv, "BinaryOp add 2 1 x r y 0=0", "ReLU act 1 1 y z");
    // x (the convolution's own output) and y (before the ReLU) must come out as computed unfused
    check_fused(text, 1, 0, {"x", "z"});
    check_fused(text, 1, 0, {"y", "z"});
    // asking for the shortcut keeps it alive but fusion still applies
    check_fused(text, 1, 2, {"r", "z"});
}

TEST(StoreFusion, ChainedResidualBlocksAndPeakMemory) {
    // two residual blocks in a row, the second's shortcut the first's (fused) output
    const std::string text = model({"Input in 0 1 data 0=12 1=12 2=16", "Split sp 1 2 data d0 d1",
                                    "Convolution c1 1 1 d1 x1 0=16 1=3 4=1 5=1 6=2304 9=1",
                                    "BinaryOp a1 2 1 x1 d0 y1 0=0", "ReLU r1 1 1 y1 z1", "Split sp2 1 2 z1 e0 e1",
                                    "Convolution c2 1 1 e1 x2 0=16 1=1 5=1 6=256",
                                    "Eltwise a2 2 1 e0 x2 y2 0=1", "ReLU r2 1 1 y2 z2"});
    Graph g = test::graph_from_text(text, 5);
    auto in = inputs_for(g, 9);
    NetRun off = run(g, in, true, false), on = check_fused(text, 2, 4);
    // the Adds' separate outputs are never allocated: the fused peak is at most the unfused one
    EXPECT_LE(on.peak, off.peak);
    EXPECT_GT(on.peak, 0u);
}

TEST(StoreFusion, SameBitsAtAnyThreadCount) {
    if (!build_has_threads())
        GTEST_SKIP() << "this build has no thread pool";
    struct PoolGuard {
        ~PoolGuard() {
            set_min_chunk_cost(0);
            shutdown_threads();
        }
    } guard;
    // every loop split as finely as the threads allow, on these small shapes
    set_min_chunk_cost(1);
    ASSERT_TRUE(set_num_threads(3).is_ok());
    const uint64_t jobs_before = parallel_jobs_run();
    for (const Case& c : conv_cases()) {
        SCOPED_TRACE(c.what);
        Graph g = test::graph_from_text(
            residual_model(c.input, c.shortcut, c.conv, "BinaryOp add 2 1 x r y 0=0", "ReLU act 1 1 y z"), 7);
        auto in = inputs_for(g, 3);
        ASSERT_TRUE(set_num_threads(1).is_ok());
        NetRun one = run(g, in, true, true);
        for (int t : {2, 3}) {
            ASSERT_TRUE(set_num_threads(t).is_ok());
            NetRun many = run(g, in, true, true);
            ASSERT_EQ(many.out.size(), one.out.size());
            for (auto& kv : one.out)
                EXPECT_TRUE(same_bits(kv.second, many.out.at(kv.first))) << kv.first << " at " << t << " threads";
        }
        ASSERT_TRUE(set_num_threads(1).is_ok());
    }
    EXPECT_GT(parallel_jobs_run(), jobs_before);  // the threaded runs really split their work
}

// BlazeFace's blocks (tf2onnx BlazeFace as imported: Pad of zero channels on the shortcut, ncnn
// Padding param 8 = behind): depthwise -> 1x1 convolution with more channels -> Add(shortcut padded
// with zero channels) -> ReLU, the shortcut the block input or a 2x2 max pool of it. The store adds
// the unpadded shortcut on the first channels and +0 on the rest; Padding, Add and ReLU do not run.
std::string pad_block(const std::string& shortcut, const std::string& pad, const std::string& tail,
                      const std::string& order = "pad_after",
                      const std::vector<std::string>& add = {"BinaryOp add 2 1 x rp y 0=0"}) {
    std::vector<std::string> lines = {"Input in 0 1 data 0=13 1=11 2=6", "Split sp 1 2 data d0 d1"};
    if (!shortcut.empty())
        lines.push_back(shortcut);
    const std::string dw = shortcut.empty() ? "ConvolutionDepthWise dw 1 1 d1 t 0=6 1=3 4=1 5=1 6=54 7=6"
                                            : "ConvolutionDepthWise dw 1 1 d1 t 0=6 1=3 3=2 15=1 16=1 5=1 6=54 7=6";
    const std::string conv = "Convolution main 1 1 t x 0=10 1=1 5=1 6=60";
    if (order == "pad_before") {
        lines.push_back(pad);
        lines.push_back(dw);
        lines.push_back(conv);
    } else {
        lines.push_back(dw);
        lines.push_back(conv);
        lines.push_back(pad);
    }
    lines.insert(lines.end(), add.begin(), add.end());
    if (!tail.empty())
        lines.push_back(tail);
    return model(lines);
}

TEST(StoreFusion, ZeroChannelPaddedShortcut) {
    const std::string pool = "Pooling mp 1 1 d0 r 0=0 1=2 2=2 5=1";
    // the block input as shortcut (stride 1), and a max pool of it (stride 2, odd input: 6x5 out)
    check_fused(pad_block("", "Padding pd 1 1 d0 rp 8=4", "ReLU act 1 1 y z"), 1, 3);
    check_fused(pad_block(pool, "Padding pd 1 1 r rp 8=4", "ReLU act 1 1 y z"), 1, 3);
    // no activation after the Add; the addends of the Add the other way round
    check_fused(pad_block(pool, "Padding pd 1 1 r rp 8=4", ""), 1, 2);
    check_fused(pad_block(pool, "Padding pd 1 1 r rp 8=4", "Clip act 1 1 y z 0=-0.5 1=0.25", "pad_after",
                          {"BinaryOp add 2 1 rp x y 0=0"}),
                1, 3);
    // asking for the padded shortcut keeps the Padding: the Add stays unfused (x + rp as planned)
    check_fused(pad_block(pool, "Padding pd 1 1 r rp 8=4", "ReLU act 1 1 y z"), 1, 0, {"rp", "z"});
}

TEST(StoreFusion, PaddingsThatAreNotZeroChannelsStay) {
    const std::string pool = "Pooling mp 1 1 d0 r 0=0 1=2 2=2 5=1";
    // a non-zero pad value, channels in front, in front and behind, replicate padding, a pad value
    // of -0 (x + -0 keeps a -0 that x + 0 would make +0)
    for (const char* pad : {"Padding pd 1 1 r rp 8=4 5=1.0", "Padding pd 1 1 r rp 7=4", "Padding pd 1 1 r rp 7=1 8=3",
                            "Padding pd 1 1 r rp 8=4 4=1", "Padding pd 1 1 r rp 8=4 5=-0.0"}) {
        SCOPED_TRACE(pad);
        check_fused(pad_block(pool, pad, "ReLU act 1 1 y z"), 0, 0);
    }
    // the padded shortcut computed before the convolution: the ordinary fusion (Add + ReLU), the
    // Padding runs
    check_fused(pad_block(pool, "Padding pd 1 1 r rp 8=4", "ReLU act 1 1 y z", "pad_before"), 1, 2);
    // the padded shortcut has a second consumer: the Padding must run, and then it comes after the
    // convolution so nothing fuses
    check_fused(pad_block(pool, "Padding pd 1 1 r rp0 8=4", "ReLU act 1 1 y z", "pad_after",
                          {"Split sr 1 2 rp0 rp rp2", "BinaryOp add 2 1 x rp y 0=0", "Sigmoid other 1 1 rp2 w"}),
                0, 0);
}

TEST(StoreFusion, PaddedShortcutSameBitsAtAnyThreadCount) {
    if (!build_has_threads())
        GTEST_SKIP() << "this build has no thread pool";
    struct PoolGuard {
        ~PoolGuard() {
            set_min_chunk_cost(0);
            shutdown_threads();
        }
    } guard;
    set_min_chunk_cost(1);
    ASSERT_TRUE(set_num_threads(3).is_ok());  // the pool is sized once, at its largest
    Graph g = test::graph_from_text(
        pad_block("Pooling mp 1 1 d0 r 0=0 1=2 2=2 5=1", "Padding pd 1 1 r rp 8=4", "ReLU act 1 1 y z"), 7);
    auto in = inputs_for(g, 3);
    ASSERT_TRUE(set_num_threads(1).is_ok());
    NetRun one = run(g, in, true, true);
    EXPECT_EQ(one.fusions, 1u);
    for (int t : {2, 3}) {
        ASSERT_TRUE(set_num_threads(t).is_ok());
        NetRun many = run(g, in, true, true);
        for (auto& kv : one.out)
            EXPECT_TRUE(same_bits(kv.second, many.out.at(kv.first))) << kv.first << " at " << t << " threads";
    }
    ASSERT_TRUE(set_num_threads(1).is_ok());
}

// The zoo models with residual blocks: every Add after a convolution fuses, and the outputs keep
// the unfused bits (and the reference's budget).
TEST(StoreFusion, ZooModels) {
    if (!test::have_zoo()) {
        ASSERT_FALSE(test::on_ci()) << test::missing_fixture_message("the zoo", test::zoo_how_to_get());
        GTEST_SKIP() << "zoo not present";
    }
    struct Z {
        const char* name;
        size_t fusions;
    };
    for (const Z& z : {Z{"resnet18", 8}, Z{"mobilenet_v2", 10}}) {
        SCOPED_TRACE(z.name);
        const std::string path = test::zoo_dir() + "/" + z.name + ".param";
        Graph g;
        Warnings w;
        ASSERT_TRUE(read_param(test::read_text(path), g, w, path).is_ok());
        ASSERT_TRUE(randomize_weights(g, 1).is_ok());
        auto in = inputs_for(g, 1);
        NetRun ref = run(g, in, false, false), off = run(g, in, true, false), on = run(g, in, true, true);
        EXPECT_EQ(on.fusions, z.fusions);
        EXPECT_LT(on.layers_run, off.layers_run);
        EXPECT_LE(on.peak, off.peak);
        ASSERT_FALSE(off.out.empty());
        for (auto& kv : off.out) {
            EXPECT_TRUE(same_bits(kv.second, on.out.at(kv.first))) << kv.first;
            EXPECT_LE(test::rel_err(ref.out.at(kv.first), on.out.at(kv.first)), 1e-4) << kv.first;
        }
    }
}

}  // namespace
