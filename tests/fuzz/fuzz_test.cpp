// The fuzzing phase of the default test run (issue 8): every committed corpus file and every past
// finding replayed through its fuzz target (tests/fuzz/targets.h), deterministically, and a few
// hundred graphs of the optimizer's differential fuzzer (tests/fuzz/optfuzz.h), plus the graphs
// it once failed on (each with the fix it led to).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

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
TEST(FuzzReplay, Optimize) { EXPECT_GE(replay("optimize"), 10); }
TEST(FuzzReplay, Onnx) { replay("onnx"); }

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
