// The fuzzing phase of the default test run (issue 8): every committed corpus file and every past
// finding replayed through its fuzz target (tests/fuzz/targets.h), deterministically, and a few
// hundred graphs of the optimizer's differential fuzzer (tests/fuzz/optfuzz.h), plus the graphs
// it once failed on (each with the fix it led to).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "api/model.h"
#include "io/picture.h"
#include "optfuzz.h"
#include "targets.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::fuzz;
namespace fs = std::filesystem;

namespace {

int replay(const std::string& target) {
    TargetFn fn = find_target(target.c_str());
    EXPECT_NE(fn, nullptr);
    int n = 0;
    for (const char* kind : {"corpus", "findings"}) {
        fs::path dir = fs::path(test::source_dir()) / "tests/fuzz" / kind / target;
        if (!fs::is_directory(dir))
            continue;
        std::vector<fs::path> files;
        for (auto& e : fs::directory_iterator(dir))
            if (e.is_regular_file() && e.path().filename().string()[0] != '.')
                files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (auto& f : files) {
            SCOPED_TRACE(f.string());
            std::ifstream in(f, std::ios::binary);
            std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            fn(bytes.data(), bytes.size());  // a broken invariant aborts (the test binary fails)
            n++;
        }
    }
    return n;
}

}  // namespace

TEST(FuzzReplay, Param) { EXPECT_GE(replay("param"), 20); }
TEST(FuzzReplay, Bin) { EXPECT_GE(replay("bin"), 10); }
TEST(FuzzReplay, Int8) { EXPECT_GE(replay("int8"), 4); }
TEST(FuzzReplay, Picture) {
    EXPECT_GE(replay("picture"), 12);
    // the seeds are pictures the decoder takes (every PNG color type and depth, interlacing, JPEG
    // gray/color), except the refused ones whose structure the fuzzer also starts from
    int decoded = 0;
    for (auto& e : fs::directory_iterator(fs::path(test::source_dir()) / "tests/fuzz/corpus/picture")) {
        std::string name = e.path().filename().string();
        auto bytes = test::read_bytes(e.path().string());
        Picture p;
        Status st = decode_picture(bytes.data(), bytes.size(), name, p);
        bool refused = name.find("bomb") != std::string::npos || name.find("truncated") != std::string::npos;
        EXPECT_EQ(st.is_ok(), !refused) << name << ": " << st.message();
        decoded += st.is_ok();
    }
    EXPECT_GE(decoded, 10);
}
TEST(FuzzReplay, Optimize) { EXPECT_GE(replay("optimize"), 10); }
TEST(FuzzReplay, Onnx) {
    EXPECT_GE(replay("onnx"), 15);
    // the seeds are models the importer takes (else the fuzzer starts from nothing)
    int imported = 0, total = 0;
    for (auto& e : fs::directory_iterator(fs::path(test::source_dir()) / "tests/fuzz/corpus/onnx")) {
        auto bytes = test::read_bytes(e.path().string());
        Graph g;
        IoMap io;
        Warnings w;
        total++;
        if (import_onnx_model(bytes.data(), bytes.size(), g, io, w))
            imported++;
        else
            ADD_FAILURE() << e.path() << " does not import";
    }
    EXPECT_GE(imported, 15) << "of " << total;
}

TEST(OptimizerDifferential, RandomGraphs) {
    // Seeds 1..N of build/optfuzz; the long runs use other seeds (see README "Fuzzing").
    int n = test::sanitizer_build() ? 60 : 300;
    int failed = 0, skipped = 0, optimized = 0;
    for (int s = 1; s <= n; s++) {
        OptFuzzResult r = check_optimizer_on_graph((uint32_t)s);
        if (r.kind == OptFuzzResult::Failed) {
            failed++;
            ADD_FAILURE() << "seed " << s << ": " << r.what << "\n" << r.param << "keep: " << r.keep;
        } else if (r.kind == OptFuzzResult::Skipped) {
            skipped++;
        } else if (r.rewrites > 0) {
            optimized++;
        }
    }
    EXPECT_EQ(failed, 0);
    // the generator must keep making graphs the passes act on, or this test checks nothing
    EXPECT_LE(skipped, n / 20) << "the generator made " << skipped << " graphs the runtime refuses";
    EXPECT_GE(optimized, n / 3) << "only " << optimized << " of " << n << " graphs were rewritten";
}

// Graphs the differential fuzzer failed on, each with what was wrong and the fix.
struct Regression {
    const char* what;
    const char* param;
    const char* keep;
};

