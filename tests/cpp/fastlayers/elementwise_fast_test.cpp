// BinaryOp_fast, Eltwise_fast, Swish_fast and Sigmoid_fast against the reference layers on edge
// shapes (1, 3, 4, 5, 17, 64 channels, odd widths), every broadcast pattern of ncnn's rule
// (scalar-like, per channel, per row, per column, rank-expanded 1D/2D operands, both directions),
// every op (pow/atan2 take the reference path), with_scalar forms. The binary ops are exact IEEE
// operations: bit-identical results (tolerance 0); the exp-based activations within 1e-4.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

ParamDict binop(int op, int with_scalar = 0, float b = 0.f) {
    ParamDict pd = params({{0, op}, {1, with_scalar}});
    pd.set_float(2, b);
    return pd;
}

// ops 0..11: divisions get operands away from 0, pow a positive base
std::vector<Mat> operands(int op, const Shape& a, const Shape& b, uint32_t seed) {
    const bool positive = op == 6 || op == 9 || op == 3 || op == 8;
    return {rand_mat(a, seed, positive ? 0.5f : -1.f, positive ? 2.f : 1.f),
            rand_mat(b, seed + 1, positive ? 0.5f : -1.f, positive ? 2.f : 1.f)};
}

}  // namespace

TEST(BinaryOpFast, BroadcastPatternsOnEdgeShapes) {
    uint32_t seed = 1;
    for (int C : {1, 3, 4, 5, 17, 64})
        for (int W : {1, 3, 7, 13}) {
            const int H = W + 2;
            const Shape full = Shape::d3(W, H, C);
            const std::vector<Shape> others = {
                full,                     // same shape
                Shape::d3(1, 1, C),       // per channel (squeeze-excitation)
                Shape::d1(1),             // scalar-like
                Shape::d1(W),             // 1D along w (rank-expanded)
                Shape::d2(H, C),          // 2D [c, h]: rank-expanded to [c, h, 1] (per row)
                Shape::d3(W, 1, C),       // per column
                Shape::d3(1, H, C),       // per row
                Shape::d3(W, H, 1),       // one plane for every channel
            };
            for (const Shape& o : others)
                for (int op : {0, 1, 2, 3, 4, 5, 7, 8}) {
                    SCOPED_TRACE("op " + std::to_string(op) + " " + full.str() + " with " + o.str());
                    compare("BinaryOp", binop(op), operands(op, full, o, seed), 0.0);
                    compare("BinaryOp", binop(op), operands(op, o, full, seed + 7), 0.0);
                    seed += 2;
                }
        }
}

TEST(BinaryOpFast, ShapesWithDepthAndBothBroadcast) {
    uint32_t seed = 500;
    // 4D, and operands broadcast along different axes ([c,1,w] op [c,h,1])
    const std::vector<std::pair<Shape, Shape>> pairs = {
        {Shape::d4(5, 3, 2, 4), Shape::d4(5, 3, 2, 4)}, {Shape::d4(5, 3, 2, 4), Shape::d4(1, 1, 1, 4)},
        {Shape::d4(5, 3, 2, 4), Shape::d4(5, 1, 2, 1)}, {Shape::d3(7, 1, 5), Shape::d3(1, 3, 5)},
        {Shape::d3(1, 9, 17), Shape::d3(6, 1, 1)},      {Shape::d2(17, 3), Shape::d2(1, 3)},
        {Shape::d1(17), Shape::d1(17)},                 {Shape::d1(1), Shape::d1(1)},
    };
    for (auto& p : pairs)
        for (int op : {0, 1, 2, 3, 4, 5, 7, 8}) {
            SCOPED_TRACE("op " + std::to_string(op) + " " + p.first.str() + " with " + p.second.str());
            compare("BinaryOp", binop(op), operands(op, p.first, p.second, seed++), 0.0);
            compare("BinaryOp", binop(op), operands(op, p.second, p.first, seed++), 0.0);
        }
}

