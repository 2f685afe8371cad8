// The ONNX-level rewrites (src/io/onnx/onnx_rewrite.h): each fires on its pattern (asserted by
// the import's rewrite log and the layer types it leaves) and stays away from near misses (a
// second reader of an intermediate, a constant that does not fit, a Transpose that is not an
// NHWC input's). Fired or not, the imported model computes the ONNX result, checked against
// values computed here.
#include <gtest/gtest.h>

#include <cmath>

#include "io/onnx/onnx_import.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_run.h"

namespace nnfold {
namespace {

using test::OnnxBuilder;

struct Imported {
    Graph g;
    IoMap io;
    std::vector<OnnxRewriteRecord> rewrites;

    explicit Imported(const std::string& bytes, const OnnxImportOptions& opt = {}) {
        Warnings w;
        Status st = import_onnx((const uint8_t*)bytes.data(), bytes.size(), g, io, w, opt, rewrites);
        EXPECT_TRUE(st.is_ok()) << st.message();
    }
    int layers_of(const std::string& type) const {
        int n = 0;
        for (auto& l : g.layers)
            n += l.type == type;
        return n;
    }
    int rewrites_of(const std::string& pass) const {
        int n = 0;
        for (auto& r : rewrites)
            n += r.pass == pass;
        return n;
    }
};

// Deterministic inputs in about [-2.5, 2.5].
std::vector<float> ramp(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = 2.5f * std::sin(0.7f * (float)i + 0.3f);
    return v;
}

void expect_close(const std::vector<float>& y, const std::vector<double>& ref, double tol) {
    ASSERT_EQ(y.size(), ref.size());
    for (size_t i = 0; i < y.size(); i++)
        EXPECT_NEAR(y[i], ref[i], tol) << i;
}

// ---- fuse_gelu

// The three association orders PyTorch's exporters produce for x * 0.5 * (1 + erf(x / sqrt(2))).
enum class GeluForm { XTimesSumThenHalf, SumTimesHalfThenX, HalfXTimesSum };

struct GeluCase {
    GeluForm form = GeluForm::XTimesSumThenHalf;
    bool divide = true;          // x / sqrt(2), else sqrt(0.5) * x
    float one = 1.f;             // the constant added to erf
    bool sum_is_output = false;  // 1 + erf also a graph output: a second reader
    bool half_from_constant_node = false;
};

std::string gelu_model(const GeluCase& c) {
    OnnxBuilder b;
    b.input("x", {1, 2, 3});
    b.initializer(OnnxBuilder::tensor_f32("sqrt2", {}, {1.41421356f}));
    b.initializer(OnnxBuilder::tensor_f32("isqrt2", {1}, {0.70710678f}));
    b.initializer(OnnxBuilder::tensor_f32("one", {}, {c.one}));
    if (c.half_from_constant_node)
        b.node("Constant", {}, {"half"}, {OnnxBuilder::attr_tensor("value", OnnxBuilder::tensor_f32("h", {}, {0.5f}))});
    else
        b.initializer(OnnxBuilder::tensor_f32("half", {}, {0.5f}));
    if (c.divide)
        b.node("Div", {"x", "sqrt2"}, {"s"});
    else
        b.node("Mul", {"isqrt2", "x"}, {"s"});
    b.node("Erf", {"s"}, {"e"});
    b.node("Add", {"one", "e"}, {"a"});
    switch (c.form) {
    case GeluForm::XTimesSumThenHalf:
        b.node("Mul", {"x", "a"}, {"p"});
        b.node("Mul", {"p", "half"}, {"y"});
        break;
    case GeluForm::SumTimesHalfThenX:
        b.node("Mul", {"a", "half"}, {"p"});
        b.node("Mul", {"x", "p"}, {"y"});
        break;
    case GeluForm::HalfXTimesSum:
        b.node("Mul", {"half", "x"}, {"p"});
        b.node("Mul", {"p", "a"}, {"y"});
        break;
    }
    b.output("y");
    if (c.sum_is_output)
        b.output("a");
    return b.build();
}

std::vector<double> gelu_ref(const std::vector<float>& x, double one) {
    std::vector<double> r;
    for (float v : x)
        r.push_back(0.5 * v * (one + std::erf(v / std::sqrt(2.0))));
    return r;
}

TEST(OnnxRewrite, FuseGeluFiresOnEveryAssociationOrder) {
    for (GeluForm form : {GeluForm::XTimesSumThenHalf, GeluForm::SumTimesHalfThenX, GeluForm::HalfXTimesSum})
        for (bool divide : {true, false}) {
            GeluCase c;
            c.form = form;
            c.divide = divide;
            c.half_from_constant_node = form == GeluForm::SumTimesHalfThenX;
            SCOPED_TRACE("form " + std::to_string((int)form) + (divide ? " divide" : " multiply"));
            Imported m(gelu_model(c));
            ASSERT_EQ(m.rewrites.size(), 1u);
            EXPECT_EQ(m.rewrites[0].pass, "fuse_gelu");
            ASSERT_EQ(m.rewrites[0].nodes.size(), 5u);  // Erf, the scaling, the Add, both Muls
            EXPECT_EQ(m.rewrites[0].nodes[0], "Erf_" + std::string(c.half_from_constant_node ? "2" : "1"));
            EXPECT_NE(m.rewrites[0].detail.find("Gelu"), std::string::npos) << m.rewrites[0].detail;
            EXPECT_EQ(m.layers_of("GELU"), 1);
            EXPECT_EQ(m.layers_of("Erf"), 0);
            EXPECT_EQ(m.layers_of("BinaryOp"), 0);
            std::vector<float> x = ramp(6);
            expect_close(test::run_io(m.g, m.io, x), gelu_ref(x, 1.0), 1e-5);
        }
}

TEST(OnnxRewrite, FuseGeluKeepsAnIntermediateWithASecondReader) {
    GeluCase c;
    c.sum_is_output = true;
    Imported m(gelu_model(c));
    EXPECT_EQ(m.rewrites_of("fuse_gelu"), 0);
    EXPECT_EQ(m.layers_of("GELU"), 0);
    EXPECT_EQ(m.layers_of("Erf"), 1);
    std::vector<float> x = ramp(6);
    expect_close(test::run_io(m.g, m.io, x), gelu_ref(x, 1.0), 1e-5);
}

TEST(OnnxRewrite, FuseGeluRefusesAnotherConstant) {
    GeluCase c;
    c.one = 2.f;  // x * 0.5 * (2 + erf(...)) is not GELU
    Imported m(gelu_model(c));
    EXPECT_EQ(m.rewrites_of("fuse_gelu"), 0);
    EXPECT_EQ(m.layers_of("GELU"), 0);
    EXPECT_EQ(m.layers_of("Erf"), 1);
    std::vector<float> x = ramp(6);
    expect_close(test::run_io(m.g, m.io, x), gelu_ref(x, 2.0), 1e-5);
}

// ---- merge_transpose_pair

// y = x transposed by `perm` (4-D).
std::vector<double> transposed(const std::vector<float>& x, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& perm) {
    std::vector<int64_t> od(4), stride(4, 1);
    for (int k = 2; k >= 0; k--)
        stride[k] = stride[k + 1] * dims[k + 1];
    for (int k = 0; k < 4; k++)
        od[k] = dims[perm[k]];
    std::vector<double> y;
    for (int64_t a = 0; a < od[0]; a++)
        for (int64_t b = 0; b < od[1]; b++)
            for (int64_t c = 0; c < od[2]; c++)
                for (int64_t d = 0; d < od[3]; d++) {
                    int64_t idx[4] = {a, b, c, d}, off = 0;
                    for (int k = 0; k < 4; k++)
                        off += idx[k] * stride[perm[k]];
                    y.push_back(x[off]);
                }
    return y;
}

std::string transpose_pair_model(const std::vector<int64_t>& p, const std::vector<int64_t>& q, bool middle_is_output) {
    OnnxBuilder b;
    b.input("x", {1, 2, 3, 4});
    b.node("Transpose", {"x"}, {"t"}, {OnnxBuilder::attr_ints("perm", p)});
    b.node("Transpose", {"t"}, {"y"}, {OnnxBuilder::attr_ints("perm", q)});
    b.output("y");
    if (middle_is_output)
        b.output("t");
    return b.build();
}

TEST(OnnxRewrite, MergeTransposePairToIdentity) {
    Imported m(transpose_pair_model({0, 2, 3, 1}, {0, 3, 1, 2}, false));
    ASSERT_EQ(m.rewrites.size(), 1u);
    EXPECT_EQ(m.rewrites[0].pass, "merge_transpose_pair");
    EXPECT_EQ(m.rewrites[0].nodes, (std::vector<std::string>{"Transpose_0", "Transpose_1"}));
    EXPECT_NE(m.rewrites[0].detail.find("-> Identity"), std::string::npos) << m.rewrites[0].detail;
    EXPECT_EQ(m.layers_of("Permute"), 0);
    std::vector<float> x = ramp(24);
    expect_close(test::run_io(m.g, m.io, x), std::vector<double>(x.begin(), x.end()), 0);
}

TEST(OnnxRewrite, MergeTransposePairComposesThePermutations) {
    Imported m(transpose_pair_model({0, 2, 1, 3}, {0, 1, 3, 2}, false));
    ASSERT_EQ(m.rewrites.size(), 1u);
    EXPECT_EQ(m.rewrites[0].pass, "merge_transpose_pair");
    EXPECT_NE(m.rewrites[0].detail.find("-> Transpose(0,2,3,1)"), std::string::npos) << m.rewrites[0].detail;
    EXPECT_EQ(m.layers_of("Permute"), 1);
    EXPECT_EQ(m.io.outputs[0].shape, (std::vector<int64_t>{1, 3, 4, 2}));
    std::vector<float> x = ramp(24);
    expect_close(test::run_io(m.g, m.io, x), transposed(x, {1, 2, 3, 4}, {0, 2, 3, 1}), 0);
}

TEST(OnnxRewrite, MergeTransposePairKeepsAMiddleValueThatIsAnOutput) {
    Imported m(transpose_pair_model({0, 2, 3, 1}, {0, 3, 1, 2}, true));
    EXPECT_EQ(m.rewrites_of("merge_transpose_pair"), 0);
    EXPECT_EQ(m.layers_of("Permute"), 2);
    std::vector<float> x = ramp(24);
    expect_close(test::run_io(m.g, m.io, x), std::vector<double>(x.begin(), x.end()), 0);
}

// ---- absorb_input_transpose

// x [1,H,W,C] -> Sub(x, c) -> Mul(., 2) -> Transpose(perm) -> Relu -> y, with c of shape `cdims`.
struct NhwcCase {
    std::vector<int64_t> perm = {0, 3, 1, 2};
    std::vector<int64_t> cdims = {3};
    bool chain_is_output = false;  // the Mul's result also a graph output
};
constexpr int64_t H = 4, W = 5, C = 3;

std::string nhwc_model(const NhwcCase& k) {
    OnnxBuilder b;
    b.input("x", {1, H, W, C});
    int64_t n = 1;
    for (int64_t d : k.cdims)
        n *= d;
    std::vector<float> cv(n);
    for (int64_t i = 0; i < n; i++)
        cv[i] = 0.25f * (float)i - 0.3f;
    b.initializer(OnnxBuilder::tensor_f32("c", k.cdims, cv));
    b.initializer(OnnxBuilder::tensor_f32("two", {}, {2.f}));
    b.node("Sub", {"x", "c"}, {"s"});
    b.node("Mul", {"s", "two"}, {"m"});
    b.node("Transpose", {"m"}, {"t"}, {OnnxBuilder::attr_ints("perm", k.perm)});
    b.node("Relu", {"t"}, {"y"});
    b.output("y");
    if (k.chain_is_output)
        b.output("m");
    return b.build();
}

// The model's y for NHWC data x, by the ONNX definition.
std::vector<double> nhwc_ref(const NhwcCase& k, const std::vector<float>& x) {
    std::vector<float> m(x.size());
    for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++)
            for (int64_t c = 0; c < C; c++) {
                // c broadcasts from the right: [C] or [1,H,1,1]
                float cv = k.cdims.size() == 1 ? 0.25f * c - 0.3f : 0.25f * h - 0.3f;
                size_t i = (size_t)((h * W + w) * C + c);
                m[i] = (x[i] - cv) * 2.f;
            }
    std::vector<double> t = transposed(m, {1, H, W, C}, k.perm);
    for (double& v : t)
        v = std::max(0.0, v);
    return t;
}

TEST(OnnxRewrite, AbsorbInputTransposeFires) {
    NhwcCase k;
    Imported m(nhwc_model(k));
    ASSERT_EQ(m.rewrites.size(), 1u);
    const OnnxRewriteRecord& r = m.rewrites[0];
    EXPECT_EQ(r.pass, "absorb_input_transpose");
    EXPECT_EQ(r.nodes, (std::vector<std::string>{"x", "Transpose_2", "Sub_0", "Mul_1"}));
    EXPECT_NE(r.detail.find("1 per-channel constant reshaped"), std::string::npos) << r.detail;
    EXPECT_EQ(m.layers_of("Permute"), 0);
    ASSERT_EQ(m.io.inputs.size(), 1u);
    EXPECT_EQ(m.io.inputs[0].layout, "NHWC");
    EXPECT_EQ(m.io.inputs[0].shape, (std::vector<int64_t>{1, H, W, C}));
    EXPECT_EQ(m.io.inputs[0].ncnn_shape, Shape::d3(W, H, C));
    std::vector<float> x = ramp(H * W * C);
    expect_close(test::run_io(m.g, m.io, x), nhwc_ref(k, x), 1e-6);
}

// Near misses: each keeps the input NHWC-as-declared and the Transpose as a Permute layer.
TEST(OnnxRewrite, AbsorbInputTransposeMustNotFire) {
    struct Miss {
        const char* why;
        NhwcCase k;
        bool option_off;
    };
    std::vector<Miss> misses;
    misses.push_back({"a Transpose that is not NHWC -> NCHW", NhwcCase(), false});
    misses.back().k.perm = {0, 2, 3, 1};
    misses.push_back({"a constant along H, not per channel", NhwcCase(), false});
    misses.back().k.cdims = {1, H, 1, 1};
    misses.push_back({"a value on the way is a graph output", NhwcCase(), false});
    misses.back().k.chain_is_output = true;
    misses.push_back({"the option is off", NhwcCase(), true});
    for (const Miss& miss : misses) {
        SCOPED_TRACE(miss.why);
        OnnxImportOptions opt;
        opt.absorb_input_transpose = !miss.option_off;
        Imported m(nhwc_model(miss.k), opt);
        EXPECT_EQ(m.rewrites_of("absorb_input_transpose"), 0);
        EXPECT_EQ(m.layers_of("Permute"), 1);
        ASSERT_EQ(m.io.inputs.size(), 1u);
        EXPECT_EQ(m.io.inputs[0].layout, "");
        EXPECT_EQ(m.io.inputs[0].shape, (std::vector<int64_t>{1, H, W, C}));
        std::vector<float> x = ramp(H * W * C);
        expect_close(test::run_io(m.g, m.io, x), nhwc_ref(miss.k, x), 1e-6);
    }
}

TEST(OnnxRewrite, TheLogIsEmptyAfterAFailedImport) {
    GeluCase c;
    std::string bytes = gelu_model(c);
    std::vector<OnnxRewriteRecord> rewrites(3);
    Graph g;
    IoMap io;
    Warnings w;
    OnnxImportOptions opt;
    opt.input_shapes["x"] = {1, 2};  // wrong rank: refused
    Status st = import_onnx((const uint8_t*)bytes.data(), bytes.size(), g, io, w, opt, rewrites);
    EXPECT_FALSE(st.is_ok());
    EXPECT_TRUE(rewrites.empty());
}

}  // namespace
}  // namespace nnfold
