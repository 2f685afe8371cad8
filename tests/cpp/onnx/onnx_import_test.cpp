// ONNX import in C++: a valid model imports and computes hand-checked values; malformed,
// truncated, hostile and unsupported files give clear errors and never crash (this binary also
// runs under ASan/UBSan and in the wasm builds, where a C++ exception escaping would corrupt the
// module: the error path is taken thousands of times before a model runs correctly).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/io_map.h"
#include "io/ncnn_io.h"
#include "io/onnx/onnx_import.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_run.h"
#include "runtime/net.h"
#include "test_util.h"

namespace nnfold {
namespace {

using test::OnnxBuilder;

// y = Relu(x * 2 - c) with c per channel [3,1,1], then Conv 1x1 (weights 1, 2, 3 -> one channel).
std::string small_model(int64_t batch = 1) {
    OnnxBuilder b;
    b.input("x", {batch, 3, 2, 2});
    b.initializer(OnnxBuilder::tensor_f32("two", {}, {2.f}));
    b.initializer(OnnxBuilder::tensor_f32("c", {3, 1, 1}, {0.5f, -0.5f, 1.f}));
    b.initializer(OnnxBuilder::tensor_f32("W", {1, 3, 1, 1}, {1.f, 2.f, 3.f}, true));
    b.node("Mul", {"x", "two"}, {"m"});
    b.node("Sub", {"m", "c"}, {"s"});
    b.node("Relu", {"s"}, {"r"});
    b.node("Conv", {"r", "W"}, {"y"}, {OnnxBuilder::attr_ints("kernel_shape", {1, 1})});
    b.output("y");
    return b.build();
}

Status import(const std::string& bytes, Graph& g, IoMap& io, const OnnxImportOptions& opt = {}) {
    return test::import_bytes(bytes, g, io, opt);
}

using test::run_io;

TEST(OnnxImport, SmallModelComputesHandCheckedValues) {
    Graph g;
    IoMap io;
    Status st = import(small_model(), g, io);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_EQ(io.inputs.size(), 1u);
    ASSERT_EQ(io.outputs.size(), 1u);
    EXPECT_EQ(io.inputs[0].name, "x");
    EXPECT_EQ(io.inputs[0].shape, (std::vector<int64_t>{1, 3, 2, 2}));
    EXPECT_EQ(io.inputs[0].ncnn_shape, Shape::d3(2, 2, 3));
    EXPECT_EQ(io.outputs[0].shape, (std::vector<int64_t>{1, 1, 2, 2}));
    std::vector<float> x = {0.1f, 0.2f, -0.3f, 1.f,  0.f, -1.f, 0.5f, 0.25f,  1.f, 0.3f, 0.6f, -2.f};
    std::vector<float> y = run_io(g, io, x);
    ASSERT_EQ(y.size(), 4u);
    const float c[3] = {0.5f, -0.5f, 1.f}, wt[3] = {1.f, 2.f, 3.f};
    for (int i = 0; i < 4; i++) {
        float expect = 0.f;
        for (int ch = 0; ch < 3; ch++)
            expect += wt[ch] * std::max(0.f, x[ch * 4 + i] * 2.f - c[ch]);
        EXPECT_NEAR(y[i], expect, 1e-6f) << i;
    }
}

TEST(OnnxImport, BatchAboveOneIsRefused) {
    Graph g;
    IoMap io;
    Status st = import(small_model(2), g, io);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("batch"), std::string::npos) << st.message();
}

TEST(OnnxImport, SymbolicDimensionNeedsAShape) {
    OnnxBuilder b;
    b.input("x", {1, 3, -1, 4});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("symbolic dimension"), std::string::npos) << st.message();
    OnnxImportOptions opt;
    opt.input_shapes["x"] = {1, 3, 5, 4};
    st = import(b.build(), g, io, opt);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(io.inputs[0].ncnn_shape, Shape::d3(4, 5, 3));
}

