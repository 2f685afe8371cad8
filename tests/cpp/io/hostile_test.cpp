// The hostile-input corpus (tests/data/hostile/cases.tsv, files made by generate.py there): renamed
// files, truncations, NaN weights, cycles, names with markup or control characters, enormous
// counts and sizes. Each goes through the facade the npm package and the page use (ModelHandle,
// inside guard() as the bindings call it) and must give its error code and message, or load and
// run (with the warning named). Also run under ASan/UBSan and in the wasm builds. The Node and page
// tests read the same table (tests/js/hostile.test.mjs, tests/e2e/page.test.mjs).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "api/model.h"
#include "core/strings.h"
#include "io/ncnn_io.h"
#include "test_util.h"

using namespace nnfold;

namespace {

struct Case {
    std::string file, companion, stage, expect, message;
};

std::string dir() { return test::source_dir() + "/tests/data/hostile/"; }

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    for (auto f : test::read_tsv(dir() + "cases.tsv")) {
        f.resize(5 > f.size() ? 5 : f.size());
        cases.push_back({f[0], f[1], f[2], f[3], f[4]});
    }
    return cases;
}

bool ends_with(const std::string& s, const std::string& e) {
    return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// Stage "calibrate": the companion model (random weights) quantized on the one calibration file,
// a picture or a .f32 tensor of its input's shape, as `nnfold quantize` reads a folder.
Status try_calibration(const Case& c, ModelHandle& h) {
    LoadOptions opt;
    opt.param_name = c.companion;
    std::string text = test::read_text(dir() + c.companion);
    NF_RETURN_IF_ERROR(h.load_ncnn(text, nullptr, 0, false, opt));
    auto bytes = test::read_bytes(dir() + c.file);
    std::map<std::string, Mat> sample;
    if (ends_with(c.file, ".f32")) {
        auto ins = h.inputs();
        Mat m;
        NF_RETURN_IF_ERROR(f32_to_mat(bytes.data(), bytes.size(), ins.at(0).shape, c.file, m));
        sample[ins[0].name] = m;
    } else {
        NF_RETURN_IF_ERROR(h.picture_sample(bytes.data(), bytes.size(), c.file, PictureToTensor(), sample));
    }
    ModelHandle q;
    std::string report;
    NF_RETURN_IF_ERROR(h.quantize({sample}, QuantizeRequest(), q, report));
    // the int8 model runs on the sample
    std::map<std::string, Mat> out;
    return q.run(sample, {}, out);
}

// Loads (and for stage "run" runs on seeded random inputs) one case; returns the first error.
Status try_case(const Case& c, ModelHandle& h) {
    if (c.stage == "calibrate")
        return guard([&]() { return try_calibration(c, h); });
    return guard([&]() -> Status {
        LoadOptions opt;
        opt.param_name = c.file;
        auto bytes = test::read_bytes(dir() + c.file);
        if (ends_with(c.file, ".onnx")) {
            opt.param_name = c.file;
            NF_RETURN_IF_ERROR(h.load_onnx(bytes.data(), bytes.size(), opt));
        } else {
            std::string text(bytes.begin(), bytes.end());
            if (c.companion == "random") {
                NF_RETURN_IF_ERROR(h.load_ncnn(text, nullptr, 0, false, opt));
            } else if (c.companion == "none") {
                NF_RETURN_IF_ERROR(h.load_structure(text, nullptr, 0, false, opt));
            } else {
                auto bin = test::read_bytes(dir() + c.companion);
                opt.bin_name = c.companion;
                NF_RETURN_IF_ERROR(h.load_ncnn(text, bin.data(), bin.size(), true, opt));
            }
        }
        if (c.stage == "run") {
            std::vector<std::pair<std::string, Mat>> in;
            NF_RETURN_IF_ERROR(h.random_inputs(1, in));
            std::map<std::string, Mat> inputs(in.begin(), in.end()), out;
            NF_RETURN_IF_ERROR(h.run(inputs, {}, out));
        }
        return Status::ok();
    });
}

}  // namespace

