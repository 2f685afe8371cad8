// The optimizer and verify behind the facade the bindings and the npm CLI use (src/api/model.h):
// input shapes given to the handle reach the passes, cut ranges, progress and cancel, verify's
// options, and the handle keeps working after optimizing.
#include <nlohmann/json.hpp>

#include "api/model.h"
#include "passes_harness.h"

using namespace nnfold;
using pt::model;

namespace {

std::string net(const std::string& input = "Input data 0 1 data 0=7 1=6 2=3") {
    return model({input, "Convolution conv1 1 1 data c1 0=4 1=3 4=1 5=1 6=108", "ReLU relu1 1 1 c1 r1",
                  "Pooling pool 1 1 r1 p 0=0 1=1 2=1", "Convolution conv2 1 1 p out 0=2 1=1 6=8"});
}

}  // namespace

TEST(Facade, OptimizeWithTheHandlesShapesAndCut) {
    // Pooling 1x1 goes only when shapes are known: the input declares none, the handle has one
    ModelHandle m, ref;
    LoadOptions lo;
    lo.seed = 2;
    lo.shapes = {{"data", Shape::d3(7, 6, 3)}};
    ASSERT_TRUE(m.load_ncnn(net("Input data 0 1 data"), nullptr, 0, false, lo).is_ok());
    ASSERT_TRUE(ref.load_ncnn(net("Input data 0 1 data"), nullptr, 0, false, lo).is_ok());
    std::string report;
    int calls = 0;
    ASSERT_TRUE(m.optimize(OptimizeRequest(), report, [&](int done, int total) {
                     calls++;
                     return done < total;
                 }).is_ok());
    EXPECT_GT(calls, 30);
    auto j = nlohmann::json::parse(report);
    EXPECT_EQ(j["before"]["layers"], 5);
    EXPECT_EQ(j["after"]["layers"], 3);  // relu fused, pooling removed
    EXPECT_TRUE(j["after"]["memory_bytes"].is_number());
    // verify through the facade: the same outputs
    std::string vr;
    VerifyRequest req;
    req.seed = 4;
    ASSERT_TRUE(verify_models(ref, m, req, vr, nullptr).is_ok());
    auto v = nlohmann::json::parse(vr);
    EXPECT_EQ(v["passed"], true);
    EXPECT_EQ(v["seed"], 4);
    EXPECT_EQ(v["outputs"][0]["name"], "out");
    EXPECT_EQ(v["outputs"][0]["shape_a"], nlohmann::json({2, 6, 7}));
    // tolerance and the divergence search are options
    req.tolerance = 0;
    req.divergence = false;
    ASSERT_TRUE(verify_models(ref, m, req, vr, nullptr).is_ok());
    v = nlohmann::json::parse(vr);
    EXPECT_EQ(v["tolerance"], 0.0);
    EXPECT_EQ(v["blobs_compared"], 0);
    // a cancelling callback
    EXPECT_EQ(verify_models(ref, m, VerifyRequest(), vr, [](int, int) { return false; }).code(), ErrorCode::Cancelled);
    // the handle still runs
    std::map<std::string, Mat> out;
    ASSERT_TRUE(m.run({{"data", test::make_mat({3, 6, 7}, std::vector<float>(126, 0.5f))}}, {}, out).is_ok());

    // cut: relu1..pool, from a fresh handle; the shape given for "data" no longer applies
    ModelHandle c;
    ASSERT_TRUE(c.load_ncnn(net("Input data 0 1 data"), nullptr, 0, false, lo).is_ok());
    OptimizeRequest cut;
    cut.cut_start = "relu1";
    cut.cut_end = "pool";
    ASSERT_TRUE(c.optimize(cut, report).is_ok()) << report;
    ASSERT_EQ(c.inputs().size(), 1u);
    EXPECT_EQ(c.inputs()[0].name, "c1");
    EXPECT_EQ(c.inputs()[0].shape, Shape::d3(7, 6, 4));
    EXPECT_TRUE(c.input_shapes().empty());
    ASSERT_TRUE(c.run({{"c1", test::make_mat({4, 6, 7}, std::vector<float>(168, -1.f))}}, {}, out).is_ok());
    // cancel from the optimizer's progress callback
    ModelHandle d;
    ASSERT_TRUE(d.load_ncnn(net(), nullptr, 0, false, LoadOptions()).is_ok());
    EXPECT_EQ(d.optimize(OptimizeRequest(), report, [](int, int) { return false; }).code(), ErrorCode::Cancelled);
    EXPECT_EQ(d.graph().live_layer_count(), 5);  // the handle's graph is unchanged on error
}
