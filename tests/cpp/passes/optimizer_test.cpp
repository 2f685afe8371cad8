// The optimizer driver and its API: pass selection, keep, input shapes, fixed point, report JSON
// (docs/optimizer.md schema), explain, progress and cancel, cutting, and verify.
#include <nlohmann/json.hpp>

#include "passes/cut.h"
#include "passes/registry.h"
#include "passes_harness.h"
#include "runtime/verify.h"

using namespace nnfold;
using pt::model;

namespace {

const char* kIn = "Input data 0 1 data 0=7 1=6 2=3";

std::string small_net() {
    return model({kIn, "Convolution conv1 1 1 data c1 0=4 1=3 4=1 5=1 6=108", "ReLU relu1 1 1 c1 r1",
                  "Dropout drop 1 1 r1 d", "Pooling gp 1 1 d g 0=1 4=1", "Convolution fc 1 1 g f 0=10 1=1 5=1 6=40",
                  "ReLU relu2 1 1 f out"});
}

}  // namespace

TEST(Optimizer, PipelineIsNcnnoptimizesOrder) {
    std::vector<std::string> names = optimizer_pass_names();
    // ncnnoptimize's main(), in order (nnfold's additions are interleaved)
    std::vector<std::string> ncnn = {
        "fuse_batchnorm_scale", "fuse_convolution_batchnorm", "fuse_convolution_mul", "fuse_convolution_add",
        "fuse_convolutiondepthwise_batchnorm", "fuse_convolutiondepthwise_mul", "fuse_convolutiondepthwise_add",
        "fuse_deconvolution_batchnorm", "fuse_deconvolution_mul", "fuse_deconvolution_add",
        "fuse_deconvolutiondepthwise_batchnorm", "fuse_innerproduct_batchnorm", "fuse_innerproduct_add",
        "fuse_innerproduct_dropout", "replace_reduction_with_global_pooling", "replace_prelu_with_leaky_relu",
        "fuse_convolution_activation", "fuse_convolutiondepthwise_activation", "fuse_deconvolution_activation",
        "fuse_deconvolutiondepthwise_activation", "fuse_innerproduct_activation", "fuse_memorydata_binaryop",
        "fuse_binaryop_eltwise", "eliminate_dropout", "eliminate_pooling1x1", "eliminate_noop", "eliminate_split",
        "eliminate_flatten_after_global_pooling", "eliminate_reshape_after_global_pooling",
        "eliminate_reshape_before_binaryop", "replace_convolution_with_innerproduct_after_global_pooling",
        "replace_convolution_with_innerproduct_after_innerproduct", "eliminate_flatten_after_innerproduct",
        "eliminate_orphaned_memorydata"};
    size_t pos = 0;
    for (auto& n : ncnn) {
        auto it = std::find(names.begin() + pos, names.end(), n);
        ASSERT_NE(it, names.end()) << n << " missing or out of order";
        pos = it - names.begin() + 1;
    }
    for (auto& n : {"fuse_deconvolutiondepthwise_mul", "fuse_deconvolutiondepthwise_add", "fuse_innerproduct_mul",
                    "fuse_gemm_batchnorm", "fuse_slice_convolution_concat", "fuse_split_convolution_concat"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    // names are unique
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST(Optimizer, AllPassesReachAFixedPoint) {
    auto o = pt::optimize_text(small_net());
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    // conv1+relu1, dropout, fc -> InnerProduct, fc+relu2
    EXPECT_EQ(o.after.live_layer_count(), 4);
    EXPECT_EQ(pt::layer(o.after, "fc")->type, "InnerProduct");
    EXPECT_EQ(pt::layer(o.after, "fc")->params.get_int(9, 0), 1);
    EXPECT_EQ(o.report.before.layers, 7);
    EXPECT_EQ(o.report.after.layers, 4);
    EXPECT_GE(o.report.rounds, 2);
    pt::expect_same_outputs(o.before, o.after);
    // a second run changes nothing and writes the same files
    Graph again = o.after;
    OptimizeReport r2;
    Warnings w;
    ASSERT_TRUE(optimize(again, OptimizeOptions(), r2, w).is_ok());
    EXPECT_EQ(r2.rewrite_count(), 0);
    EXPECT_EQ(r2.rounds, 1);
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    ASSERT_TRUE(write_param(o.after, p1, w).is_ok());
    ASSERT_TRUE(write_param(again, p2, w).is_ok());
    ASSERT_TRUE(write_bin(o.after, b1, {}, w).is_ok());
    ASSERT_TRUE(write_bin(again, b2, {}, w).is_ok());
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(b1, b2);
}

TEST(Optimizer, PassSelection) {
    auto o = pt::optimize_text(small_net(), pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(o.after.live_layer_count(), 6);
    ASSERT_EQ(o.report.passes.size(), 1u);
    EXPECT_EQ(o.report.passes[0].name, "eliminate_dropout");
    // order of the option does not matter: pipeline order
    auto o2 = pt::optimize_text(small_net(), pt::only({"eliminate_dropout", "fuse_convolution_activation"}));
    ASSERT_TRUE(o2.st.is_ok());
    ASSERT_EQ(o2.report.passes.size(), 2u);
    EXPECT_EQ(o2.report.passes[0].name, "fuse_convolution_activation");
    // unknown name: InvalidArgument listing the valid ones
    auto o3 = pt::optimize_text(small_net(), pt::only({"fuse_everything"}));
    EXPECT_EQ(o3.st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(o3.st.message().find("fuse_everything"), std::string::npos);
    EXPECT_NE(o3.st.message().find("fuse_convolution_batchnorm"), std::string::npos);
    EXPECT_EQ(o3.after.live_layer_count(), 7);
}

TEST(Optimizer, BadOptions) {
    OptimizeOptions opt;
    opt.keep = {"nope"};
    auto o = pt::optimize_text(small_net(), opt);
    EXPECT_EQ(o.st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(o.st.message().find("nope"), std::string::npos);
    // a layer name keeps what it reads and writes: relu1 stays between conv1 and the dropout
    OptimizeOptions keep_layer;
    keep_layer.keep = {"relu1"};
    auto ok = pt::optimize_text(small_net(), keep_layer);
    ASSERT_TRUE(ok.st.is_ok()) << ok.st.message();
    EXPECT_NE(pt::layer(ok.after, "relu1"), nullptr);
    EXPECT_GE(ok.after.find_blob("c1"), 0);
    EXPECT_GE(ok.after.find_blob("r1"), 0);
    pt::expect_same_outputs(ok.before, ok.after, {}, {"c1", "r1"});
    OptimizeOptions opt2;
    opt2.input_shapes = {{"c1", Shape::d3(7, 6, 3)}};
    auto o2 = pt::optimize_text(small_net(), opt2);
    EXPECT_EQ(o2.st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(o2.st.message().find("not an input"), std::string::npos);
    OptimizeOptions opt3;
    opt3.input_shapes = {{"data", Shape::d3(0, 6, 3)}};
    auto o3 = pt::optimize_text(small_net(), opt3);
    EXPECT_EQ(o3.st.code(), ErrorCode::InvalidArgument);
}

TEST(Optimizer, ReportJsonSchema) {
    OptimizeOptions opt;
    opt.explain = true;
    auto o = pt::optimize_text(model({kIn, "Convolution conv1 1 1 data c1 0=4 1=3 4=1 5=1 6=108 9=1",
                                      "ReLU relu1 1 1 c1 r1", "Dropout drop 1 1 r1 out"}),
                               opt);
    ASSERT_TRUE(o.st.is_ok());
    auto j = nlohmann::json::parse(report_json(o.report));
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it)
        keys.push_back(it.key());
    // keys in the order docs/optimizer.md lists them (nlohmann::json sorts on parse: compare text)
    std::string text = report_json(o.report);
    EXPECT_LT(text.find("\"version\""), text.find("\"passes\""));
    EXPECT_LT(text.find("\"passes\""), text.find("\"skipped\""));
    EXPECT_LT(text.find("\"skipped\""), text.find("\"before\""));
    EXPECT_LT(text.find("\"before\""), text.find("\"after\""));
    EXPECT_LT(text.find("\"after\""), text.find("\"unknown_shapes\""));
    EXPECT_EQ(keys.size(), 6u);
    EXPECT_EQ(j["unknown_shapes"]["refused"], 0);
    EXPECT_TRUE(j["unknown_shapes"]["inputs"].empty());
    EXPECT_TRUE(j["version"].is_string());
    ASSERT_TRUE(j["passes"].is_array());
    EXPECT_EQ(j["passes"].size(), optimizer_pass_names().size());
    int rewrites = 0;
    for (auto& p : j["passes"]) {
        EXPECT_TRUE(p["name"].is_string());
        ASSERT_TRUE(p["rewrites"].is_array());
        for (auto& r : p["rewrites"]) {
            ASSERT_TRUE(r["layers"].is_array());
            EXPECT_TRUE(r["detail"].is_string());
            rewrites++;
        }
    }
    EXPECT_EQ(rewrites, 1);  // the dropout
    // the activated convolution refused the ReLU
    ASSERT_TRUE(j["skipped"].is_array());
    bool found = false;
    for (auto& s : j["skipped"])
        if (s["pass"] == "fuse_convolution_activation") {
            found = true;
            EXPECT_EQ(s["layers"], nlohmann::json({"conv1", "relu1"}));
            EXPECT_NE(s["reason"].get<std::string>().find("already applies"), std::string::npos);
        }
    EXPECT_TRUE(found);
    for (const char* k : {"before", "after"}) {
        EXPECT_TRUE(j[k]["layers"].is_number_integer());
        EXPECT_TRUE(j[k]["weights_bytes"].is_number_integer());
        EXPECT_TRUE(j[k]["memory_bytes"].is_number_integer());
    }
    EXPECT_EQ(j["before"]["layers"], 4);
    EXPECT_EQ(j["after"]["layers"], 3);
    // weights: one Convolution, 108 weights (tag + fp32) and 4 biases
    EXPECT_EQ(j["after"]["weights_bytes"], 4 + 108 * 4 + 4 * 4);
    EXPECT_GT(j["after"]["memory_bytes"].get<uint64_t>(), 0u);
    // without explain nothing is skipped; unknown shapes give null memory
    auto o2 = pt::optimize_text(model({"Input data 0 1 data", "ReLU r 1 1 data out"}));
    ASSERT_TRUE(o2.st.is_ok());
    auto j2 = nlohmann::json::parse(report_json(o2.report));
    EXPECT_TRUE(j2["skipped"].empty());
    EXPECT_TRUE(j2["after"]["memory_bytes"].is_null());
    // lines for the CLI
    auto lines = report_lines(o.report);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], "eliminate_dropout: drop: removed Dropout drop (scale 1)");
    // control characters in names are escaped in the lines, kept (JSON-escaped) in the report
    Graph g = o.before;
    g.layers[g.find_layer("drop")].name = "dr\nop";
    auto o3 = pt::optimize_graph(g, pt::only({"eliminate_dropout"}));
    ASSERT_TRUE(o3.st.is_ok());
    EXPECT_EQ(report_lines(o3.report)[0], "eliminate_dropout: dr\\x0aop: removed Dropout dr\\x0aop (scale 1)");
    EXPECT_EQ(nlohmann::json::parse(report_json(o3.report))["passes"][0]["rewrites"][0]["layers"][0], "dr\nop");
}

TEST(Optimizer, ProgressAndCancel) {
    OptimizeOptions opt;
    std::vector<std::string> seen;
    opt.progress = [&](const OptimizeProgress& p) {
        seen.push_back(p.pass);
        EXPECT_EQ(p.pass_count, (int)optimizer_pass_names().size());
        EXPECT_GE(p.round, 1);
    };
    auto o = pt::optimize_text(small_net(), opt);
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(seen.size(), optimizer_pass_names().size() * (size_t)o.report.rounds);
    volatile bool cancel = true;
    OptimizeOptions opt2;
    opt2.cancel = &cancel;
    auto o2 = pt::optimize_text(small_net(), opt2);
    EXPECT_EQ(o2.st.code(), ErrorCode::Cancelled);
    EXPECT_TRUE(o2.after.validate().is_ok());
    // cancelled mid-way: the graph stays valid and runs
    volatile bool flag = false;
    OptimizeOptions opt3;
    opt3.cancel = &flag;
    int calls = 0;
    opt3.progress = [&](const OptimizeProgress&) {
        if (++calls == 20)
            flag = true;
    };
    auto o3 = pt::optimize_text(small_net(), opt3);
    EXPECT_EQ(o3.st.code(), ErrorCode::Cancelled);
    ASSERT_TRUE(o3.after.validate().is_ok());
    pt::expect_same_outputs(o3.before, o3.after);
}

TEST(Optimizer, NamesNeverChange) {
    // inputs and outputs keep their names whatever is fused; two inputs, two outputs
    auto o = pt::optimize_text(model({"Input a 0 1 a 0=7 1=6 2=3", "Input b 0 1 b 0=7 1=6 2=3",
                                      "Dropout d1 1 1 a a1", "Convolution conv 1 1 a1 c 0=4 1=3 4=1 6=108",
                                      "ReLU r 1 1 c out1", "Dropout d2 1 1 b out2"}));
    ASSERT_TRUE(o.st.is_ok());
    EXPECT_EQ(pt::input_names(o.after), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(pt::output_names(o.after), (std::vector<std::string>{"out1", "out2"}));
    EXPECT_EQ(o.after.live_layer_count(), 4);  // d2 sits between an input and an output
    pt::expect_same_outputs(o.before, o.after);
}

TEST(Cut, RangeBecomesAModel) {
    Graph g = test::graph_from_text(small_net());
    Graph full = g;
    Warnings w;
    ASSERT_TRUE(cut_graph(g, "relu1", "gp", {}, w).is_ok());
    // Input for r1's producer's output c1, then relu1, drop, gp
    EXPECT_EQ(g.live_layer_count(), 4);
    EXPECT_EQ(pt::input_names(g), std::vector<std::string>{"c1"});
    EXPECT_EQ(pt::output_names(g), std::vector<std::string>{"g"});
    int in = g.producer(g.find_blob("c1"));
    ASSERT_GE(in, 0);
    EXPECT_EQ(g.layers[in].type, "Input");
    EXPECT_EQ(g.layers[in].params.get_int(2, 0), 4);  // [4,6,7] from the full model's shapes
    // the cut computes what the full model computes between those blobs
    Net nf, nc;
    ASSERT_TRUE(nf.load(full).is_ok());
    ASSERT_TRUE(nc.load(g).is_ok());
    auto inputs = test::random_inputs(nf, 3);
    std::map<std::string, Mat> of, oc;
    ASSERT_TRUE(nf.run(inputs, {"c1", "g"}, of).is_ok());
    ASSERT_TRUE(nc.run({{"c1", of["c1"]}}, {}, oc).is_ok());
    EXPECT_EQ(test::rel_err(of["g"], oc["g"]), 0.0);
    // errors
    Graph g2 = full;
    EXPECT_EQ(cut_graph(g2, "nope", "", {}, w).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(cut_graph(g2, "gp", "relu1", {}, w).code(), ErrorCode::InvalidArgument);
    ASSERT_TRUE(cut_graph(g2, "", "", {}, w).is_ok());
    EXPECT_EQ(g2.live_layer_count(), 7);
}

TEST(Verify, SameModelAndADivergence) {
    Graph a = test::graph_from_text(small_net());
    VerifyResult r;
    ASSERT_TRUE(verify_models(a, a, VerifyOptions(), r).is_ok());
    EXPECT_TRUE(r.passed);
    EXPECT_EQ(r.max_err, 0.0);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].name, "out");
    EXPECT_FALSE(r.diverged);
    EXPECT_EQ(r.blobs_compared, 6);
    // perturb the pooling's producer chain: the first diverging blob is r1's producer output
    Graph b = a;
    int c = b.find_layer("conv1");
    auto w = b.layers[c].weights[1].data;
    w[2] += 0.5f;
    b.layers[c].weights[1].set_values(w);
    ASSERT_TRUE(verify_models(a, b, VerifyOptions(), r).is_ok());
    EXPECT_FALSE(r.passed);
    EXPECT_TRUE(r.diverged);
    EXPECT_EQ(r.diverge_blob, "c1");
    EXPECT_EQ(r.diverge_layer, "conv1");
    EXPECT_EQ(r.diverge_type, "Convolution");
    EXPECT_EQ(r.blobs_compared, 1);
    // an independent computation of the output error
    Net na, nb;
    ASSERT_TRUE(na.load(a).is_ok());
    ASSERT_TRUE(nb.load(b).is_ok());
    auto in = test::random_inputs(na, 0);
    std::map<std::string, Mat> oa, ob;
    ASSERT_TRUE(na.run(in, {}, oa).is_ok());
    ASSERT_TRUE(nb.run(in, {}, ob).is_ok());
    EXPECT_DOUBLE_EQ(r.outputs[0].err, test::rel_err(oa["out"], ob["out"]));
    auto j = nlohmann::json::parse(verify_json(r));
    EXPECT_EQ(j["passed"], false);
    EXPECT_EQ(j["first_divergence"]["layer"], "conv1");
    EXPECT_EQ(j["outputs"][0]["shape_a"], nlohmann::json({10}));
    // budgets small enough to compare one blob per run give the same answer
    VerifyOptions small;
    small.memory_budget = 1;
    VerifyResult r2;
    ASSERT_TRUE(verify_models(a, b, small, r2).is_ok());
    EXPECT_EQ(r2.diverge_blob, "c1");
}

TEST(Verify, MismatchedModels) {
    Graph a = test::graph_from_text(small_net());
    Graph b = test::graph_from_text(model({"Input other 0 1 other 0=7 1=6 2=3", "ReLU r 1 1 other out"}));
    VerifyResult r;
    EXPECT_EQ(verify_models(a, b, VerifyOptions(), r).code(), ErrorCode::InvalidArgument);
    // same input, different output name: fails, does not error
    Graph c = test::graph_from_text(model({kIn, "ReLU r 1 1 data other"}));
    ASSERT_TRUE(verify_models(a, c, VerifyOptions(), r).is_ok());
    EXPECT_FALSE(r.passed);
    // an input without a shape needs one
    Graph d = test::graph_from_text(model({"Input data 0 1 data", "ReLU r 1 1 data out"}));
    EXPECT_EQ(verify_models(d, d, VerifyOptions(), r).code(), ErrorCode::InvalidArgument);
    VerifyOptions opt;
    opt.input_shapes = {{"data", Shape::d2(5, 4)}};
    ASSERT_TRUE(verify_models(d, d, opt, r).is_ok());
    EXPECT_TRUE(r.passed);
    EXPECT_EQ(r.outputs[0].shape_a, Shape::d2(5, 4));
}

TEST(Optimizer, ReportCountsRefusalsForUnknownShapes) {
    // a per-channel Mul + Add without shapes: refused (give input shapes), counted with or without
    // explain, the input named; with the shape given nothing is left to count
    const std::string text = model({"Input data 0 1 data", "ReLU r 1 1 data x", "MemoryData s 0 1 s 0=3",
                                    "MemoryData t 0 1 t 0=3", "BinaryOp mul 2 1 x s m 0=2",
                                    "BinaryOp add 2 1 m t out 0=0"});
    for (bool explain : {false, true}) {
        OptimizeOptions opt;
        opt.explain = explain;
        auto o = pt::optimize_text(text, opt);
        ASSERT_TRUE(o.st.is_ok()) << o.st.message();
        EXPECT_GE(o.report.refused_unknown_shapes, 1);
        EXPECT_EQ(o.report.shapeless_inputs, std::vector<std::string>{"data"});
        auto j = nlohmann::json::parse(report_json(o.report));
        EXPECT_EQ(j["unknown_shapes"]["refused"], o.report.refused_unknown_shapes);
        EXPECT_EQ(j["unknown_shapes"]["inputs"], nlohmann::json({"data"}));
        auto lines = report_lines(o.report);
        ASSERT_FALSE(lines.empty());
        EXPECT_EQ(lines.back().rfind("unknown shapes: ", 0), 0u) << lines.back();
        EXPECT_NE(lines.back().find("give --shape for: data"), std::string::npos) << lines.back();
    }
    OptimizeOptions opt;
    opt.input_shapes = {{"data", Shape::d3(7, 6, 3)}};
    auto o = pt::optimize_text(text, opt);
    ASSERT_TRUE(o.st.is_ok()) << o.st.message();
    EXPECT_EQ(o.report.refused_unknown_shapes, 0);
    EXPECT_TRUE(o.report.shapeless_inputs.empty());
    EXPECT_EQ(o.after.live_layer_count(), 3);  // Input, ReLU, Scale
}