TEST(OnnxImport, UnsupportedOperatorsAreListedInOneError) {
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Det", {"x", "k"}, {"v", "i"}, {}, "det_node");
    b.node("MaxUnpool", {"v"}, {"n"}, {}, "unpool_a");
    b.node("MaxUnpool", {"v"}, {"n2"}, {}, "unpool_b");
    b.node("Relu", {"x"}, {"r"});
    b.node("Add", {"n", "n2"}, {"y0"});
    b.node("Add", {"y0", "r"}, {"y"});
    b.initializer(OnnxBuilder::tensor_i64("k", {1}, {2}));
    b.output("y");
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::Unsupported);
    const std::string& m = st.message();
    EXPECT_NE(m.find("Det ('det_node')"), std::string::npos) << m;
    EXPECT_NE(m.find("MaxUnpool ('unpool_a', 'unpool_b')"), std::string::npos) << m;
}

TEST(OnnxImport, TruncatedAtEveryOffsetGivesAnError) {
    const std::string model = small_model();
    for (size_t n = 0; n < model.size(); n++) {
        Graph g;
        IoMap io;
        Status st = import(model.substr(0, n), g, io);
        EXPECT_FALSE(st.is_ok()) << "prefix of " << n << " bytes imported";
        EXPECT_FALSE(st.message().empty());
        EXPECT_NE(st.code(), ErrorCode::Internal) << n << ": " << st.message();
    }
}

TEST(OnnxImport, TruncatedInitializerIsNamed) {
    OnnxBuilder b;
    b.input("x", {1, 3});
    // dims say 3 floats, raw_data holds 2
    std::string t;
    {
        protozero::pbf_writer w(t);
        w.add_int64(1, 3);
        w.add_int32(2, 1);
        w.add_string(8, "w");
        float v[2] = {1.f, 2.f};
        w.add_bytes(9, std::string((const char*)v, sizeof(v)));
    }
    b.initializer(t);
    b.node("Add", {"x", "w"}, {"y"});
    b.output("y");
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    EXPECT_NE(st.message().find("truncated tensor"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("'w'"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("initializer"), std::string::npos) << st.message();
}

TEST(OnnxImport, WrongMagicAndOtherFiles) {
    const std::vector<std::string> files = {
        std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16),
        "7767517\n3 3\nInput data 0 1 data\n",
        "{\"format\": \"nnfold.io\"}",
        "<html><body>404</body></html>",
        std::string(64, '\0'),
        std::string(64, '\xff'),
        "\x08\x07",  // ir_version only
    };
    for (auto& f : files) {
        Graph g;
        IoMap io;
        Status st = import(f, g, io);
        EXPECT_FALSE(st.is_ok());
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel) << st.message();
        EXPECT_NE(st.message().find("ONNX"), std::string::npos) << st.message();
    }
}