TEST(BinaryOpFast, WithScalarAndReferenceOps) {
    uint32_t seed = 900;
    for (int op = 0; op < 12; op++)
        for (int C : {1, 5, 17}) {
            SCOPED_TRACE("op " + std::to_string(op) + " C " + std::to_string(C));
            const bool positive = op == 6 || op == 9;
            compare("BinaryOp", binop(op, 1, positive ? 1.5f : -0.75f),
                    {rand_mat(Shape::d3(7, 3, C), seed++, positive ? 0.5f : -1.f, positive ? 2.f : 1.f)}, 0.0);
        }
    // pow and atan2 (reference path) with broadcasting
    for (int op : {6, 9, 10, 11})
        compare("BinaryOp", binop(op), operands(op, Shape::d3(5, 3, 4), Shape::d3(1, 1, 4), seed++), 0.0);
}

TEST(BinaryOpFast, BadShapesFailAsTheReference) {
    auto w = weights_for("BinaryOp", binop(0), 1);
    Built opt = build("BinaryOp", binop(0), w, true);
    ASSERT_TRUE(opt.st.is_ok());
    std::vector<Mat> out(1);
    Option o;
    Status st = opt.layer->forward({rand_mat(Shape::d3(5, 3, 4), 1), rand_mat(Shape::d3(4, 3, 4), 2)}, out, o);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("BinaryOp"), std::string::npos) << st.message();
}

TEST(EltwiseFast, OpsCoeffsAndInputCounts) {
    uint32_t seed = 1200;
    for (int C : {1, 3, 4, 5, 17, 64})
        for (int W : {1, 3, 13})
            for (int inputs : {2, 3, 4})
                for (int op : {0, 1, 2}) {
                    const Shape s = Shape::d3(W, W + 1, C);
                    std::vector<Mat> in;
                    for (int i = 0; i < inputs; i++)
                        in.push_back(rand_mat(s, seed++));
                    SCOPED_TRACE("op " + std::to_string(op) + " inputs " + std::to_string(inputs) + " " + s.str());
                    compare("Eltwise", params({{0, op}}), in, 0.0);
                    if (op == 1) {
                        ParamDict pd = params({{0, 1}});
                        std::vector<float> c = {0.5f, -1.25f, 2.f, 0.3f};
                        c.resize((size_t)inputs);
                        pd.set_floats(1, c);
                        compare("Eltwise", pd, in, 0.0);
                    }
                }
}

TEST(ActivationFast, SwishAndSigmoid) {
    uint32_t seed = 1500;
    for (const char* type : {"Swish", "Sigmoid"})
        for (int C : {1, 3, 4, 5, 17, 64})
            for (int W : {1, 2, 3, 7, 13}) {
                SCOPED_TRACE(std::string(type) + " C " + std::to_string(C) + " W " + std::to_string(W));
                compare(type, ParamDict(), {rand_mat(Shape::d3(W, W + 2, C), seed++, -12.f, 12.f)}, 1e-4);
            }
    // far tails: sigmoid 0 / 1, swish ~0 / x
    compare("Swish", ParamDict(), {rand_mat(Shape::d1(37), seed++, -150.f, 150.f)}, 1e-4);
    compare("Sigmoid", ParamDict(), {rand_mat(Shape::d1(37), seed++, -150.f, 150.f)}, 1e-4);
}

TEST(ActivationFast, Gelu) {
    uint32_t seed = 1700;
    for (int form : {0, 1})
        for (int C : {1, 3, 4, 5, 17, 64})
            for (int W : {1, 3, 7, 13}) {
                SCOPED_TRACE("GELU form " + std::to_string(form) + " C " + std::to_string(C) + " W " + std::to_string(W));
                compare("GELU", params({{0, form}}), {rand_mat(Shape::d3(W, W + 2, C), seed++, -8.f, 8.f)}, 1e-4);
            }
    compare("GELU", ParamDict(), {rand_mat(Shape::d1(37), seed++, -150.f, 150.f)}, 1e-4);
    compare("GELU", params({{0, 1}}), {rand_mat(Shape::d1(37), seed++, -150.f, 150.f)}, 1e-4);
}
