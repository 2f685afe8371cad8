// ONNX through the facade (src/api/ModelHandle): the import's io map presents the ONNX names,
// shapes and layouts; run/random inputs use them; optimize keeps the map's blobs; to_ncnn's
// files plus io_json() reload to the same interface. Expected values by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "api/model.h"
#include "onnx_builder.h"
#include "runtime/random.h"

namespace nnfold {
namespace {

using test::OnnxBuilder;

// image [1,2,2,3] NHWC -> Transpose(0,3,1,2) -> Conv 1x1 (3 -> 2, bias) -> BatchNormalization
// (folded into the Conv by the optimizer) -> Relu -> features [1,2,2,2]; also `bn` as a second
// output that Relu reads too, so the optimizer must keep it (no ReLU fused into the Conv).
const float kW[6] = {1.f, -1.f, 0.5f, 0.25f, 2.f, -0.5f}, kB[2] = {0.5f, -1.f};
const float kScale[2] = {2.f, 0.5f}, kShift[2] = {0.1f, -0.2f};

std::string nhwc_model() {
    OnnxBuilder b;
    b.input("image", {1, 2, 2, 3});
    b.initializer(OnnxBuilder::tensor_f32("w", {2, 3, 1, 1}, std::vector<float>(kW, kW + 6), true));
    b.initializer(OnnxBuilder::tensor_f32("b", {2}, {kB[0], kB[1]}));
    b.initializer(OnnxBuilder::tensor_f32("scale", {2}, {kScale[0], kScale[1]}));
    b.initializer(OnnxBuilder::tensor_f32("shift", {2}, {kShift[0], kShift[1]}));
    b.initializer(OnnxBuilder::tensor_f32("mean", {2}, {0.f, 0.f}));
    b.initializer(OnnxBuilder::tensor_f32("var", {2}, {1.f, 1.f}));
    b.node("Transpose", {"image"}, {"nchw"}, {OnnxBuilder::attr_ints("perm", {0, 3, 1, 2})});
    b.node("Conv", {"nchw", "w", "b"}, {"pre"}, {OnnxBuilder::attr_ints("kernel_shape", {1, 1})});
    b.node("BatchNormalization", {"pre", "scale", "shift", "mean", "var"}, {"bn"},
           {OnnxBuilder::attr_float("epsilon", 0.f)});
    b.node("Relu", {"bn"}, {"features"});
    b.output("features");
    b.output("bn");
    return b.build();
}

// conv output at pixel p (NHWC input), channel o
float conv_at(const std::vector<float>& x, int o, int p) {
    float v = kB[o];
    for (int i = 0; i < 3; i++)
        v += kW[o * 3 + i] * x[p * 3 + i];
    return v;
}

void expect_outputs(const std::vector<float>& x, std::map<std::string, Mat>& out) {
    ASSERT_EQ(out.count("features"), 1u);
    ASSERT_EQ(out.count("bn"), 1u);
    const Mat& f = out["features"];
    const Mat& pre = out["bn"];
    ASSERT_EQ(f.total_floats(), 8u);
    ASSERT_EQ(pre.total_floats(), 8u);
    EXPECT_EQ(f.shape().to_list(), (std::vector<int>{1, 2, 2, 2}));
    for (int o = 0; o < 2; o++)
        for (int p = 0; p < 4; p++) {
            float c = conv_at(x, o, p);
            EXPECT_NEAR(pre.data[o * 4 + p], c * kScale[o] + kShift[o], 1e-5f) << o << "," << p;
            EXPECT_NEAR(f.data[o * 4 + p], std::max(0.f, c * kScale[o] + kShift[o]), 1e-5f) << o << "," << p;
        }
}

Mat tensor_of(const std::vector<int>& shape, const std::vector<float>& v) {
    Mat m;
    EXPECT_TRUE(m.create(Shape::from_list(shape)).is_ok());
    std::memcpy(m.data, v.data(), v.size() * 4);
    return m;
}

TEST(OnnxFacade, ImportPresentsOnnxInterfaceRunsOptimizesAndRoundTrips) {
    const std::string bytes = nhwc_model();
    ModelHandle m;
    Status st = m.load_onnx((const uint8_t*)bytes.data(), bytes.size(), LoadOptions());
    ASSERT_TRUE(st.is_ok()) << st.message();
    auto ins = m.inputs();
    ASSERT_EQ(ins.size(), 1u);
    EXPECT_EQ(ins[0].name, "image");
    EXPECT_TRUE(ins[0].mapped);
    EXPECT_EQ(ins[0].layout, "NHWC");
    EXPECT_EQ(ins[0].dims, (std::vector<int64_t>{1, 2, 2, 3}));
    auto outs = m.outputs();
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_EQ(outs[0].name, "features");
    EXPECT_EQ(outs[1].name, "bn");
    EXPECT_EQ(outs[0].dims, (std::vector<int64_t>{1, 2, 2, 2}));
    EXPECT_NE(m.info_json().find("\"image\""), std::string::npos) << m.info_json();

    std::vector<float> x(12);
    for (int i = 0; i < 12; i++)
        x[i] = (float)((i * 7) % 11) / 5.f - 1.f;
    std::map<std::string, Mat> out;
    st = m.run({{"image", tensor_of({1, 2, 2, 3}, x)}}, {}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    expect_outputs(x, out);
    // a tensor of the wrong size is refused by name
    st = m.run({{"image", tensor_of({3, 2, 2}, std::vector<float>(12, 0.f))}}, {}, out);
    EXPECT_TRUE(st.is_ok()) << "12 values in the original order are accepted whatever the Mat's shape";
    st = m.run({{"image", tensor_of({2, 2}, std::vector<float>(4, 0.f))}}, {}, out);
    EXPECT_EQ(st.code(), ErrorCode::ShapeMismatch);
    EXPECT_NE(st.message().find("image"), std::string::npos) << st.message();
    // ncnn-side shapes cannot be set on an imported input
    EXPECT_EQ(m.set_input_shapes({{"image", Shape::d3(2, 2, 3)}}).code(), ErrorCode::InvalidArgument);

    // random inputs are drawn in the original order: the same stream the CLI and JS use
    std::vector<std::pair<std::string, Mat>> rnd;
    ASSERT_TRUE(m.random_inputs(5, rnd).is_ok());
    ASSERT_EQ(rnd.size(), 1u);
    EXPECT_EQ(rnd[0].first, "image");
    EXPECT_EQ(rnd[0].second.shape().to_list(), (std::vector<int>{1, 2, 2, 3}));
    Rng rng(5);
    std::vector<float> rx(12);
    for (auto& v : rx)
        v = rng.uniform(-1.f, 1.f);
    EXPECT_EQ(std::vector<float>(rnd[0].second.data, rnd[0].second.data + 12), rx);

    // the optimizer folds the BatchNorm but keeps `bn` (an output the map names): the ReLU stays
    std::string report;
    st = m.optimize(OptimizeRequest(), report);
    ASSERT_TRUE(st.is_ok()) << st.message();
    int bn = 0, relu = 0;
    for (auto& l : m.graph().layers) {
        bn += !l.erased && l.type == "BatchNorm";
        relu += !l.erased && l.type == "ReLU";
    }
    EXPECT_EQ(bn, 0) << report;
    EXPECT_EQ(relu, 1) << report;
    EXPECT_EQ(m.io_map().outputs.size(), 2u);
    st = m.run({{"image", tensor_of({1, 2, 2, 3}, x)}}, {}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    expect_outputs(x, out);

    // ncnn files + io_json reload with the same interface and values
    std::string param;
    std::vector<uint8_t> bin;
    Warnings w;
    ASSERT_TRUE(m.to_ncnn(0, param, bin, w).is_ok());
    const std::string io = m.io_json();
    ASSERT_FALSE(io.empty());
    ModelHandle r;
    LoadOptions lo;
    lo.io_json = io;
    st = r.load_ncnn(param, bin.data(), bin.size(), true, lo);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(r.inputs()[0].name, "image");
    EXPECT_EQ(r.inputs()[0].layout, "NHWC");
    std::map<std::string, Mat> out2;
    ASSERT_TRUE(r.run({{"image", tensor_of({1, 2, 2, 3}, x)}}, {"bn", "features"}, out2).is_ok());
    expect_outputs(x, out2);
    // without the io map the same files are a plain ncnn model with blob names
    ModelHandle plain;
    ASSERT_TRUE(plain.load_ncnn(param, bin.data(), bin.size(), true, LoadOptions()).is_ok());
    EXPECT_FALSE(plain.inputs()[0].mapped);
    EXPECT_TRUE(plain.io_json().empty());
}

TEST(OnnxFacade, BadIoJsonAndShapesAreClearErrors) {
    const std::string bytes = nhwc_model();
    ModelHandle m;
    ASSERT_TRUE(m.load_onnx((const uint8_t*)bytes.data(), bytes.size(), LoadOptions()).is_ok());
    std::string param;
    std::vector<uint8_t> bin;
    Warnings w;
    ASSERT_TRUE(m.to_ncnn(0, param, bin, w).is_ok());
    // an io map naming a blob the .param does not have
    IoMap io = m.io_map();
    io.outputs[0].blob = "nowhere";
    ModelHandle r;
    LoadOptions lo;
    lo.io_json = io.to_json();
    lo.io_json_name = "x.io.json";
    Status st = r.load_ncnn(param, bin.data(), bin.size(), true, lo);
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    EXPECT_NE(st.message().find("x.io.json"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("nowhere"), std::string::npos) << st.message();
    EXPECT_FALSE(r.loaded());
    // malformed JSON
    ModelHandle r2;
    lo.io_json = "{";
    EXPECT_FALSE(r2.load_ncnn(param, bin.data(), bin.size(), true, lo).is_ok());
    // a shape for an input the ONNX model does not have
    ModelHandle m2;
    LoadOptions so;
    so.onnx_shapes["nope"] = {1, 2, 2, 3};
    st = m2.load_onnx((const uint8_t*)bytes.data(), bytes.size(), so);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("nope"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace nnfold