TEST(OnnxImport, NestedGarbageIsReported) {
    // a node message whose bytes are garbage (a field with an invalid wire type)
    OnnxBuilder b;
    b.input("x", {1, 3});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    std::string garbage;
    {
        protozero::pbf_writer w(garbage);
        w.add_bytes(1, std::string("\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12));
    }
    b.raw_graph_field(garbage);
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    EXPECT_NE(st.message().find("node"), std::string::npos) << st.message();

    // wire type mismatch: op_type written as a varint
    OnnxBuilder c;
    c.input("x", {1, 3});
    c.output("y");
    std::string node;
    {
        protozero::pbf_writer w(node);
        w.add_string(1, "x");
        w.add_string(2, "y");
        w.add_int64(4, 12345);
    }
    std::string field;
    {
        protozero::pbf_writer w(field);
        w.add_message(1, node);
    }
    c.raw_graph_field(field);
    st = import(c.build(), g, io);
    ASSERT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("wire type"), std::string::npos) << st.message();
}

TEST(OnnxImport, ExternalDataIsUnsupported) {
    OnnxBuilder b;
    b.input("x", {1, 3});
    std::string t;
    {
        protozero::pbf_writer w(t);
        w.add_int64(1, 3);
        w.add_int32(2, 1);
        w.add_string(8, "weights");
        std::string kv;
        {
            protozero::pbf_writer e(kv);
            e.add_string(1, "location");
            e.add_string(2, "weights.bin");
        }
        w.add_message(13, kv);
        w.add_int32(14, 1);
    }
    b.initializer(t);
    b.node("Add", {"x", "weights"}, {"y"});
    b.output("y");
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::Unsupported);
    EXPECT_NE(st.message().find("external file"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("weights.bin"), std::string::npos) << st.message();
}

TEST(OnnxImport, HugeDimensionsAreRefusedBeforeAllocating) {
    // initializer claiming 2^40 x 2^40 elements with 8 bytes of data
    {
        OnnxBuilder b;
        b.input("x", {1, 3});
        std::string t;
        protozero::pbf_writer w(t);
        w.add_int64(1, int64_t(1) << 40);
        w.add_int64(1, int64_t(1) << 40);
        w.add_int32(2, 1);
        w.add_string(8, "big");
        w.add_bytes(9, std::string(8, '\0'));
        b.initializer(t);
        b.node("Add", {"x", "big"}, {"y"});
        b.output("y");
        Graph g;
        IoMap io;
        Status st = import(b.build(), g, io);
        ASSERT_FALSE(st.is_ok());
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel) << st.message();
    }
    // ConstantOfShape asked for 10^12 elements
    {
        OnnxBuilder b;
        b.input("x", {1, 3});
        b.initializer(OnnxBuilder::tensor_i64("shape", {2}, {1000000, 1000000}));
        b.node("ConstantOfShape", {"shape"}, {"z"});
        b.node("Add", {"x", "z"}, {"y"});
        b.output("y");
        Graph g;
        IoMap io;
        Status st = import(b.build(), g, io);
        ASSERT_FALSE(st.is_ok());
        EXPECT_EQ(st.code(), ErrorCode::ResourceLimit) << st.message();
    }
    // an input of 10^15 elements: a valid graph, but its tensor cannot be allocated
    {
        OnnxBuilder b;
        b.input("x", {1, 100000, 100000, 100000});
        b.node("Relu", {"x"}, {"y"});
        b.output("y");
        Graph g;
        IoMap io;
        Status st = import(b.build(), g, io);
        if (st.is_ok()) {
            Mat m;
            st = m.create(io.inputs[0].ncnn_shape);
            ASSERT_FALSE(st.is_ok());
            EXPECT_EQ(st.code(), ErrorCode::ResourceLimit) << st.message();
        } else {
            EXPECT_NE(st.code(), ErrorCode::Internal) << st.message();
        }
    }
    // an input dimension beyond int32
    {
        OnnxBuilder b;
        b.input("x", {1, int64_t(1) << 33});
        b.node("Relu", {"x"}, {"y"});
        b.output("y");
        Graph g;
        IoMap io;
        Status st = import(b.build(), g, io);
        ASSERT_FALSE(st.is_ok());
        EXPECT_NE(st.code(), ErrorCode::Internal) << st.message();
    }
    // negative dims
    {
        OnnxBuilder b;
        b.input("x", {1, 3});
        std::string t;
        protozero::pbf_writer w(t);
        w.add_int64(1, -3);
        w.add_int32(2, 1);
        w.add_string(8, "neg");
        b.initializer(t);
        b.node("Add", {"x", "neg"}, {"y"});
        b.output("y");
        Graph g;
        IoMap io;
        Status st = import(b.build(), g, io);
        ASSERT_FALSE(st.is_ok());
        EXPECT_NE(st.message().find("negative dimension"), std::string::npos) << st.message();
    }
}

