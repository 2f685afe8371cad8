// The facade (src/api/model.h) that the bindings and both CLIs use: loading with a .bin or random
// weights, inputs/outputs, hand-computed runs, random inputs against an independent mulberry32,
// summary/graph JSON, ncnn files round trip, profile, errors as values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <new>

#include "api/model.h"
#include "core/json.h"
#include "io/ncnn_io.h"
#include "test_util.h"

using namespace nnfold;

namespace {

// 1x1 convolution (3 outputs from 2 channels, bias) then ReLU, on a declared 2x2x2 input.
const char* kConvRelu =
    "7767517\n"
    "3 3\n"
    "Input data 0 1 data 0=2 1=2 2=2\n"
    "Convolution conv 1 1 data conv 0=3 1=1 5=1 6=6\n"
    "ReLU relu 1 1 conv out\n";

const float kW[6] = {1.f, -2.f, 0.5f, 0.25f, -1.f, 3.f};  // [out][in]
const float kB[3] = {0.5f, -0.25f, 0.f};

std::vector<uint8_t> conv_relu_bin() {
    std::vector<uint8_t> bin(4 + sizeof(kW) + sizeof(kB), 0);  // tag 0: raw fp32 weights
    std::memcpy(bin.data() + 4, kW, sizeof(kW));
    std::memcpy(bin.data() + 4 + sizeof(kW), kB, sizeof(kB));
    return bin;
}

// A small network with every kind of step the zoo uses (conv, pooling, fc, softmax); no .bin.
const char* kSmallNet =
    "7767517\n"
    "6 6\n"
    "Input data 0 1 data 0=8 1=8 2=3\n"
    "Convolution conv 1 1 data conv 0=4 1=3 4=1 5=1 6=108\n"
    "ReLU relu 1 1 conv relu\n"
    "Pooling pool 1 1 relu pool 0=0 1=2 2=2\n"
    "InnerProduct fc 1 1 pool fc 0=10 1=1 2=640\n"
    "Softmax prob 1 1 fc prob\n";

// The documented PRNG (runtime/random.h), written out again here.
uint32_t mulberry32(uint32_t& state) {
    state += 0x6D2B79F5u;
    uint32_t t = state;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return t ^ (t >> 14);
}

Mat input_from(const std::vector<int>& shape, const std::vector<float>& v) { return test::make_mat(shape, v); }

}  // namespace

TEST(ApiModel, RunsAConvReluWithGivenWeights) {
    ModelHandle m;
    auto bin = conv_relu_bin();
    LoadOptions lo;
    ASSERT_TRUE(m.load_ncnn(kConvRelu, bin.data(), bin.size(), true, lo).is_ok());
    ASSERT_EQ(m.inputs().size(), 1u);
    EXPECT_EQ(m.inputs()[0].name, "data");
    EXPECT_EQ(m.inputs()[0].shape.to_list(), (std::vector<int>{2, 2, 2}));
    ASSERT_EQ(m.outputs().size(), 1u);
    EXPECT_EQ(m.outputs()[0].name, "out");
    EXPECT_EQ(m.outputs()[0].shape.to_list(), (std::vector<int>{3, 2, 2}));

    std::vector<float> x = {1, 2, 3, 4, -1, 0.5f, 2, -3};  // channel 0 then channel 1
    std::map<std::string, Mat> in{{"data", input_from({2, 2, 2}, x)}}, out;
    Status st = m.run(in, {}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    std::vector<float> got = test::to_vector(out["out"]);
    ASSERT_EQ(got.size(), 12u);
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 4; i++) {
            float v = kW[o * 2] * x[i] + kW[o * 2 + 1] * x[4 + i] + kB[o];
            EXPECT_FLOAT_EQ(got[o * 4 + i], v > 0 ? v : 0) << o << "," << i;
        }
    // hand-checked corner: out[0][0] = relu(1*1 + -2*-1 + 0.5) = 3.5
    EXPECT_FLOAT_EQ(got[0], 3.5f);
}

