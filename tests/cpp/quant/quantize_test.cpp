// quantize_graph and ModelHandle::quantize end to end: methods, report, keep_fp32,
// max_layer_error, progress and cancel, errors, and the fp32 zoo quantized, run, written and
// reloaded byte-identically.
#include <gtest/gtest.h>

#include <cmath>

#include "api/model.h"
#include "core/json.h"
#include "io/ncnn_io.h"
#include "quant/quantize.h"
#include "test_util.h"

using namespace nnfold;

namespace {

const char* kSmall =
    "7767517\n"
    "7 7\n"
    "Input data 0 1 data 0=8 1=8 2=3\n"
    "Convolution conv1 1 1 data conv1 0=8 1=3 3=2 4=1 5=1 6=216 9=1\n"
    "ConvolutionDepthWise dw 1 1 conv1 dw 0=8 1=3 4=1 5=1 6=72 7=8 9=1\n"
    "Convolution conv2 1 1 dw conv2 0=16 1=1 5=1 6=128 9=1\n"
    "Pooling pool 1 1 conv2 pool 0=1 4=1\n"
    "InnerProduct fc 1 1 pool fc 0=10 1=1 2=160\n"
    "Softmax prob 1 1 fc prob\n";

std::vector<CalibrationSample> samples_for(const Net& net, int n, uint32_t seed) {
    std::vector<CalibrationSample> s;
    for (int i = 0; i < n; i++)
        s.push_back(test::random_inputs(net, seed + (uint32_t)i));
    return s;
}

struct Quantized {
    Status st;
    Graph g;
    json report;
    Warnings w;
};

Quantized run_quantize(const Graph& g, const std::vector<CalibrationSample>& s, const QuantizeOptions& o,
                       const QuantizeProgress& p = nullptr) {
    Quantized q;
    std::string rep;
    q.st = quantize_graph(g, s, o, q.g, rep, q.w, p);
    if (q.st)
        q.report = json::parse(rep);
    return q;
}

const json* layer_of(const json& rep, const std::string& name) {
    for (auto& l : rep["layers"])
        if (l["name"] == name)
            return &l;
    return nullptr;
}

}  // namespace

TEST(Quantize, EachMethodGivesAWorkingInt8Model) {
    Graph g = test::graph_from_text(kSmall, 7);
    Net net;
    ASSERT_TRUE(net.load(g).is_ok());
    auto samples = samples_for(net, 4, 100);
    for (auto m : {CalibrationMethod::KL, CalibrationMethod::ACIQ, CalibrationMethod::EQ}) {
        SCOPED_TRACE(calibration_method_name(m));
        QuantizeOptions o;
        o.method = m;
        Quantized q = run_quantize(g, samples, o);
        ASSERT_TRUE(q.st.is_ok()) << q.st.message();
        EXPECT_EQ(q.report["method"], calibration_method_name(m));
        EXPECT_EQ(q.report["samples"], 4);
        ASSERT_EQ(q.report["layers"].size(), 4u);
        for (auto& l : q.report["layers"]) {
            EXPECT_TRUE(l["int8"].get<bool>()) << l.dump();
            EXPECT_GT(l["bottom_scale"].get<double>(), 0);
            EXPECT_GT(l["weight_scale_min"].get<double>(), 0);
            // the worst element over the set: KL clips the few largest activations of a small
            // random set (0.27 seen for dw), so the per-layer bound is looser than the output's
            EXPECT_LT(l["error"].get<double>(), 0.5) << l.dump();
        }
        // conv1 -> dw -> conv2 requantized; conv2 feeds Pooling: dequantized
        EXPECT_DOUBLE_EQ((*layer_of(q.report, "conv1"))["top_scale"].get<double>(),
                         (*layer_of(q.report, "dw"))["bottom_scale"].get<double>());
        EXPECT_TRUE((*layer_of(q.report, "conv2"))["top_scale"].is_null());
        ASSERT_EQ(q.report["outputs"].size(), 1u);
        const json& out = q.report["outputs"][0];
        EXPECT_EQ(out["name"], "prob");
        EXPECT_LT(out["error"].get<double>(), 0.2);
        EXPECT_TRUE(out["top1_agreement"].is_number());
        EXPECT_LT(q.report["bytes_after"].get<double>(), q.report["bytes_before"].get<double>());
        // the int8 model as stock ncnn stores it
        std::string param;
        Warnings w;
        ASSERT_TRUE(write_param(q.g, param, w).is_ok());
        EXPECT_NE(param.find("8=102"), std::string::npos) << param;
        EXPECT_NE(param.find("8=101"), std::string::npos) << param;
    }
}