TEST(OnnxImport, BadAttributesAndGraphsGiveErrors) {
    auto expect_error = [](const std::string& model, const char* needle) {
        Graph g;
        IoMap io;
        Status st = import(model, g, io);
        ASSERT_FALSE(st.is_ok()) << needle;
        EXPECT_NE(st.code(), ErrorCode::Internal) << st.message();
        EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
    };
    {  // weight does not match the input channels
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4});
        b.initializer(OnnxBuilder::tensor_f32("W", {2, 5, 1, 1}, std::vector<float>(10, 1.f)));
        b.node("Conv", {"x", "W"}, {"y"});
        b.output("y");
        expect_error(b.build(), "does not fit input channels");
    }
    {  // a cycle
        OnnxBuilder b;
        b.input("x", {1, 3});
        b.node("Add", {"x", "b"}, {"a"});
        b.node("Relu", {"a"}, {"b"});
        b.output("b");
        expect_error(b.build(), "cycle");
    }
    {  // an input nobody provides
        OnnxBuilder b;
        b.input("x", {1, 3});
        b.node("Add", {"x", "missing"}, {"y"});
        b.output("y");
        expect_error(b.build(), "'missing'");
    }
    {  // reshape to an impossible shape
        OnnxBuilder b;
        b.input("x", {1, 3, 4});
        b.initializer(OnnxBuilder::tensor_i64("s", {2}, {5, 5}));
        b.node("Reshape", {"x", "s"}, {"y"});
        b.output("y");
        expect_error(b.build(), "cannot become");
    }
    {  // runtime shape input to Reshape
        OnnxBuilder b;
        b.input("x", {1, 3, 4});
        b.input("s", {2});
        b.node("Reshape", {"x", "s"}, {"y"});
        b.output("y");
        expect_error(b.build(), "must be a constant");
    }
    {  // a graph output nothing produces
        OnnxBuilder b;
        b.input("x", {1, 3});
        b.node("Relu", {"x"}, {"y"});
        b.output("nothing");
        expect_error(b.build(), "not produced");
    }
    {  // huge kernel attribute
        OnnxBuilder b;
        b.input("x", {1, 3, 4, 4});
        b.node("MaxPool", {"x"}, {"y"}, {OnnxBuilder::attr_ints("kernel_shape", {1 << 30, 1})});
        b.output("y");
        expect_error(b.build(), "kernel");
    }
    {  // int8 input (int32, int64 and bool inputs are held as float32 values)
        OnnxBuilder b;
        b.input("ids", {1, 8}, 3);
        b.node("Relu", {"ids"}, {"y"});
        b.output("y");
        expect_error(b.build(), "has element type int8; nnfold runs float32, int32, int64 and bool inputs");
    }
}

TEST(OnnxImport, LongNamesAreShortenedWithTheMappingKept) {
    std::string lx(300, 'x'), ly(400, 'y');
    OnnxBuilder b;
    b.input(lx, {1, 3});
    b.node("Relu", {lx}, {ly}, {}, std::string(280, 'n'));
    b.output(ly);
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_TRUE(st.is_ok()) << st.message();
    for (auto& bl : g.blobs)
        EXPECT_LE(bl.name.size(), 255u);
    for (auto& l : g.layers)
        EXPECT_LE(l.name.size(), 255u);
    EXPECT_EQ(io.inputs[0].name, lx);
    EXPECT_EQ(io.outputs[0].name, ly);
    ASSERT_TRUE(g.original_names.count(io.inputs[0].blob));
    EXPECT_EQ(g.original_names[io.inputs[0].blob], lx);
    EXPECT_EQ(g.original_names[io.outputs[0].blob], ly);
    // the written .param reads back
    Warnings w;
    std::string text;
    ASSERT_TRUE(write_param(g, text, w).is_ok());
    Graph back;
    ASSERT_TRUE(read_param(text, back, w).is_ok());
}

TEST(OnnxImport, NamesWithSpacesStayReadable) {
    OnnxBuilder b;
    b.input("my input", {1, 2});
    b.node("Relu", {"my input"}, {"out put"});
    b.output("out put");
    Graph g;
    IoMap io;
    ASSERT_TRUE(import(b.build(), g, io).is_ok());
    EXPECT_EQ(io.inputs[0].blob.find(' '), std::string::npos);
    Warnings w;
    std::string text;
    ASSERT_TRUE(write_param(g, text, w).is_ok());
    Graph back;
    Status st = read_param(text, back, w);
    EXPECT_TRUE(st.is_ok()) << st.message();
}