// ncnn's Net::forward_layer runs a Noop in place and stores bottom i into top i for each top:
// `Noop output 2 1 a b output` (converted detectors' output marker) makes `output` = `a`, and the
// optimizer keeps exactly that one output (ncnnoptimize's eliminate_noop would expose `b` too).
TEST(ApiModel, NoopWithMoreBottomsThanTopsOutputsItsFirstBottom) {
    const char* param =
        "7767517\n4 4\nInput data 0 1 data 0=2 1=1 2=1\nReLU a 1 1 data a\nSigmoid b 1 1 data b\n"
        "Noop output 2 1 a b output\n";
    ModelHandle m;
    LoadOptions lo;
    ASSERT_TRUE(m.load_ncnn(param, nullptr, 0, false, lo).is_ok());
    ASSERT_EQ(m.outputs().size(), 1u);
    EXPECT_EQ(m.outputs()[0].name, "output");
    std::map<std::string, Mat> in{{"data", input_from({1, 1, 2}, {-1.5f, 2.f})}}, out;
    Status st = m.run(in, {}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(test::to_vector(out["output"]), (std::vector<float>{0.f, 2.f}));  // relu, not sigmoid

    std::string report;
    ASSERT_TRUE(m.optimize(OptimizeRequest(), report).is_ok());
    ASSERT_EQ(m.outputs().size(), 1u);
    EXPECT_EQ(m.outputs()[0].name, "output");
    out.clear();
    ASSERT_TRUE(m.run(in, {}, out).is_ok());
    EXPECT_EQ(test::to_vector(out["output"]), (std::vector<float>{0.f, 2.f}));
}

TEST(ApiModel, RandomInputsFollowTheDocumentedPrng) {
    ModelHandle m;
    LoadOptions lo;
    lo.seed = 3;
    ASSERT_TRUE(m.load_ncnn(kSmallNet, nullptr, 0, false, lo).is_ok());
    std::vector<std::pair<std::string, Mat>> r;
    ASSERT_TRUE(m.random_inputs(42, r).is_ok());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].first, "data");
    EXPECT_EQ(r[0].second.shape().to_list(), (std::vector<int>{3, 8, 8}));
    uint32_t state = 42;
    for (size_t i = 0; i < r[0].second.total_floats(); i++) {
        float u = (float)(mulberry32(state) >> 8) * (1.0f / 16777216.0f);
        float range = 1.f - -1.f;
        float scaled = range * u;
        ASSERT_EQ(r[0].second[i], -1.f + scaled) << i;
    }
    // the CLI's rule gives the same values when nothing was given
    std::map<std::string, Mat> missing;
    ASSERT_TRUE(m.fill_missing_inputs(42, missing).is_ok());
    EXPECT_EQ(test::to_vector(missing["data"]), test::to_vector(r[0].second));
}

TEST(ApiModel, SmallNetRunsToAProbabilityVector) {
    ModelHandle m;
    LoadOptions lo;
    lo.seed = 7;
    ASSERT_TRUE(m.load_ncnn(kSmallNet, nullptr, 0, false, lo).is_ok());
    std::map<std::string, Mat> in, out;
    ASSERT_TRUE(m.fill_missing_inputs(1, in).is_ok());
    RunStats stats;
    Status st = m.run(in, {}, out, &stats);
    ASSERT_TRUE(st.is_ok()) << st.message();
    std::vector<float> p = test::to_vector(out["prob"]);
    ASSERT_EQ(p.size(), 10u);
    double sum = 0;
    for (float v : p) {
        EXPECT_GT(v, 0.f);
        sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_GT(stats.peak_bytes, 0u);
    // an intermediate blob on request
    std::map<std::string, Mat> out2;
    ASSERT_TRUE(m.run(in, {"pool"}, out2).is_ok());
    EXPECT_EQ(out2["pool"].shape().to_list(), (std::vector<int>{4, 4, 4}));
}

TEST(ApiModel, ToNcnnRoundTripsAndMatchesTheWriter) {
    ModelHandle m;
    LoadOptions lo;
    lo.seed = 9;
    ASSERT_TRUE(m.load_ncnn(kSmallNet, nullptr, 0, false, lo).is_ok());
    std::string param;
    std::vector<uint8_t> bin;
    Warnings w;
    ASSERT_TRUE(m.to_ncnn(0, param, bin, w).is_ok());
    EXPECT_EQ(bin.size(), bin_size(m.graph()));
    // shape hints were written (inferred from the declared input)
    EXPECT_NE(param.find("-23330="), std::string::npos);

    ModelHandle m2;
    ASSERT_TRUE(m2.load_ncnn(param, bin.data(), bin.size(), true, LoadOptions()).is_ok());
    std::map<std::string, Mat> in, o1, o2;
    ASSERT_TRUE(m.fill_missing_inputs(5, in).is_ok());
    ASSERT_TRUE(m.run(in, {}, o1).is_ok());
    ASSERT_TRUE(m2.run(in, {}, o2).is_ok());
    EXPECT_EQ(test::to_vector(o1["prob"]), test::to_vector(o2["prob"]));

    // fp16: tagged arrays shrink to about half
    std::string p16;
    std::vector<uint8_t> b16;
    ASSERT_TRUE(m.to_ncnn(1, p16, b16, w).is_ok());
    EXPECT_LT(b16.size(), bin.size() * 6 / 10);
}

TEST(ApiModel, InfoJsonAndText) {
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn(kSmallNet, nullptr, 0, false, LoadOptions()).is_ok());
    json j = json::parse(m.info_json());
    EXPECT_EQ(j["layers"], 6);
    EXPECT_EQ(j["layers_by_type"]["Convolution"], 1);
    EXPECT_EQ(j["weight_values"], 108 + 4 + 640 + 10);
    EXPECT_EQ(j["inputs"][0]["shape"], json({3, 8, 8}));
    EXPECT_EQ(j["outputs"][0]["name"], "prob");
    EXPECT_EQ(j["outputs"][0]["shape"], json({10}));
    std::string t = m.info_text("small.param");
    EXPECT_EQ(t.rfind("small.param: 6 layers, 762 weight values", 0), 0u) << t;
    EXPECT_NE(t.find("  output prob                     [10]\n"), std::string::npos) << t;
}