TEST(OptimizerDifferential, PastFailures) {
    const Regression cases[] = {
        // optfuzz --seed 1000000, seed 1030772: a kept MemoryData output (b9) read through a Split
        // by two BinaryOps; fuse_memorydata_binaryop folded it into both, leaving MemoryData md8
        // (kept) with no reader: b9 became a new model output and optimize() failed with "changed
        // the model's input or output names". Fix: pass_util check_kept_constant_keeps_a_reader,
        // used by fuse_memorydata_binaryop and fuse_host_binaryop.
        {"kept constant, two BinaryOps through a Split",
         "7767517\n13 13\nInput in0 0 1 b0 0=4 1=4 2=1\nInput in1 0 1 b1 0=5 1=4 2=2\n"
         "BinaryOp bo0 1 1 b0 b2 0=7 1=1 2=1.35514e+00\nReduction red1 1 1 b2 b3 0=3 1=0 -23303=2,1,2 5=1\n"
         "PReLU prelu2 1 1 b3 b4 0=1\nDropout drop3 1 1 b4 b5\nFlatten fl4 1 1 b5 b6\n"
         "InnerProduct ip5 1 1 b6 b7 0=3 1=0 2=3 9=1\nInnerProduct ip6 1 1 b1 b8 0=6 1=0 2=240\n"
         "MemoryData md8 0 1 b9 0=1\nBinaryOp bo7 2 1 b9 b8 b10 0=2\nMemoryData md10 0 1 b11 0=1\n"
         "BinaryOp bo9 2 1 b9 b11 b12 0=2\n",
         "b9"},
        // the same, minimal, with hosts: both readers fold the constant into an InnerProduct
        // (fuse_innerproduct_mul, through fuse_host_binaryop); a kept constant read directly (no
        // Split) was always refused ("the constant is kept")
        {"kept constant, host BinaryOps",
         "7767517\n7 7\nInput in 0 1 x 0=4\nInnerProduct ip 1 1 x y 0=3 2=12\nInnerProduct ip2 1 1 x y2 0=3 2=12\n"
         "MemoryData md 0 1 k 0=1\nBinaryOp bo 2 1 k y z 0=2\nBinaryOp bo2 2 1 y2 k z2 0=2\nConcat cat 2 1 z z2 o\n",
         "k"},
        // and with non-host operands (fuse_memorydata_binaryop)
        {"kept constant, plain BinaryOps",
         "7767517\n5 5\nInput in 0 1 x 0=4\nSigmoid s 1 1 x y\nMemoryData md 0 1 k 0=1\n"
         "BinaryOp bo 2 1 y k z 0=1\nBinaryOp bo2 2 1 k z z2 0=3\n",
         "k"},
    };
    for (auto& c : cases) {
        SCOPED_TRACE(c.what);
        OptFuzzResult r = check_optimizer_on_param(c.param, c.keep, 1);
        EXPECT_EQ(r.kind, OptFuzzResult::Ok) << r.what;
    }
}

// Past libFuzzer findings with a specific expected answer (all of tests/fuzz/findings/ is also
// replayed above): importing tests/fuzz/findings/onnx/<file> fails with `code` and a message
// containing `fragment`.
static void expect_onnx_finding(const std::string& file, ErrorCode code, const std::string& fragment) {
    auto bytes = test::read_bytes(test::source_dir() + "/tests/fuzz/findings/onnx/" + file);
    ASSERT_FALSE(bytes.empty()) << file;
    Graph g;
    IoMap io;
    Warnings w;
    Status st = import_onnx_model(bytes.data(), bytes.size(), g, io, w);
    ASSERT_FALSE(st.is_ok()) << file;
    EXPECT_EQ(st.code(), code) << st.message();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
}

TEST(FuzzFindings, OnnxNodeWithoutItsInput) {
    // fuzz_onnx, 87,400 executions in: a MaxPool node whose input list a bit flip emptied. The
    // operators read their required inputs without checking the count (Importer::in indexed past
    // the end: UBSan "reference binding to null pointer"). Fix: Importer::in throws MissingInput
    // for an absent input, which import_onnx turns into invalid_model naming the node.
    expect_onnx_finding("maxpool_without_input.onnx", ErrorCode::InvalidModel, "node 'MaxPool_0' (MaxPool): input 0 is missing");
}

TEST(FuzzFindings, OnnxConstantWithoutUsableElementType) {
    // fuzz_onnx, 768,379 executions into a 1,000,000-run: a bit flip set a MatMul weight
    // initializer's data_type to 0 (UNDEFINED), so its raw_data was never decoded and the MatMul
    // translator read values from an empty list (UBSan "reference binding to null pointer"). Fix:
    // constant inputs without decoded values are refused before any operator translator runs.
    expect_onnx_finding("matmul_untyped_initializer.onnx", ErrorCode::Unsupported, "constant input 'w' has element type");
}

TEST(FuzzFindings, OnnxFloatShapeValueOutOfInt64Range) {
    // fuzz_onnx, 322,203 executions into a 1,000,000-run: Pad's pads given as a float tensor holding
    // 4.8e30; the float -> int64 conversion was undefined behaviour (UBSan "outside the range of
    // representable values"). Fix: float shape values must be finite and within int64, and every
    // other float -> int64 conversion of model data saturates (folding, Gather indices, Range).
    expect_onnx_finding("pad_huge_float_pads.onnx", ErrorCode::InvalidModel, "node 'Pad_0' (Pad): pads must hold integers");
}
