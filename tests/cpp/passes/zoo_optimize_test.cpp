// Every fp32 zoo model (../shared/zoo/ncnn, random weights seed 1, vision_transformer at
// 3x384x384): the optimized model computes the same outputs (detection heads: the tensors feeding
// them) within 1e-4, optimizing again changes nothing (identical files), and the written files
// read back unchanged under ncnn's token rules. Prints the before/after table. Without the zoo
// ZooOptimizeFixture.Present skips (fails under CI); under sanitizers only the small models run.
#include <cstdio>
#include <set>

#include "analysis/analysis.h"
#include "io/float_token.h"
#include "passes_harness.h"
#include "runtime/verify.h"

using namespace nnfold;

namespace {


// Every token of a written .param that ncnn reads as a value is at most 15 characters, and the
// counts in the header match the lines.
void expect_ncnn_format(const std::string& text) {
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0], "7767517");
    int nlayers = 0, nblobs = 0;
    ASSERT_EQ(sscanf(lines[1].c_str(), "%d %d", &nlayers, &nblobs), 2);
    EXPECT_EQ((int)lines.size() - 2, nlayers);
    std::set<std::string> blobs;
    for (size_t i = 2; i < lines.size(); i++) {
        std::vector<std::string> tok;
        size_t p = 0;
        const std::string& l = lines[i];
        while (p < l.size()) {
            size_t sp = l.find(' ', p);
            if (sp == std::string::npos)
                sp = l.size();
            if (sp > p)
                tok.push_back(l.substr(p, sp - p));
            p = sp + 1;
        }
        ASSERT_GE(tok.size(), 4u) << l;
        EXPECT_LE(tok[1].size(), 255u);
        int nb = std::stoi(tok[2]), nt = std::stoi(tok[3]);
        for (int k = 0; k < nb + nt; k++)
            blobs.insert(tok[4 + k]);
        for (size_t k = 4 + nb + nt; k < tok.size(); k++) {
            size_t eq = tok[k].find('=');
            ASSERT_NE(eq, std::string::npos) << l;
            int id = std::stoi(tok[k].substr(0, eq));
            std::string vals = tok[k].substr(eq + 1);
            if (id <= -23300) {
                id = -id - 23300;
                vals = vals.substr(vals.find(',') + 1);
            }
            EXPECT_LT(id, 32) << l;
            size_t q = 0;
            while (q <= vals.size()) {
                size_t comma = vals.find(',', q);
                if (comma == std::string::npos)
                    comma = vals.size();
                EXPECT_LE(comma - q, kMaxTokenChars) << vals.substr(q, comma - q) << " in " << l;
                q = comma + 1;
            }
        }
    }
    EXPECT_EQ((int)blobs.size(), nblobs);
}

class ZooOptimize : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ZooOptimize, SameOutputsFixedPointAndFormat) {
    std::string path = GetParam();
    std::string name = test::zoo_model_name(path);
    if (test::sanitizer_build() && !test::zoo_small_model(name))
        GTEST_SKIP() << "large model skipped under sanitizers";
    Graph g;
    Warnings w;
    Status st = read_param(test::read_text(path), g, w, path);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_TRUE(randomize_weights(g, 1).is_ok());

    OptimizeOptions opt;
    opt.input_shapes = test::zoo_input_shapes(name);
    opt.check_use_index = true;  // every rewrite keeps the graph's use index equal to a rescan
    Graph o = g;
    OptimizeReport rep;
    st = optimize(o, opt, rep, w);
    ASSERT_TRUE(st.is_ok()) << st.message();
    for (auto& line : report_lines(rep))
        printf("  %s\n", line.c_str());

    // same outputs on the same inputs (verify's comparison, detection heads by their inputs)
    VerifyOptions vo;
    vo.seed = 1;
    vo.input_shapes = opt.input_shapes;
    // a model the optimizer rewrote runs on the scalar reference layers (the oracle); one it left
    // as it was (the zoo files are mostly ncnnoptimize output already) on the optimized layers,
    // which are much faster (vision_transformer 27 s -> 6 s natively) and are checked against the
    // reference layers in test_zoo
    vo.use_simd = rep.rewrite_count() == 0;
    vo.find_divergence = false;
    VerifyResult vr;
    st = verify_models(g, o, vo, vr);
    ASSERT_TRUE(st.is_ok()) << st.message();
    for (auto* list : {&vr.outputs, &vr.head_inputs}) {
        for (auto& d : *list) {
            if (d.judged) {
                EXPECT_LE(d.err, 1e-4) << d.name << " " << d.note;
                EXPECT_TRUE(d.shape_a.known()) << d.name;
            }
        }
    }
    EXPECT_TRUE(vr.passed);
    int judged = 0;
    for (auto* list : {&vr.outputs, &vr.head_inputs})
        for (auto& d : *list)
            judged += d.judged;
    EXPECT_GT(judged, 0);  // something was compared

    // optimizing twice equals once: the same files
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    ASSERT_TRUE(write_param(o, p1, w).is_ok());
    ASSERT_TRUE(write_bin(o, b1, {}, w).is_ok());
    Graph again;
    ASSERT_TRUE(read_param(p1, again, w, "optimized.param").is_ok());
    ASSERT_TRUE(read_bin(b1.data(), b1.size(), again, w, "optimized.bin").is_ok());
    OptimizeReport rep2;
    ASSERT_TRUE(optimize(again, opt, rep2, w).is_ok());
    EXPECT_EQ(rep2.rewrite_count(), 0);
    ASSERT_TRUE(write_param(again, p2, w).is_ok());
    ASSERT_TRUE(write_bin(again, b2, {}, w).is_ok());
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(b1, b2);
    // the written files follow ncnn's format rules and read back to the same params
    expect_ncnn_format(p1);
    ASSERT_EQ(again.layers.size(), o.layers.size());
    for (size_t i = 0; i < o.layers.size(); i++)
        for (int id = 0; id < kMaxParamId; id++) {
            if (o.layers[i].params.has(id) && again.layers[i].params.has(id)) {
                EXPECT_EQ(o.layers[i].params.at(id), again.layers[i].params.at(id)) << o.layers[i].name << " " << id;
            }
        }

    printf("| %-18s | %4d -> %4d layers | %10llu -> %10llu weight bytes | %10llu -> %10llu memory bytes |\n",
           name.c_str(), rep.before.layers, rep.after.layers, (unsigned long long)rep.before.weights_bytes,
           (unsigned long long)rep.after.weights_bytes, (unsigned long long)rep.before.memory_bytes,
           (unsigned long long)rep.after.memory_bytes);
}

// The parameterized tests below have no instances without the zoo: this one says so.
TEST(ZooOptimizeFixture, Present) { NNFOLD_REQUIRE_ZOO(); }

INSTANTIATE_TEST_SUITE_P(Zoo, ZooOptimize, ::testing::ValuesIn(test::zoo_params()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = test::zoo_model_name(info.param);
                             for (auto& ch : n)
                                 if (!isalnum((unsigned char)ch))
                                     ch = '_';
                             return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ZooOptimize);