TEST(ApiModel, GraphJsonHasNodesEdgesAndNamedParams) {
    ModelHandle m;
    auto bin = conv_relu_bin();
    ASSERT_TRUE(m.load_ncnn(kConvRelu, bin.data(), bin.size(), true, LoadOptions()).is_ok());
    json g = json::parse(m.graph_json());
    ASSERT_EQ(g["nodes"].size(), 3u);
    ASSERT_EQ(g["edges"].size(), 3u);
    const json& conv = g["nodes"][1];
    EXPECT_EQ(conv["type"], "Convolution");
    EXPECT_EQ(conv["weights_bytes"], 4 + 24 + 12);
    bool found = false;
    for (auto& p : conv["params"])
        if (p["id"] == 0) {
            EXPECT_EQ(p["name"], "num_output");
            EXPECT_EQ(p["value"], 3);
            found = true;
        }
    EXPECT_TRUE(found);
    // edge conv: from node 1 to node 2, shape [3,2,2]
    const json& e = g["edges"][conv["tops"][0].get<int>()];
    EXPECT_EQ(e["name"], "conv");
    EXPECT_EQ(e["from"], 1);
    EXPECT_EQ(e["to"], json({2}));
    EXPECT_EQ(e["shape"], json({3, 2, 2}));
}

TEST(ApiModel, ProfileCountsEveryLayer) {
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn(kSmallNet, nullptr, 0, false, LoadOptions()).is_ok());
    std::map<std::string, Mat> in;
    ASSERT_TRUE(m.fill_missing_inputs(0, in).is_ok());
    ProfileResult pr;
    int calls = 0;
    Status st = m.profile(in, 3, pr, [&](int done, int total) {
        EXPECT_EQ(total, 3);
        EXPECT_EQ(done, calls);
        calls++;
        return true;
    });
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(calls, 4);  // after the warm-up and after each run
    EXPECT_EQ(pr.runs, 3);
    EXPECT_EQ(pr.run_ms.size(), 3u);
    ASSERT_EQ(pr.layers.size(), 6u);
    EXPECT_EQ(pr.layers[1].type, "Convolution");
    for (auto& l : pr.layers)
        EXPECT_LE(l.ms_min, l.ms_mean + 1e-9);
    // a callback returning false cancels
    st = m.profile(in, 5, pr, [](int done, int) { return done < 2; });
    EXPECT_EQ(st.code(), ErrorCode::Cancelled);
    EXPECT_EQ(m.profile(in, 0, pr).code(), ErrorCode::InvalidArgument);
}

