// The malformed-file corpus (tests/data/malformed/cases.tsv): each file gives its specific error
// (code and message), never a crash. Also run under ASan/UBSan.
#include <gtest/gtest.h>

#include <sstream>

#include "io/ncnn_io.h"
#include "test_util.h"

using namespace nnfold;

namespace {

struct Case {
    std::string param, bin, code, message;
};

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    std::string dir = test::source_dir() + "/tests/data/malformed/";
    for (const auto& f : test::read_tsv(dir + "cases.tsv"))
        if (f.size() == 4)
            cases.push_back({dir + f[0], f[1] == "none" ? "" : dir + f[1], f[2], f[3]});
    return cases;
}

}  // namespace

TEST(Malformed, EveryFileGivesItsError) {
    auto cases = load_cases();
    ASSERT_GE(cases.size(), 30u);
    for (auto& c : cases) {
        SCOPED_TRACE(c.param + " " + c.bin);
        std::string text = test::read_text(c.param);
        Graph g;
        Warnings w;
        Status st = read_param(text, g, w, "model.param");
        if (!c.bin.empty()) {
            ASSERT_TRUE(st.is_ok()) << st.message();
            auto bin = test::read_bytes(c.bin);
            st = read_bin(bin.data(), bin.size(), g, w, "model.bin");
        }
        ASSERT_FALSE(st.is_ok());
        EXPECT_EQ(error_code_name(st.code()), c.code) << st.message();
        EXPECT_NE(st.message().find(c.message), std::string::npos)
            << "message: " << st.message() << "\nexpected to contain: " << c.message;
        // errors name the file
        EXPECT_NE(st.message().find(c.bin.empty() ? "model.param" : "model.bin"), std::string::npos) << st.message();
    }
}

TEST(Malformed, TruncationsOfAValidFileNeverCrash) {
    // Every prefix of a valid .param either parses or fails cleanly.
    std::string text =
        "7767517\n4 5\nInput data 0 1 data 0=8 1=8 2=3\n"
        "Convolution conv1 1 1 data conv1 0=4 1=3 4=1 5=1 6=108 9=2 -23310=1,1e-01\n"
        "Split sp 1 2 conv1 a b\nReLU relu 1 1 a r 0=1e-01\n";
    int ok = 0;
    for (size_t n = 0; n <= text.size(); n++) {
        Graph g;
        Warnings w;
        if (read_param(text.substr(0, n), g, w).is_ok())
            ok++;
    }
    EXPECT_GE(ok, 1);  // the whole file (and the prefix dropping the final newline)
}
