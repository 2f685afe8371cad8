// What the `nnfold` command prints (src/cli/reports.h) and the option parsing its subcommands share
// (src/cli/cli_common.h). The commands end to end: tests/js/cli.test.mjs and optimize_cli.test.mjs.
#include <gtest/gtest.h>

#include <cmath>

#include "api/model.h"
#include "cli/cli_common.h"
#include "cli/reports.h"
#include "core/json.h"
#include "core/parallel.h"
#include "test_util.h"

using namespace nnfold;

namespace {

// 1x1 convolution, ReLU, fully connected on a declared [2, 4, 4] input: 6 + 3 + 240 + 5 weight
// values; no .bin.
const char* kConvFc =
    "7767517\n"
    "4 4\n"
    "Input data 0 1 data 0=4 1=4 2=2\n"
    "Convolution conv 1 1 data conv 0=3 1=1 5=1 6=6\n"
    "ReLU relu 1 1 conv relu\n"
    "InnerProduct fc 1 1 relu fc 0=5 1=1 2=240\n";

}  // namespace

TEST(CliReports, InfoTextListsSizesInputsOutputsAndLayers) {
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn(kConvFc, nullptr, 0, false, LoadOptions()).is_ok());
    std::string t = cli::info_text(m, "t.param");
    EXPECT_EQ(t.rfind("t.param: 4 layers, 254 weight values (1.0 KB in .bin)\n"
                      "  input  data                     [2,4,4]\n"
                      "  output fc                       [5]\n"
                      "estimated peak memory: ",
                      0),
              0u)
        << t;
    EXPECT_NE(t.find("layers by type:\n  Convolution              1\n  InnerProduct             1\n"), std::string::npos)
        << t;
    EXPECT_NE(t.find("layers:\n  Input                    data                     -> data[2,4,4]\n"), std::string::npos)
        << t;
    EXPECT_NE(t.find("  ReLU                     relu                     -> relu[3,4,4]\n"), std::string::npos) << t;
}

TEST(CliReports, InfoTextSaysWhyShapesAreUnknown) {
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn("7767517\n2 2\nInput data 0 1 data\nReLU relu 1 1 data out\n", nullptr, 0, false,
                            LoadOptions())
                    .is_ok());
    std::string t = cli::info_text(m, "u.param");
    EXPECT_NE(t.find("shapes unknown: "), std::string::npos) << t;
    EXPECT_EQ(t.find("estimated peak memory"), std::string::npos) << t;
}

TEST(CliReports, RunSummaryJsonMatchesTheOutputs) {
    std::map<std::string, Mat> outs{{"a", test::make_mat({2, 2}, {1.f, -2.f, NAN, 4.f})},
                                    {"b", test::make_mat({3}, {NAN, INFINITY, NAN})}};
    RunStats st;
    st.peak_bytes = 123;
    json j = json::parse(cli::run_summary_json({"a", "b"}, outs, {{"a", "a.f32"}}, st, false, {{"b", {1, 3}}}));
    const json& o = j["outputs"][0];
    EXPECT_EQ(o["name"], "a");
    EXPECT_EQ(o["shape"], json({2, 2}));
    EXPECT_EQ(o["min"], -2.0);
    EXPECT_EQ(o["max"], 4.0);
    EXPECT_DOUBLE_EQ(o["mean"].get<double>(), 1.0);
    EXPECT_EQ(o["nonfinite"], 1);
    EXPECT_TRUE(o["first"][2].is_null());
    EXPECT_EQ(o["file"], "a.f32");
    // all values non-finite: no statistics; the presented shape replaces the Mat's
    const json& b = j["outputs"][1];
    EXPECT_EQ(b["shape"], json({1, 3}));
    EXPECT_TRUE(b["min"].is_null() && b["max"].is_null() && b["mean"].is_null());
    EXPECT_EQ(b["nonfinite"], 3);
    EXPECT_FALSE(b.contains("file"));
    EXPECT_EQ(j["peak_bytes"], 123);
    EXPECT_EQ(j["simd"], false);
    EXPECT_EQ(j["threads"], 1);  // the default when the caller does not say
    json j3 = json::parse(cli::run_summary_json({"a"}, outs, {}, st, true, {}, 3));
    EXPECT_EQ(j3["threads"], 3);
}

