// The fp32 zoo quantized by nnfold, checked against what ncnn's own ncnn2table + ncnn2int8 made
// from the same fp32 weights (../shared/zoo/ncnn-int8: nnfold's `randomize --seed 1` weights, KL):
// the same layers int8 with the same int8_scale_term (per-channel 2, per-group 1, the requantize
// fusions 102/101), the same int8 weight codes, weight scales and biases. Bottom scales depend on
// the calibration tensors (ncnn's were 8 random tensors nobody kept), so they are not compared.
// Then the int8 model runs, stays close to fp32, and writes, reloads and writes the same bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "api/model.h"
#include "core/json.h"
#include "io/ncnn_io.h"
#include "quant/int8_rewrite.h"
#include "test_util.h"

using namespace nnfold;

namespace {

std::string int8_zoo_dir() {
    return test::zoo_dir() + "/../ncnn-int8";
}

bool file_exists(const std::string& p) {
    std::ifstream f(p);
    return f.good();
}

struct ZooQuant {
    std::string name;
    double output_bound;  // relative error of the int8 model's output against fp32 (reported)
};

class ZooQuantTest : public ::testing::TestWithParam<ZooQuant> {};

}  // namespace

TEST_P(ZooQuantTest, MatchesNcnnToolsAndRoundTrips) {
    const std::string name = GetParam().name;
    const std::string fp32_param = test::zoo_dir() + "/" + name + ".param";
    const std::string int8_param = int8_zoo_dir() + "/" + name + "_int8.param";
    const std::string int8_bin = int8_zoo_dir() + "/" + name + "_int8.bin";
    NNFOLD_REQUIRE_FIXTURE(file_exists(fp32_param) && file_exists(int8_param) && file_exists(int8_bin),
                           name + " in ../shared/zoo/ncnn and ../shared/zoo/ncnn-int8",
                           "the team's shared zoo folder");
    // as the other zoo tests: the sanitizer build runs the small ones (the code paths are the same)
    if (test::sanitizer_build() && name != "squeezenet" && name != "mobilenet_v2")
        GTEST_SKIP() << "large model skipped under sanitizers";

    ModelHandle fp32;
    LoadOptions lo;
    lo.seed = 1;  // the weights ncnn's tools quantized (`nnfold randomize --seed 1`)
    ASSERT_TRUE(fp32.load_ncnn(test::read_text(fp32_param), nullptr, 0, false, lo).is_ok());
    std::vector<std::map<std::string, Mat>> samples;
    const int n = test::sanitizer_build() ? 1 : 2;
    for (int i = 0; i < n; i++) {
        std::vector<std::pair<std::string, Mat>> in;
        ASSERT_TRUE(fp32.random_inputs(100 + (uint32_t)i, in).is_ok());
        samples.push_back({in.begin(), in.end()});
    }
    QuantizeRequest req;
    req.optimize = false;  // the zoo structures are ncnnoptimize'd already, as ncnn's tools got them
    ModelHandle q;
    std::string rep;
    Status st = fp32.quantize(samples, req, q, rep);
    ASSERT_TRUE(st.is_ok()) << st.message();
    json r = json::parse(rep);

    Graph ncnn;
    Warnings w;
    ASSERT_TRUE(read_param(test::read_text(int8_param), ncnn, w).is_ok());
    auto bin = test::read_bytes(int8_bin);
    ASSERT_TRUE(read_bin(bin.data(), bin.size(), ncnn, w).is_ok());

    const Graph& g = q.graph();
    int compared = 0;
    for (auto& theirs : ncnn.layers) {
        if (!quant::quantizable_type(theirs.type))
            continue;
        int k = g.find_layer(theirs.name);
        ASSERT_GE(k, 0) << theirs.name;
        const LayerNode& ours = g.layers[(size_t)k];
        SCOPED_TRACE(theirs.name);
        EXPECT_EQ(quant::int8_scale_term(ours), quant::int8_scale_term(theirs));
        ASSERT_EQ(ours.weights.size(), theirs.weights.size());
        if (quant::int8_scale_term(theirs) == 0)
            continue;
        EXPECT_EQ(ours.weights[0].storage, WeightStorage::Int8);
        EXPECT_EQ(ours.weights[0].i8, theirs.weights[0].i8);
        // bias (when present) and the weight scales
        const size_t scales = ours.weights.size() - (quant::int8_scale_term(theirs) > 100 ? 3 : 2);
        for (size_t a = 1; a < scales; a++)
            EXPECT_EQ(ours.weights[a].data, theirs.weights[a].data) << "array " << a;
        compared++;
    }
    EXPECT_GT(compared, 0);
    std::printf("[ %s ] %d int8 layers as ncnn's tools made them\n", name.c_str(), compared);

    // the int8 model against fp32 on the calibration samples
    for (auto& o : r["outputs"]) {
        std::printf("[ %s ] output %s: error %.4f, top-1 agreement %s; bytes %.0f -> %.0f\n", name.c_str(),
                    o["name"].get<std::string>().c_str(), o["error"].is_null() ? -1.0 : o["error"].get<double>(),
                    o["top1_agreement"].dump().c_str(), r["bytes_before"].get<double>(), r["bytes_after"].get<double>());
        EXPECT_LT(o["error"].get<double>(), GetParam().output_bound) << o.dump();
    }
    // write, reload, write: the same bytes; the reloaded model gives the same outputs
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    ASSERT_TRUE(q.to_ncnn(-1, p1, b1, w).is_ok());
    ModelHandle back;
    ASSERT_TRUE(back.load_ncnn(p1, b1.data(), b1.size(), true, LoadOptions()).is_ok());
    ASSERT_TRUE(back.to_ncnn(-1, p2, b2, w).is_ok());
    EXPECT_EQ(p1, p2);
    EXPECT_TRUE(b1 == b2);
    std::map<std::string, Mat> o1, o2;
    ASSERT_TRUE(q.run(samples[0], {}, o1).is_ok());
    ASSERT_TRUE(back.run(samples[0], {}, o2).is_ok());
    for (auto& kv : o1)
        EXPECT_EQ(test::to_vector(kv.second), test::to_vector(o2.at(kv.first))) << kv.first;
}