TEST(ApiModel, ErrorsAreValues) {
    {
        ModelHandle m;
        Status st = m.load_ncnn("not a model", nullptr, 0, false, LoadOptions());
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
        EXPECT_FALSE(m.loaded());
        std::map<std::string, Mat> out;
        EXPECT_EQ(m.run({}, {}, out).code(), ErrorCode::InvalidArgument);
    }
    {
        // truncated .bin names the layer
        ModelHandle m;
        auto bin = conv_relu_bin();
        Status st = m.load_ncnn(kConvRelu, bin.data(), bin.size() - 8, true, LoadOptions());
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
        EXPECT_NE(st.message().find("conv"), std::string::npos) << st.message();
    }
    {
        // a shape for something that is not an input
        ModelHandle m;
        LoadOptions lo;
        lo.shapes["conv"] = Shape::d3(2, 2, 2);
        Status st = m.load_ncnn(kConvRelu, nullptr, 0, false, lo);
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("'data'"), std::string::npos) << st.message();
    }
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn(kConvRelu, nullptr, 0, false, LoadOptions()).is_ok());
    std::map<std::string, Mat> out;
    // unknown input name
    Status st = m.run({{"nope", input_from({2, 2, 2}, std::vector<float>(8, 1.f))}}, {}, out);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    // wrong channel count: the convolution cannot take it
    st = m.run({{"data", input_from({3, 2, 2}, std::vector<float>(12, 1.f))}}, {}, out);
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch) << st.message();
    EXPECT_NE(st.message().find("conv"), std::string::npos) << st.message();
    // missing input
    st = m.run({}, {}, out);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    // the optimizer refuses an unknown pass (and leaves the model as it was); ONNX import refuses
    // bytes that are no ONNX model
    std::string report;
    OptimizeRequest bad;
    bad.passes = {"nope"};
    st = m.optimize(bad, report);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("unknown pass 'nope'"), std::string::npos);
    ModelHandle onnx;
    uint8_t bytes[4] = {8, 1, 18, 0};
    st = onnx.load_onnx(bytes, 4, LoadOptions());
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel) << st.message();
    EXPECT_FALSE(onnx.loaded());
    // a loaded handle is not reloaded
    EXPECT_EQ(m.load_ncnn(kConvRelu, nullptr, 0, false, LoadOptions()).code(), ErrorCode::InvalidArgument);
    // the model still runs after all of that
    ASSERT_TRUE(m.run({{"data", input_from({2, 2, 2}, std::vector<float>(8, 1.f))}}, {}, out).is_ok());
}

TEST(ApiModel, StructureOnlyDescribesButDoesNotRun) {
    ModelHandle m;
    ASSERT_TRUE(m.load_structure(kSmallNet, nullptr, 0, false, LoadOptions()).is_ok());
    json j = json::parse(m.info_json());
    EXPECT_EQ(j["weight_values"], 762);
    std::map<std::string, Mat> in, out;
    Status st = m.run(in, {}, out);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("structure only"), std::string::npos);
    std::string p;
    std::vector<uint8_t> b;
    Warnings w;
    EXPECT_EQ(m.to_ncnn(0, p, b, w).code(), ErrorCode::InvalidArgument);
}

TEST(ApiModel, InputShapesCanBeSetForUndeclaredInputs) {
    const char* undeclared =
        "7767517\n"
        "2 2\n"
        "Input data 0 1 data\n"
        "ReLU relu 1 1 data out\n";
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn(undeclared, nullptr, 0, false, LoadOptions()).is_ok());
    EXPECT_FALSE(m.inputs()[0].shape.known());
    std::vector<std::pair<std::string, Mat>> r;
    Status st = m.random_inputs(0, r);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("declares no shape"), std::string::npos);
    ASSERT_TRUE(m.set_input_shapes({{"data", Shape::d2(5, 2)}}).is_ok());
    EXPECT_EQ(m.inputs()[0].shape.to_list(), (std::vector<int>{2, 5}));
    EXPECT_EQ(m.outputs()[0].shape.to_list(), (std::vector<int>{2, 5}));
    ASSERT_TRUE(m.random_inputs(0, r).is_ok());
    EXPECT_EQ(m.set_input_shapes({{"data", Shape()}}).code(), ErrorCode::InvalidArgument);
}

TEST(ApiModel, GuardTurnsExceptionsIntoStatus) {
    Status st = guard([]() -> Status { throw std::bad_alloc(); });
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit);
    st = guard([]() -> Status {
        std::vector<float> v;
        v.reserve(v.max_size() + 1);  // length_error
        return Status::ok();
    });
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit);
    st = guard([]() -> Status { throw std::runtime_error("boom"); });
    EXPECT_EQ(st.code(), ErrorCode::Internal);
    EXPECT_NE(st.message().find("boom"), std::string::npos);
    EXPECT_TRUE(guard([] { return Status::ok(); }).is_ok());
}

TEST(ApiModel, RunSummaryJsonMatchesTheOutputs) {
    std::map<std::string, Mat> outs{{"a", input_from({2, 2}, {1.f, -2.f, NAN, 4.f})}};
    RunStats st;
    st.peak_bytes = 123;
    json j = json::parse(run_summary_json({"a"}, outs, {{"a", "a.f32"}}, st, false));
    const json& o = j["outputs"][0];
    EXPECT_EQ(o["name"], "a");
    EXPECT_EQ(o["shape"], json({2, 2}));
    EXPECT_EQ(o["min"], -2.0);
    EXPECT_EQ(o["max"], 4.0);
    EXPECT_DOUBLE_EQ(o["mean"].get<double>(), 1.0);
    EXPECT_EQ(o["nonfinite"], 1);
    EXPECT_TRUE(o["first"][2].is_null());
    EXPECT_EQ(o["file"], "a.f32");
    EXPECT_EQ(j["peak_bytes"], 123);
    EXPECT_EQ(j["simd"], false);
}