TEST(CliOptions, ShapesParseOrSayWhatIsWrong) {
    std::map<std::string, Shape> shapes;
    ASSERT_TRUE(cli::parse_shapes({"data=3,224,224", "a=b=5"}, shapes).is_ok());
    EXPECT_EQ(shapes["data"].to_list(), (std::vector<int>{3, 224, 224}));
    EXPECT_EQ(shapes["a=b"].to_list(), (std::vector<int>{5}));  // the name ends at the last '='
    EXPECT_EQ(cli::parse_shapes({"nope"}, shapes).message(), "--shape expects NAME=c,h,w, got 'nope'");
    EXPECT_EQ(cli::parse_shapes({"x=1,0"}, shapes).message(), "--shape x=1,0: dimensions must be positive integers");
    EXPECT_EQ(cli::parse_shapes({"x=1,2,3,4,5"}, shapes).message(),
              "--shape x=1,2,3,4,5: 1 to 4 dimensions, outermost first (c,h,w)");

    std::map<std::string, std::vector<int64_t>> onnx;
    ASSERT_TRUE(cli::parse_onnx_shapes({"image=1,4,4,3,2"}, onnx).is_ok());
    EXPECT_EQ(onnx["image"], (std::vector<int64_t>{1, 4, 4, 3, 2}));
    EXPECT_EQ(cli::parse_onnx_shapes({"=1"}, onnx).message(), "--shape expects NAME=d0,d1,..., got '=1'");
    EXPECT_EQ(cli::parse_onnx_shapes({"x=1,,2"}, onnx).message(),
              "--shape x=1,,2: dimensions must be positive integers");
    EXPECT_EQ(cli::parse_onnx_shapes({"x=1,1,1,1,1,1,1,1,1"}, onnx).message(),
              "--shape x=1,1,1,1,1,1,1,1,1: at most 8 dimensions");
}

TEST(CliOptions, SeedIsOptionalAndChecked) {
    cli::Args a;
    uint32_t seed = 7;
    ASSERT_TRUE(cli::seed_option(a, seed).is_ok());
    EXPECT_EQ(seed, 7u);
    a.options.insert({"seed", "4294967295"});
    ASSERT_TRUE(cli::seed_option(a, seed).is_ok());
    EXPECT_EQ(seed, 4294967295u);
    cli::Args big;
    big.options.insert({"seed", "4294967296"});
    EXPECT_EQ(cli::seed_option(big, seed).message(), "--seed must fit in 32 bits");
    cli::Args neg;
    neg.options.insert({"seed", "-1"});
    EXPECT_EQ(cli::seed_option(neg, seed).message(), "--seed expects a non-negative integer, got '-1'");
}

TEST(CliOptions, ThreadsDefaultToTheCoresAndAreChecked) {
    struct Reset {
        ~Reset() { shutdown_threads(); }
    } reset;
    cli::Args none;
    EXPECT_EQ(cli::threads_option("run", none), -1);
    EXPECT_EQ(num_threads(), default_num_threads());
    shutdown_threads();
    for (const char* bad : {"0", "-1", "x", "1.5", "", "65", "9999"}) {
        cli::Args a;
        a.options.insert({"threads", bad});
        EXPECT_EQ(cli::threads_option("run", a), cli::kUsage) << bad;
    }
    cli::Args one;
    one.options.insert({"threads", "1"});
    EXPECT_EQ(cli::threads_option("run", one), -1);
    EXPECT_EQ(num_threads(), 1);
    cli::Args two;
    two.options.insert({"threads", "2"});
    if (build_has_threads()) {
        EXPECT_EQ(cli::threads_option("run", two), -1);
        EXPECT_EQ(num_threads(), 2);
    } else {
        EXPECT_EQ(cli::threads_option("run", two), cli::kBadInput);  // unsupported in this build
        EXPECT_EQ(num_threads(), 1);
    }
}