// Bounds: generous (random weights, two random samples), meaningful (a broken scale or layout gives
// errors near or above 1). The measured numbers are printed.
INSTANTIATE_TEST_SUITE_P(Zoo, ZooQuantTest,
                         ::testing::Values(ZooQuant{"squeezenet", 0.2}, ZooQuant{"mobilenet", 0.2},
                                           ZooQuant{"mobilenet_v2", 0.2}, ZooQuant{"googlenet", 0.2},
                                           ZooQuant{"mobilenet_ssd", 0.2}),
                         [](const ::testing::TestParamInfo<ZooQuant>& i) { return i.param.name; });

// resnet18 (no ncnn-made twin in the zoo) through the whole facade path: optimizer first, then
// calibration on one random sample; the int8 model has int8 layers (the residual Adds keep their
// inputs fp32: a convolution feeding an Add is dequantized), runs, and round-trips its files.
TEST(ZooQuant, Resnet18ThroughTheOptimizer) {
    const std::string param = test::zoo_dir() + "/resnet18.param";
    NNFOLD_REQUIRE_FIXTURE(file_exists(param), "resnet18.param in ../shared/zoo/ncnn", "the team's shared zoo folder");
    if (test::sanitizer_build())
        GTEST_SKIP() << "large model skipped under sanitizers";
    ModelHandle fp32;
    LoadOptions lo;
    lo.seed = 1;
    ASSERT_TRUE(fp32.load_ncnn(test::read_text(param), nullptr, 0, false, lo).is_ok());
    std::vector<std::pair<std::string, Mat>> in;
    ASSERT_TRUE(fp32.random_inputs(7, in).is_ok());
    std::vector<std::map<std::string, Mat>> samples = {{in.begin(), in.end()}};
    ModelHandle q;
    std::string rep;
    int calls = 0;
    Status st = fp32.quantize(samples, QuantizeRequest(), q, rep, [&](int, int) {
        calls++;
        return true;
    });
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_GT(calls, 0);
    json r = json::parse(rep);
    int int8 = 0, requantized = 0;
    for (auto& l : r["layers"]) {
        int8 += l["int8"].get<bool>() ? 1 : 0;
        requantized += l["top_scale"].is_null() ? 0 : 1;
    }
    EXPECT_EQ(int8, 22);  // resnet18's 21 convolutions and its classifier
    EXPECT_GT(requantized, 0);
    for (auto& o : r["outputs"]) {
        std::printf("[ resnet18 ] output %s: error %.4f; %d int8 layers, %d requantized; bytes %.0f -> %.0f\n",
                    o["name"].get<std::string>().c_str(), o["error"].get<double>(), int8, requantized,
                    r["bytes_before"].get<double>(), r["bytes_after"].get<double>());
        EXPECT_LT(o["error"].get<double>(), 0.2);
    }
    Warnings w;
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    ASSERT_TRUE(q.to_ncnn(-1, p1, b1, w).is_ok());
    ModelHandle back;
    ASSERT_TRUE(back.load_ncnn(p1, b1.data(), b1.size(), true, LoadOptions()).is_ok());
    ASSERT_TRUE(back.to_ncnn(-1, p2, b2, w).is_ok());
    EXPECT_EQ(p1, p2);
    EXPECT_TRUE(b1 == b2);
}
