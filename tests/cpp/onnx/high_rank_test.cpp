// Tensors above ncnn's 4 axes in ONNX import (the folded view, src/io/onnx/onnx_high_rank.cpp)
// and the fuse_space_to_batch rewrite (src/io/onnx/onnx_rewrite_space_to_batch.cpp), checked
// against references computed here: a 6-D transpose must be bit-identical, the dilated
// convolution the rewrite makes must equal the direct formula, a twin must not fire, and ranks or
// sizes nnfold cannot hold are clear errors. (tests/js/onnx/high_rank.test.mjs and
// space_to_batch.test.mjs compare the same shapes with onnxruntime.)
#include <gtest/gtest.h>

#include <cmath>

#include "io/onnx/onnx_import.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_run.h"

namespace nnfold {
namespace {

using test::OnnxBuilder;

std::vector<float> ramp(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = 2.5f * std::sin(0.37f * (float)i + 0.3f);
    return v;
}

struct Imported {
    Graph g;
    IoMap io;
    std::vector<OnnxRewriteRecord> rewrites;
    Status st;

    explicit Imported(const std::string& bytes) {
        Warnings w;
        st = import_onnx((const uint8_t*)bytes.data(), bytes.size(), g, io, w, {}, rewrites);
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

// x of shape `dims` transposed by `perm` (any rank), by index arithmetic.
std::vector<double> transposed(const std::vector<float>& x, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& perm) {
    size_t r = dims.size();
    std::vector<int64_t> stride(r, 1), od(r), idx(r, 0);
    for (size_t k = r - 1; k-- > 0;)
        stride[k] = stride[k + 1] * dims[k + 1];
    for (size_t k = 0; k < r; k++)
        od[k] = dims[perm[k]];
    std::vector<double> y;
    for (size_t e = 0; e < x.size(); e++) {
        int64_t off = 0;
        for (size_t k = 0; k < r; k++)
            off += idx[k] * stride[perm[k]];
        y.push_back(x[off]);
        for (size_t k = r; k-- > 0;) {
            if (++idx[k] < od[k])
                break;
            idx[k] = 0;
        }
    }
    return y;
}

TEST(HighRank, SixDTransposeOfSixMovingAxesIsBitIdentical) {
    const std::vector<int64_t> dims = {2, 3, 4, 5, 3, 2}, perm = {5, 3, 1, 4, 2, 0};
    OnnxBuilder b;
    b.input("x", dims);
    b.node("Transpose", {"x"}, {"y"}, {OnnxBuilder::attr_ints("perm", perm)});
    b.output("y");
    Imported m(b.build());
    ASSERT_TRUE(m.st.is_ok()) << m.st.message();
    EXPECT_GT(m.layers_of("Permute"), 1);  // more than 4 groups move: several block swaps
    for (auto& bl : m.g.blobs)
        EXPECT_LE(bl.shape.dims, 4) << bl.name;
    EXPECT_EQ(m.io.outputs[0].shape, (std::vector<int64_t>{2, 5, 3, 3, 4, 2}));
    std::vector<float> x = ramp(720);
    std::vector<float> y = test::run_io(m.g, m.io, x);
    std::vector<double> ref = transposed(x, dims, perm);
    ASSERT_EQ(y.size(), ref.size());
    for (size_t i = 0; i < y.size(); i++)
        ASSERT_EQ(y[i], (float)ref[i]) << i;
}

TEST(HighRank, RankSevenAndOverflowingSizesAreClearErrors) {
    OnnxBuilder r7;
    r7.input("x", {1, 2, 2, 2, 2, 2, 2});
    r7.node("Relu", {"x"}, {"y"});
    r7.output("y");
    Imported a(r7.build());
    EXPECT_EQ(a.st.code(), ErrorCode::Unsupported);
    EXPECT_NE(a.st.message().find("has rank 7"), std::string::npos) << a.st.message();

    OnnxBuilder big;
    big.input("x", {65536, 65536, 65536, 65536, 65536, 2});
    big.node("Relu", {"x"}, {"y"});
    big.output("y");
    Imported c(big.build());
    EXPECT_EQ(c.st.code(), ErrorCode::ResourceLimit);
    EXPECT_NE(c.st.message().find("overflows"), std::string::npos) << c.st.message();

    OnnxBuilder ln;  // an operator with no path for such a tensor names node, shape and rank
    ln.input("x", {2, 3, 4, 5, 6});
    ln.initializer(OnnxBuilder::tensor_f32("s", {3}, {1, 1, 1}));
    ln.node("InstanceNormalization", {"x", "s", "s"}, {"y"}, {}, "inorm");
    ln.output("y");
    Imported d(ln.build());
    EXPECT_EQ(d.st.code(), ErrorCode::Unsupported);
    EXPECT_NE(d.st.message().find("node 'inorm' (InstanceNormalization)"), std::string::npos) << d.st.message();
    EXPECT_NE(d.st.message().find("[2,3,4,5,6] (rank 5"), std::string::npos) << d.st.message();
}

// NCHW SpaceToBatch (block bh x bw, input pads) + Conv (kernel k, VALID) + BatchToSpace + crop.
struct S2B {
    int64_t C = 2, H = 7, W = 6, O = 3, k = 3, bh = 2, bw = 3;
    int64_t pt = 1, pb = 2, pl = 3, pr = 3;  // H + 3 = 10 = 5 * 2; W + 6 = 12 = 4 * 3
    int64_t ct = 0, cb = 1, cl = 1, cr = 2;
    bool second_reader = false;

    std::string model(const std::vector<float>& w, const std::vector<float>& bias) const {
        int64_t Hb = (H + pt + pb) / bh, Wb = (W + pl + pr) / bw, h = Hb - (k - 1), wo = Wb - (k - 1);
        OnnxBuilder b;
        b.input("x", {1, C, H, W});
        b.initializer(OnnxBuilder::tensor_f32("w", {O, C, k, k}, w));
        b.initializer(OnnxBuilder::tensor_f32("b", {O}, bias));
        b.initializer(OnnxBuilder::tensor_i64("pads", {8}, {0, 0, pt, pl, 0, 0, pb, pr}));
        b.initializer(OnnxBuilder::tensor_i64("s6", {6}, {1, C, Hb, bh, Wb, bw}));
        b.initializer(OnnxBuilder::tensor_i64("s4", {4}, {bh * bw, C, Hb, Wb}));
        b.initializer(OnnxBuilder::tensor_i64("s6o", {6}, {bh, bw, 1, O, h, wo}));
        b.initializer(OnnxBuilder::tensor_i64("s4o", {4}, {1, O, h * bh, wo * bw}));
        b.initializer(OnnxBuilder::tensor_i64("st", {2}, {ct, cl}));
        b.initializer(OnnxBuilder::tensor_i64("en", {2}, {h * bh - cb, wo * bw - cr}));
        b.initializer(OnnxBuilder::tensor_i64("ax", {2}, {2, 3}));
        b.node("Pad", {"x", "pads"}, {"xp"}, {}, "pad");
        b.node("Reshape", {"xp", "s6"}, {"a"});
        b.node("Transpose", {"a"}, {"t"}, {OnnxBuilder::attr_ints("perm", {3, 5, 0, 1, 2, 4})});
        b.node("Reshape", {"t", "s4"}, {"xb"});
        b.node("Conv", {"xb", "w", "b"}, {"yb"}, {}, "conv");
        b.node("Reshape", {"yb", "s6o"}, {"c"});
        b.node("Transpose", {"c"}, {"u"}, {OnnxBuilder::attr_ints("perm", {2, 3, 4, 0, 5, 1})});
        b.node("Reshape", {"u", "s4o"}, {"ys"});
        b.node("Slice", {"ys", "st", "en", "ax"}, {"y"}, {}, "crop");
        b.output("y");
        if (second_reader)
            b.output("xp");
        return b.build();
    }

    // The dilated convolution the pattern computes, from its definition: out[o, p, q] =
    // b[o] + sum W[o, c, a, e] x[c, p + ct - pt + bh a, q + cl - pl + bw e] (zeros outside x).
    std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w,
                                  const std::vector<float>& bias, int64_t& OH, int64_t& OW) const {
        int64_t Hb = (H + pt + pb) / bh, Wb = (W + pl + pr) / bw;
        OH = (Hb - (k - 1)) * bh - ct - cb;
        OW = (Wb - (k - 1)) * bw - cl - cr;
        std::vector<double> y;
        for (int64_t o = 0; o < O; o++)
            for (int64_t p = 0; p < OH; p++)
                for (int64_t q = 0; q < OW; q++) {
                    double s = bias[o];
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t a = 0; a < k; a++)
                            for (int64_t e = 0; e < k; e++) {
                                int64_t iy = p + ct - pt + bh * a, ix = q + cl - pl + bw * e;
                                if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                                    continue;
                                s += (double)w[((o * C + c) * k + a) * k + e] * x[(c * H + iy) * W + ix];
                            }
                    y.push_back(s);
                }
        return y;
    }
};

TEST(HighRank, SpaceToBatchConvBatchToSpaceBecomesOneDilatedConv) {
    S2B p;
    std::vector<float> w = ramp((size_t)(p.O * p.C * p.k * p.k)), bias = {0.1f, -0.2f, 0.3f};
    Imported m(p.model(w, bias));
    ASSERT_TRUE(m.st.is_ok()) << m.st.message();
    ASSERT_EQ(m.rewrites_of("fuse_space_to_batch"), 1);
    for (auto& r : m.rewrites)
        if (r.pass == "fuse_space_to_batch") {
            EXPECT_NE(r.detail.find("dilations (2,3)"), std::string::npos) << r.detail;
            // pads: t = 1 - 0, l = 3 - 1, b = 2 - 1, r = 3 - 2
            EXPECT_NE(r.detail.find("pads (1,2,1,1)"), std::string::npos) << r.detail;
        }
    EXPECT_EQ(m.layers_of("Convolution"), 1);
    EXPECT_EQ(m.layers_of("Permute"), 0);
    EXPECT_EQ(m.layers_of("Reshape"), 0);
    EXPECT_EQ(m.layers_of("Padding"), 0);
    EXPECT_EQ(m.layers_of("Crop"), 0);
    std::vector<float> x = ramp((size_t)(p.C * p.H * p.W));
    int64_t OH, OW;
    std::vector<double> ref = p.reference(x, w, bias, OH, OW);
    EXPECT_EQ(m.io.outputs[0].shape, (std::vector<int64_t>{1, p.O, OH, OW}));
    std::vector<float> y = test::run_io(m.g, m.io, x);
    ASSERT_EQ(y.size(), ref.size());
    for (size_t i = 0; i < y.size(); i++)
        EXPECT_NEAR(y[i], ref[i], 1e-4) << i;
}

TEST(HighRank, SpaceToBatchWithASecondReaderDoesNotFire) {
    S2B p;
    p.second_reader = true;
    std::vector<float> w = ramp((size_t)(p.O * p.C * p.k * p.k)), bias = {0.1f, -0.2f, 0.3f};
    Imported m(p.model(w, bias));
    EXPECT_EQ(m.rewrites_of("fuse_space_to_batch"), 0);
    // the batched Conv the pattern spells is what ncnn cannot run: a clear error, not a wrong fusion
    EXPECT_EQ(m.st.code(), ErrorCode::Unsupported);
    EXPECT_NE(m.st.message().find("node 'conv' (Conv): batch size 6"), std::string::npos) << m.st.message();
}

}  // namespace
}  // namespace nnfold