TEST(Hostile, EveryFileGivesItsErrorOrWarning) {
    auto cases = load_cases();
    ASSERT_GE(cases.size(), 40u);
    bool print = getenv("NNFOLD_HOSTILE_PRINT") != nullptr;
    for (auto& c : cases) {
        SCOPED_TRACE(c.file + " + " + c.companion + " (" + c.stage + ")");
        ModelHandle h;
        auto t0 = std::chrono::steady_clock::now();
        Status st = try_case(c, h);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (print)
            printf("%s\t%s\t%s\t%s\t%s\t[%.2fs, %zu warnings%s%s]\n", c.file.c_str(), c.companion.c_str(), c.stage.c_str(),
                   st ? "ok" : error_code_name(st.code()), st.message().c_str(), secs, h.warnings().items.size(),
                   h.warnings().items.empty() ? "" : ": ", h.warnings().items.empty() ? "" : h.warnings().items[0].c_str());
        if (print || st.message().rfind("skip:", 0) == 0)
            continue;
        // hostile input is rejected at once, never a hang (the slowest case reads a 94 KB file in 0.05 s)
        EXPECT_LT(secs, test::sanitizer_build() ? 60.0 : 10.0);  // a hang check, not a benchmark
        if (c.expect == "ok" || c.expect == "warning") {
            ASSERT_TRUE(st.is_ok()) << st.message();
            if (c.expect == "warning") {
                bool found = false;
                for (auto& w : h.warnings().items)
                    found = found || w.find(c.message) != std::string::npos;
                EXPECT_TRUE(found) << "no warning contains: " << c.message;
            }
            // names that reach files are escaped so that they stay in the output folder
            for (auto& b : h.graph().blobs) {
                std::string f = escape_file_name(b.name);
                EXPECT_EQ(f.find('/'), std::string::npos) << f;
                EXPECT_EQ(f.find('\\'), std::string::npos) << f;
            }
            continue;
        }
        ASSERT_FALSE(st.is_ok());
        EXPECT_EQ(error_code_name(st.code()), c.expect) << st.message();
        EXPECT_NE(st.message().find(c.message), std::string::npos)
            << "message: " << st.message() << "\nexpected to contain: " << c.message;
        // no raw control character reaches a message (a terminal or a log would interpret it)
        for (unsigned char ch : st.message())
            EXPECT_TRUE(ch >= 0x20 || ch == '\n') << "control character " << (int)ch << " in: " << st.message();
    }
}

TEST(Hostile, ModuleStillRunsAModelAfterwards) {
    // every hostile case once more, then a good model gives the right numbers
    for (auto& c : load_cases()) {
        ModelHandle h;
        (void)try_case(c, h);
    }
    ModelHandle h;
    ASSERT_TRUE(h.load_ncnn("7767517\n2 2\nInput data 0 1 data 0=4\nReLU relu 1 1 data out\n", nullptr, 0, false,
                            LoadOptions())
                    .is_ok());
    std::map<std::string, Mat> in{{"data", test::make_mat({4}, {1, -2, 3, -4})}}, out;
    ASSERT_TRUE(h.run(in, {}, out).is_ok());
    EXPECT_EQ(test::to_vector(out["out"]), (std::vector<float>{1, 0, 3, 0}));
}

TEST(Hostile, WarningsAreCapped) {
    // a file repeating one warning millions of times must not hold millions of strings
    Warnings w;
    for (int i = 0; i < 5000; i++)
        w.add("warning " + std::to_string(i));
    ASSERT_EQ(w.items.size(), Warnings::kMaxItems);
    EXPECT_EQ(w.items[998], "warning 998");
    EXPECT_EQ(w.items.back(), "... and 4001 more warnings");  // 5000 - 999 kept
}

TEST(Hostile, LongChainWithSharedBlobsReads) {
    // 20,000 layers, every other blob read twice: the reader inserts 10,000 Splits. It used to
    // scan every layer for every blob (minutes for 50,000 layers); now one pass. Also checks that
    // each Split lands right after its producer, in ncnn's naming.
    int n = test::sanitizer_build() ? 2000 : 20000;
    std::string body = "Input data 0 1 b0 0=4\n";
    int layers = 1, blobs = 1;
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0) {
            body += "ReLU r" + std::to_string(i) + " 1 1 b" + std::to_string(i) + " b" + std::to_string(i + 1) + "\n";
        } else {
            // reads the previous blob and the one before it: b(i-1) gets a second reader
            body += "BinaryOp r" + std::to_string(i) + " 2 1 b" + std::to_string(i) + " b" + std::to_string(i - 1) + " b" +
                    std::to_string(i + 1) + "\n";
        }
        layers++;
        blobs++;
    }
    std::string text = "7767517\n" + std::to_string(layers) + " " + std::to_string(blobs) + "\n" + body;
    Graph g;
    Warnings w;
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(read_param(text, g, w).is_ok());
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 30.0) << secs;  // a hang check, not a benchmark
    EXPECT_EQ((int)g.layers.size(), layers + n / 2);
    // layer 0 Input, then splitncnn_0 (b0 is read by r0 and r1), r0, r1, splitncnn_1 (b2), ...
    EXPECT_EQ(g.layers[0].name, "data");
    ASSERT_EQ(g.layers[1].type, "Split");
    EXPECT_EQ(g.layers[1].name, "splitncnn_0");
    EXPECT_EQ(g.layers[2].name, "r0");
    EXPECT_TRUE(g.validate().is_ok());
    std::vector<int> producer(g.blobs.size(), -1);
    for (size_t i = 0; i < g.layers.size(); i++)
        for (int t : g.layers[i].tops)
            producer[t] = (int)i;
    int splits = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
        if (g.layers[i].type == "Split") {
            splits++;
            EXPECT_EQ(producer[g.layers[i].bottoms[0]], (int)i - 1) << g.layers[i].name;
        }
    EXPECT_EQ(splits, n / 2);
}
