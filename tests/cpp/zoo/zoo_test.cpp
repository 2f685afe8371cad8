// The ncnn benchmark zoo (../shared/zoo/ncnn, structure only) end to end: every fp32 model loads,
// gets random weights, runs, gives finite outputs of the shapes ncnn gives (the -23330 shape
// hints ncnn wrote into the files), and survives read -> write -> read -> write unchanged.
// Without the zoo the models are not instantiated and ZooFixture.Present skips (fails under CI).
// Under sanitizers only the small models run.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "analysis/analysis.h"
#include "io/ncnn_io.h"
#include "runtime/net.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

namespace {

class Zoo : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Zoo, RoundTripIsAFixedPoint) {
    std::string path = GetParam();
    Graph g;
    Warnings w;
    ASSERT_TRUE(read_param(test::read_text(path), g, w, path).is_ok());
    ASSERT_TRUE(randomize_weights(g, 1).is_ok());
    std::vector<uint8_t> bin1, bin2;
    std::string p1, p2;
    ASSERT_TRUE(write_param(g, p1, w).is_ok());
    ASSERT_TRUE(write_bin(g, bin1, BinWriteOptions(), w).is_ok());
    Graph g2;
    Status st = read_param(p1, g2, w, "written.param");
    ASSERT_TRUE(st.is_ok()) << st.message();
    st = read_bin(bin1.data(), bin1.size(), g2, w, "written.bin");
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_TRUE(write_param(g2, p2, w).is_ok());
    ASSERT_TRUE(write_bin(g2, bin2, BinWriteOptions(), w).is_ok());
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(bin1, bin2);
    // every param value (raw bits) survived, layer by layer
    ASSERT_EQ(g.layers.size(), g2.layers.size());
    for (size_t i = 0; i < g.layers.size(); i++) {
        for (int id = 0; id < kMaxParamId; id++) {
            if (!g.layers[i].params.has(id) || !g2.layers[i].params.has(id))
                continue;  // omitted defaults
            EXPECT_EQ(g.layers[i].params.at(id), g2.layers[i].params.at(id)) << g.layers[i].name << " param " << id;
        }
        // weights: same values bit for bit
        ASSERT_EQ(g.layers[i].weights.size(), g2.layers[i].weights.size());
        for (size_t k = 0; k < g.layers[i].weights.size(); k++)
            EXPECT_EQ(0, std::memcmp(g.layers[i].weights[k].data.data(), g2.layers[i].weights[k].data.data(),
                                     g.layers[i].weights[k].data.size() * 4));
    }
}

TEST_P(Zoo, RunsWithNcnnShapesAndFiniteOutputs) {
    std::string path = GetParam();
    std::string name = test::zoo_model_name(path);
    if (test::sanitizer_build() && !test::zoo_small_model(name))
        GTEST_SKIP() << "large model skipped under sanitizers";
    Graph g;
    Warnings w;
    ASSERT_TRUE(read_param(test::read_text(path), g, w, path).is_ok());
    // shape hints as ncnn wrote them, before inference overwrites anything
    std::vector<Shape> hints;
    for (auto& b : g.blobs)
        hints.push_back(b.shape);
    auto in_shapes = test::zoo_input_shapes(name);
    std::vector<Shape> inferred;
    Status st = infer_shapes(g, in_shapes, inferred);
    ASSERT_TRUE(st.is_ok()) << st.message();
    int compared = 0;
    for (size_t b = 0; b < g.blobs.size(); b++) {
        if (!hints[b].known() || inferred[b].dynamic)
            continue;  // no hint, or a data-dependent detection count
        EXPECT_EQ(inferred[b], hints[b]) << name << " blob " << g.blobs[b].name;
        compared++;
    }
    ASSERT_TRUE(randomize_weights(g, 1).is_ok());
    Net net;
    st = net.load(g);
    ASSERT_TRUE(st.is_ok()) << st.message();
    auto inputs = test::random_inputs(net, 1, in_shapes);
    std::map<std::string, Mat> outputs;
    RunStats stats;
    st = net.run(inputs, {}, outputs, &stats);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_FALSE(outputs.empty());
    for (auto& kv : outputs) {
        const Mat& m = kv.second;
        int b = g.find_blob(kv.first);
        if (inferred[b].dynamic)
            EXPECT_EQ(m.dims, inferred[b].dims) << kv.first;
        else
            EXPECT_EQ(m.shape(), inferred[b]) << kv.first;
        size_t nonfinite = 0;
        for (size_t i = 0; m.data && i < m.total_floats(); i++)
            if (!std::isfinite(m.data[i]))
                nonfinite++;
        EXPECT_EQ(nonfinite, 0u) << name << " output " << kv.first;
    }
    EXPECT_GT(stats.peak_bytes, 0u);
    RecordProperty("hints_compared", compared);
}

// The parameterized tests below have no instances without the zoo: this one says so.
TEST(ZooFixture, Present) { NNFOLD_REQUIRE_ZOO(); }

INSTANTIATE_TEST_SUITE_P(Models, Zoo, ::testing::ValuesIn(test::have_zoo() ? test::zoo_params() : std::vector<std::string>{}),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = test::zoo_model_name(info.param);
                             for (char& c : n)
                                 if (!isalnum((unsigned char)c))
                                     c = '_';
                             return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Zoo);