TEST(Quantize, KeepFp32AndMaxLayerError) {
    Graph g = test::graph_from_text(kSmall, 7);
    Net net;
    ASSERT_TRUE(net.load(g).is_ok());
    auto samples = samples_for(net, 2, 5);
    QuantizeOptions o;
    o.keep_fp32 = {"dw"};
    Quantized q = run_quantize(g, samples, o);
    ASSERT_TRUE(q.st.is_ok()) << q.st.message();
    const json* dw = layer_of(q.report, "dw");
    EXPECT_FALSE((*dw)["int8"].get<bool>());
    EXPECT_NE((*dw)["reason"].get<std::string>().find("keep_fp32"), std::string::npos);
    // conv1's consumer is fp32 now: no requantize around the kept layer
    EXPECT_TRUE((*layer_of(q.report, "conv1"))["top_scale"].is_null());
    EXPECT_EQ(q.g.layers[(size_t)q.g.find_layer("dw")].params.get_int(8, 0), 0);
    EXPECT_EQ(q.g.layers[(size_t)q.g.find_layer("conv1")].params.get_int(8, 0), 2);

    // a bound below every layer's error leaves everything fp32 (with a warning)
    QuantizeOptions tight;
    tight.max_layer_error = 1e-12;
    Quantized t = run_quantize(g, samples, tight);
    ASSERT_TRUE(t.st.is_ok()) << t.st.message();
    for (auto& l : t.report["layers"]) {
        EXPECT_FALSE(l["int8"].get<bool>());
        EXPECT_NE(l["reason"].get<std::string>().find("max_layer_error"), std::string::npos);
    }
    EXPECT_FALSE(t.w.items.empty());
    // a bound between the layers' errors keeps exactly those above it
    Quantized all = run_quantize(g, samples, QuantizeOptions());
    std::vector<double> errs;
    for (auto& l : all.report["layers"])
        errs.push_back(l["error"].get<double>());
    std::sort(errs.begin(), errs.end());
    QuantizeOptions mid;
    mid.max_layer_error = (errs[1] + errs[2]) / 2;
    Quantized m = run_quantize(g, samples, mid);
    ASSERT_TRUE(m.st.is_ok());
    int int8 = 0;
    for (auto& l : m.report["layers"])
        int8 += l["int8"].get<bool>() ? 1 : 0;
    EXPECT_EQ(int8, 2);
}

TEST(Quantize, ProgressAndCancel) {
    Graph g = test::graph_from_text(kSmall, 7);
    Net net;
    ASSERT_TRUE(net.load(g).is_ok());
    auto samples = samples_for(net, 3, 1);
    std::vector<std::pair<int, int>> calls;
    Quantized q = run_quantize(g, samples, QuantizeOptions(), [&](int d, int t) {
        calls.push_back({d, t});
        return true;
    });
    ASSERT_TRUE(q.st.is_ok());
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls.front(), std::make_pair(0, 9));  // the length first
    EXPECT_EQ(calls.back().first, calls.back().second);  // ends at total
    EXPECT_EQ(calls.back().second, 3 * 3);               // KL: three passes over 3 samples
    for (size_t i = 1; i < calls.size(); i++)
        EXPECT_GE(calls[i].first, calls[i - 1].first);
    int n = 0;
    Quantized c = run_quantize(g, samples, QuantizeOptions(), [&](int, int) { return ++n < 4; });
    EXPECT_EQ(c.st.code(), ErrorCode::Cancelled);
    EXPECT_EQ(n, 4);  // stopped at the first false
    // EQ checks between rows too
    QuantizeOptions eq;
    eq.method = CalibrationMethod::EQ;
    n = 0;
    int eq_total = 0;
    c = run_quantize(g, samples, eq, [&](int, int t) {
        eq_total = t;
        return ++n < 3 * 2 + 3;  // into EQ's first layer (after A and B)
    });
    EXPECT_EQ(c.st.code(), ErrorCode::Cancelled);
    EXPECT_EQ(eq_total, 3 * 3 + 4);  // A, B, C over 3 samples + 4 layers of EQ
    EXPECT_EQ(n, 3 * 2 + 3);
}

