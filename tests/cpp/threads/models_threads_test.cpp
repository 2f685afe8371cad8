// Whole models give the same bits at any thread count (docs/numbers.md, issue 15): every zoo
// model (../shared/zoo/ncnn with seeded random weights, ../shared/zoo/ncnn-int8 with its weights)
// and every ONNX corpus model nnfold imports (tests/data/onnx, seeded inputs in corpus.json's
// ranges) runs without a pool, then at 2 and 3 threads and at 1 thread with the pool alive; each
// output must equal the first run's memcmp-equal. Chunk sizes keep their defaults here (the
// production split); tests/cpp/threads/layers_threads_test.cpp forces fine splits on small shapes.
// The ONNX models also run with the chunk-cost floor at 1 (every loop split). Under sanitizers
// only the small zoo models run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <set>

#include "api/model.h"
#include "core/parallel.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

namespace {

struct PoolGuard {
    ~PoolGuard() { shutdown_threads(); }
};

std::string base_name(const std::string& path) {
    std::string n = path.substr(path.find_last_of('/') + 1);
    return n.substr(0, n.find_last_of('.'));
}

using Outputs = std::vector<std::pair<std::string, std::vector<float>>>;

// The model's outputs, plus the inputs of detection heads: random weights may detect nothing, and
// the boxes are selected from these (docs/numbers.md compares heads before the selection).
std::vector<std::string> wanted_blobs(const ModelHandle& m) {
    std::vector<std::string> w;
    for (const auto& o : m.outputs())
        w.push_back(o.name);
    const Graph& g = m.graph();
    for (const auto& l : g.layers)
        if (!l.erased && l.type.find("DetectionOutput") != std::string::npos)
            for (int b : l.bottoms)
                w.push_back(g.blobs[(size_t)b].name);
    return w;
}

Outputs run_once(ModelHandle& m, const std::map<std::string, Mat>& inputs) {
    std::map<std::string, Mat> outs;
    Status st = m.run(inputs, wanted_blobs(m), outs);
    EXPECT_TRUE(st.is_ok()) << st.message();
    Outputs v;
    for (auto& kv : outs)
        v.emplace_back(kv.first, test::to_vector(kv.second));
    return v;
}

// The determinism check shared by both model sets. Returns the number of values compared.
size_t expect_same_bits_at_any_count(ModelHandle& m, const std::map<std::string, Mat>& inputs) {
    PoolGuard guard;
    EXPECT_TRUE(set_num_threads(1).is_ok());
    const Outputs ref = run_once(m, inputs);
    EXPECT_FALSE(ref.empty());
    size_t values = 0;
    for (auto& o : ref)
        values += o.second.size();
    if (!build_has_threads())
        return values;
    EXPECT_TRUE(set_num_threads(3).is_ok());
    for (int threads : {2, 3, 1}) {
        EXPECT_TRUE(set_num_threads(threads).is_ok());
        const Outputs got = run_once(m, inputs);
        EXPECT_EQ(got.size(), ref.size());
        for (size_t i = 0; i < std::min(got.size(), ref.size()); i++) {
            EXPECT_EQ(got[i].first, ref[i].first);
            if (got[i].second.size() != ref[i].second.size()) {
                ADD_FAILURE() << got[i].first << ": size differs at " << threads << " threads";
                continue;
            }
            size_t first_diff = SIZE_MAX;
            for (size_t j = 0; j < ref[i].second.size() && first_diff == SIZE_MAX; j++)
                if (std::memcmp(&got[i].second[j], &ref[i].second[j], 4) != 0)
                    first_diff = j;
            EXPECT_EQ(first_diff, SIZE_MAX) << "output " << got[i].first << " differs at " << threads
                                            << " threads, first at index " << first_diff;
        }
    }
    return values;
}

bool small_model(const std::string& name) {
    static const std::set<std::string> small = {"blazeface", "squeezenet", "mobilenet", "shufflenet_v2", "mnasnet",
                                                "squeezenet_int8", "mobilenet_int8"};
    return small.count(name) > 0;
}

std::vector<std::string> zoo_models() {
    std::vector<std::string> v = test::have_zoo() ? test::zoo_params() : std::vector<std::string>{};
    // the int8 zoo beside it, with its own .bin files
    const std::string int8_dir = test::zoo_dir() + "-int8";
    for (const char* n : {"googlenet_int8", "mobilenet_int8", "mobilenet_ssd_int8", "mobilenet_v2_int8",
                          "squeezenet_int8"}) {
        const std::string p = int8_dir + "/" + n + ".param";
        if (!test::read_bytes(p).empty())
            v.push_back(p);
    }
    return v;
}

class ZooThreads : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooThreads, SameBitsAtAnyThreadCount) {
    const std::string path = GetParam();
    const std::string name = base_name(path);
    if (test::sanitizer_build() && !small_model(name))
        GTEST_SKIP() << "large model skipped under sanitizers";
    const bool int8 = name.find("_int8") != std::string::npos;
    std::vector<uint8_t> bin;
    if (int8) {
        bin = test::read_bytes(path.substr(0, path.size() - 6) + ".bin");
        ASSERT_FALSE(bin.empty()) << "missing .bin beside " << path;
    }
    LoadOptions lo;
    lo.seed = 1;
    if (name == "vision_transformer")  // no declared input shape: ncnn's benchmark feeds 384x384x3
        lo.shapes["input"] = Shape::d3(384, 384, 3);
    ModelHandle m;
    Status st = m.load_ncnn(test::read_text(path), int8 ? bin.data() : nullptr, bin.size(), int8, lo);
    ASSERT_TRUE(st.is_ok()) << st.message();
    std::vector<std::pair<std::string, Mat>> in;
    st = m.random_inputs(1, in);
    ASSERT_TRUE(st.is_ok()) << st.message();
    std::map<std::string, Mat> inputs(in.begin(), in.end());
    EXPECT_GT(expect_same_bits_at_any_count(m, inputs), 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, ZooThreads, ::testing::ValuesIn(zoo_models()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = base_name(info.param);
                             for (char& c : n)
                                 if (!isalnum((unsigned char)c))
                                     c = '_';
                             return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ZooThreads);

TEST(ZooThreadsFixture, Present) { NNFOLD_REQUIRE_ZOO(); }

// The ONNX corpus: every model imports (tests/js/onnx/corpus.test.mjs checks each against
// onnxruntime) and gives the same bits at any thread count.
TEST(OnnxCorpusThreads, SameBitsAtAnyThreadCount) {
    const std::string dir = test::source_dir() + "/tests/data/onnx/";
    const auto corpus = nlohmann::json::parse(test::read_text(dir + "corpus.json"));
    std::set<std::string> compared;
    for (const auto& entry : corpus["models"]) {
        const std::string file = entry["file"];
        SCOPED_TRACE(file);
        const std::vector<uint8_t> bytes = test::read_bytes(dir + file);
        ASSERT_FALSE(bytes.empty());
        LoadOptions lo;
        for (const auto& s : entry["inputs"])
            lo.onnx_shapes[s["name"]] = s["shape"].get<std::vector<int64_t>>();
        ModelHandle m;
        Status st = m.load_onnx(bytes.data(), bytes.size(), lo);
        ASSERT_TRUE(st.is_ok()) << st.message();
        // seeded inputs in the corpus ranges; integer inputs get integer values
        Rng rng(4242);
        std::map<std::string, Mat> inputs;
        for (const auto& s : entry["inputs"]) {
            size_t n = 1;
            for (auto d : s["shape"])
                n *= d.get<size_t>();
            Mat x;
            ASSERT_TRUE(x.create(Shape::d1((int)n)).is_ok());
            const float lo_v = s["range"][0].get<float>(), hi_v = s["range"][1].get<float>();
            const bool integer = s["dtype"] != "float32";
            for (size_t i = 0; i < n; i++)
                x.data[i] = integer ? (float)(int)(lo_v + rng.next_u32() % (uint32_t)(hi_v - lo_v + 1))
                                    : rng.uniform(lo_v, hi_v);
            inputs[s["name"]] = x;
        }
        // the production split, then every loop split as finely as the counts allow (these models
        // are small: at the default chunk cost most of their layers stay on one thread)
        EXPECT_GT(expect_same_bits_at_any_count(m, inputs), 0u);
        set_min_chunk_cost(1);
        EXPECT_GT(expect_same_bits_at_any_count(m, inputs), 0u);
        set_min_chunk_cost(0);
        compared.insert(file);
    }
    EXPECT_GE(compared.size(), 12u);
    EXPECT_EQ(compared.size(), corpus["models"].size());
}

}  // namespace