TEST(OnnxImport, LayerNamesStayUniqueWhenNamesCollide) {
    // node named like the constant it reads and like the graph input
    OnnxBuilder b;
    b.input("x", {1, 3});
    b.initializer(OnnxBuilder::tensor_f32("k", {3}, {1.f, 2.f, 3.f}));
    b.node("Mul", {"x", "k"}, {"m"}, {}, "k");
    b.node("Add", {"m", "x"}, {"y"}, {}, "x");
    b.output("y");
    Graph g;
    IoMap io;
    Status st = import(b.build(), g, io);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_TRUE(g.validate().is_ok());
    std::vector<float> y = run_io(g, io, {1.f, 1.f, 2.f});
    EXPECT_EQ(y, (std::vector<float>{2.f, 3.f, 8.f}));
}

TEST(OnnxImport, ErrorPathThousandsOfTimesThenASuccess) {
    // In the wasm builds a C++ exception that escaped would corrupt the module after some thousands
    // of errors (docs/errors.md); protozero throws on every one of these.
    const std::string model = small_model();
    const int n = test::sanitizer_build() ? 300 : 3000;
    for (int i = 0; i < n; i++) {
        Graph g;
        IoMap io;
        size_t cut = 1 + (size_t)(i * 7919) % (model.size() - 1);
        EXPECT_FALSE(import(model.substr(0, cut), g, io).is_ok());
    }
    Graph g;
    IoMap io;
    ASSERT_TRUE(import(model, g, io).is_ok());
    std::vector<float> y = run_io(g, io, std::vector<float>(12, 1.f));
    // x = 1: relu(2 - c) = 1.5, 2.5, 1 -> 1*1.5 + 2*2.5 + 3*1 = 9.5
    for (float v : y)
        EXPECT_NEAR(v, 9.5f, 1e-6f);
}

TEST(IoMap, JsonRoundTripAndNhwcConversion) {
    IoMap m;
    IoEntry in;
    in.name = "image:0";
    in.blob = "image_0";
    in.shape = {1, 2, 3, 4};  // NHWC: h=2, w=3, c=4
    in.layout = "NHWC";
    in.perm = {0, 3, 1, 2};
    in.ncnn_shape = Shape::d3(3, 2, 4);
    m.inputs.push_back(in);
    IoEntry out;
    out.name = "scores";
    out.blob = "scores";
    out.shape = {1, 5};
    out.ncnn_shape = Shape::d1(5);
    m.outputs.push_back(out);
    ASSERT_TRUE(m.validate().is_ok());
    IoMap back;
    Status st = IoMap::from_json(m.to_json(), back);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_EQ(back.inputs.size(), 1u);
    EXPECT_EQ(back.inputs[0].perm, in.perm);
    EXPECT_EQ(back.inputs[0].shape, in.shape);
    EXPECT_EQ(back.inputs[0].ncnn_shape, in.ncnn_shape);
    EXPECT_EQ(back.outputs[0].name, "scores");

    // NHWC value at (y, x, ch) = 100*y + 10*x + ch lands at ncnn [ch][y][x]
    std::vector<float> nhwc(24);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
            for (int ch = 0; ch < 4; ch++)
                nhwc[(y * 3 + x) * 4 + ch] = 100.f * y + 10.f * x + ch;
    Mat mat;
    ASSERT_TRUE(io_to_ncnn(back.inputs[0], nhwc.data(), nhwc.size(), mat).is_ok());
    for (int ch = 0; ch < 4; ch++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++)
                EXPECT_EQ(mat.channel(ch)[y * 3 + x], 100.f * y + 10.f * x + ch);
    std::vector<float> again;
    ASSERT_TRUE(io_from_ncnn(back.inputs[0], mat, again).is_ok());
    EXPECT_EQ(again, nhwc);
    EXPECT_FALSE(io_to_ncnn(back.inputs[0], nhwc.data(), 23, mat).is_ok());
    EXPECT_TRUE(back.inputs[0].dim_names.empty());  // written as nulls, read back as none
    IoMap other;
    // dim_names round trip; a version 1 file (before dtype and dim_names) still loads
    m.inputs[0].dim_names = {"batch", "", "", ""};
    ASSERT_TRUE(IoMap::from_json(m.to_json(), other).is_ok());
    EXPECT_EQ(other.inputs[0].dim_names, m.inputs[0].dim_names);
    std::string v1 = "{\"format\":\"nnfold.io\",\"version\":1,\"inputs\":[{\"name\":\"a\",\"blob\":\"a\","
                     "\"shape\":[1,3],\"ncnn_shape\":[3]}],\"outputs\":[]}";
    st = IoMap::from_json(v1, other);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(other.inputs[0].dtype, "float32");
}