TEST(Quantize, Errors) {
    Graph g = test::graph_from_text(kSmall, 7);
    Net net;
    ASSERT_TRUE(net.load(g).is_ok());
    auto samples = samples_for(net, 1, 1);
    // no samples
    Quantized q = run_quantize(g, {}, QuantizeOptions());
    EXPECT_EQ(q.st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(q.st.message().find("at least one calibration sample"), std::string::npos);
    // wrong shape
    auto bad = samples;
    bad[0]["data"] = test::make_mat({3, 4, 4}, std::vector<float>(48, 0.5f));
    q = run_quantize(g, bad, QuantizeOptions());
    EXPECT_EQ(q.st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(q.st.message().find("shape"), std::string::npos) << q.st.message();
    // missing input / unknown name
    CalibrationSample other;
    other["nope"] = samples[0]["data"];
    q = run_quantize(g, {other}, QuantizeOptions());
    EXPECT_EQ(q.st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(q.st.message().find("nope"), std::string::npos);
    q = run_quantize(g, {CalibrationSample()}, QuantizeOptions());
    EXPECT_NE(q.st.message().find("no value for input"), std::string::npos) << q.st.message();
    // keep_fp32 naming no layer
    QuantizeOptions k;
    k.keep_fp32 = {"missing"};
    q = run_quantize(g, samples, k);
    EXPECT_EQ(q.st.code(), ErrorCode::InvalidArgument);
    // nothing to quantize
    Graph relu = test::graph_from_text("7767517\n2 2\nInput data 0 1 data 0=4\nReLU r 1 1 data r\n");
    q = run_quantize(relu, samples, QuantizeOptions());
    EXPECT_EQ(q.st.code(), ErrorCode::Unsupported);
    EXPECT_NE(q.st.message().find("no Convolution/ConvolutionDepthWise/InnerProduct to quantize"), std::string::npos);
    // every candidate kept fp32
    QuantizeOptions all;
    all.keep_fp32 = {"conv1", "dw", "conv2", "fc"};
    q = run_quantize(g, samples, all);
    EXPECT_EQ(q.st.code(), ErrorCode::Unsupported);
    EXPECT_NE(q.st.message().find("nothing to quantize"), std::string::npos);
    // already int8: quantizing the result again
    Quantized once = run_quantize(g, samples, QuantizeOptions());
    ASSERT_TRUE(once.st.is_ok());
    q = run_quantize(once.g, samples, QuantizeOptions());
    EXPECT_EQ(q.st.code(), ErrorCode::Unsupported);
    EXPECT_NE(q.st.message().find("already quantized"), std::string::npos) << q.st.message();
    // methods by name
    CalibrationMethod m;
    EXPECT_TRUE(parse_calibration_method("aciq", m));
    EXPECT_EQ(m, CalibrationMethod::ACIQ);
    EXPECT_FALSE(parse_calibration_method("KL2", m));
}

TEST(Quantize, ModelHandleQuantize) {
    ModelHandle m;
    ASSERT_TRUE(m.load_ncnn(kSmall, nullptr, 0, false, LoadOptions()).is_ok());
    std::vector<std::map<std::string, Mat>> samples;
    for (uint32_t s = 0; s < 3; s++) {
        std::vector<std::pair<std::string, Mat>> in;
        ASSERT_TRUE(m.random_inputs(s + 10, in).is_ok());
        samples.push_back({in.begin(), in.end()});
    }
    QuantizeRequest req;
    ModelHandle out;
    std::string rep;
    Status st = m.quantize(samples, req, out, rep);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_TRUE(out.loaded());
    json r = json::parse(rep);
    EXPECT_EQ(r["method"], "kl");
    std::map<std::string, Mat> o32, o8;
    ASSERT_TRUE(m.run(samples[0], {}, o32).is_ok());
    ASSERT_TRUE(out.run(samples[0], {}, o8).is_ok());
    EXPECT_LT(test::rel_err(o32.at("prob"), o8.at("prob")), 0.2);
    // written and read back: the same bytes
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    Warnings w;
    ASSERT_TRUE(out.to_ncnn(-1, p1, b1, w).is_ok());
    ModelHandle back;
    ASSERT_TRUE(back.load_ncnn(p1, b1.data(), b1.size(), true, LoadOptions()).is_ok());
    ASSERT_TRUE(back.to_ncnn(-1, p2, b2, w).is_ok());
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(b1, b2);
    std::map<std::string, Mat> o8b;
    ASSERT_TRUE(back.run(samples[0], {}, o8b).is_ok());
    EXPECT_EQ(test::to_vector(o8.at("prob")), test::to_vector(o8b.at("prob")));

    // input shapes given at load replace the declared 8x8: samples of 10x10 calibrate
    {
        ModelHandle m10;
        LoadOptions lo;
        lo.shapes["data"] = Shape::d3(10, 10, 3);
        ASSERT_TRUE(m10.load_ncnn(kSmall, nullptr, 0, false, lo).is_ok());
        std::vector<std::pair<std::string, Mat>> in;
        ASSERT_TRUE(m10.random_inputs(3, in).is_ok());
        ASSERT_EQ(in[0].second.w, 10);
        ModelHandle q10;
        st = m10.quantize({{in.begin(), in.end()}}, QuantizeRequest(), q10, rep);
        ASSERT_TRUE(st.is_ok()) << st.message();
        EXPECT_EQ(q10.input_shapes().at("data"), Shape::d3(10, 10, 3));
        std::map<std::string, Mat> o;
        ASSERT_TRUE(q10.run({in.begin(), in.end()}, {}, o).is_ok());
    }

    st = m.quantize({}, QuantizeRequest(), out, rep);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);

    req.method = "median";
    st = m.quantize(samples, req, out, rep);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("median"), std::string::npos);
    // a sample of the wrong size names the sample
    std::vector<std::map<std::string, Mat>> bad = {{{"data", test::make_mat({5}, std::vector<float>(5, 0.f))}}};
    st = m.quantize(bad, QuantizeRequest(), out, rep);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("calibration sample 1"), std::string::npos) << st.message();
}