// io_to_ncnn/io_from_ncnn copy the innermost output axis as one strided run: every permutation
// of a rank-3 tensor (the identity's and {1,0,2}'s inner axis is contiguous, the others' strided)
// against the index formula, and back
TEST(IoMap, EveryRank3PermutationMatchesTheIndexFormula) {
    const std::vector<int64_t> shape = {2, 3, 5};
    std::vector<float> t(30);
    for (size_t i = 0; i < t.size(); i++)
        t[i] = (float)i;
    std::vector<int> perm = {0, 1, 2};
    do {
        IoEntry e;
        e.name = e.blob = "x";
        e.shape = shape;
        e.perm = perm;
        e.ncnn_shape = Shape::d3((int)shape[perm[2]], (int)shape[perm[1]], (int)shape[perm[0]]);  // w, h, c
        Mat m;
        ASSERT_TRUE(io_to_ncnn(e, t.data(), t.size(), m).is_ok());
        const int64_t stride[3] = {15, 5, 1};
        for (int64_t a = 0; a < shape[perm[0]]; a++)
            for (int64_t b = 0; b < shape[perm[1]]; b++)
                for (int64_t c = 0; c < shape[perm[2]]; c++)
                    EXPECT_EQ(m.channel((int)a)[b * shape[perm[2]] + c],
                              t[a * stride[perm[0]] + b * stride[perm[1]] + c * stride[perm[2]]])
                        << "perm " << perm[0] << perm[1] << perm[2];
        std::vector<float> back;
        ASSERT_TRUE(io_from_ncnn(e, m, back).is_ok());
        EXPECT_EQ(back, t);
    } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(IoMap, BadJsonIsRejected) {
    IoMap m;
    for (const char* text : {"", "[]", "{\"format\":\"other\"}", "{\"format\":\"nnfold.io\",\"version\":3}",
                             "{\"format\":\"nnfold.io\",\"version\":2,\"inputs\":[{\"name\":\"a\",\"blob\":\"a\","
                             "\"shape\":[1,3],\"ncnn_shape\":[3],\"dim_names\":[\"b\"]}],\"outputs\":[]}",
                             "{\"format\":\"nnfold.io\",\"version\":1,\"inputs\":[{\"name\":1}],\"outputs\":[]}",
                             "{\"format\":\"nnfold.io\",\"version\":1,\"inputs\":[{\"name\":\"a\",\"blob\":\"a\","
                             "\"shape\":[1,3],\"ncnn_shape\":[4]}],\"outputs\":[]}",
                             "{\"format\":\"nnfold.io\",\"version\":1,\"inputs\":[{\"name\":\"a\",\"blob\":\"a\","
                             "\"shape\":[1,3],\"perm\":[0,0],\"ncnn_shape\":[3]}],\"outputs\":[]}"}) {
        Status st = IoMap::from_json(text, m);
        EXPECT_FALSE(st.is_ok()) << text;
    }
}

}  // namespace
}  // namespace nnfold
