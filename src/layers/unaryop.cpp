// UnaryOp (ncnn src/layer/unaryop.cpp): y = op(x) elementwise on any blob. Param 0 op_type (0):
//   0 abs  1 neg  2 floor  3 ceil  4 square  5 sqrt  6 rsqrt (1 / sqrt)  7 exp  8 log  9 sin
//   10 cos  11 tan  12 asin  13 acos  14 atan  15 reciprocal (1 / x)  16 tanh  17 log10
//   18 round (to nearest, ties to even: ncnn sets FE_TONEAREST around nearbyint)  19 trunc
// in float, as ncnn's scalar path computes them (out-of-domain inputs give NaN / inf as there).
// An op_type outside 0..19 is refused (ncnn would silently pass the input through).
#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

namespace {

template <typename F>
void unary_inplace(Mat& m, F f) {
    float* p = m.data;
    const size_t n = m.total_floats();
    for (size_t i = 0; i < n; i++)
        p[i] = f(p[i]);
}

}  // namespace

class UnaryOp : public Layer {
public:
    UnaryOp() {
        one_blob_only = true;
        support_inplace = true;
    }
    enum {
        kAbs = 0, kNeg, kFloor, kCeil, kSquare, kSqrt, kRsqrt, kExp, kLog, kSin, kCos, kTan, kAsin, kAcos, kAtan,
        kReciprocal, kTanh, kLog10, kRound, kTrunc, kCount
    };
    int op_type = kAbs;

    NF_PARAM_TABLE(UnaryOp, NF_PARAM(0, op_type))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (op_type < 0 || op_type >= kCount)
            return invalid_model("UnaryOp op_type (param 0) must be 0..19 (abs .. trunc), got " + std::to_string(op_type));
        return Status::ok();
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        switch (op_type) {
        case kAbs: unary_inplace(m, [](float x) { return std::fabs(x); }); break;
        case kNeg: unary_inplace(m, [](float x) { return -x; }); break;
        case kFloor: unary_inplace(m, [](float x) { return std::floor(x); }); break;
        case kCeil: unary_inplace(m, [](float x) { return std::ceil(x); }); break;
        case kSquare: unary_inplace(m, [](float x) { return x * x; }); break;
        case kSqrt: unary_inplace(m, [](float x) { return std::sqrt(x); }); break;
        case kRsqrt: unary_inplace(m, [](float x) { return 1.f / std::sqrt(x); }); break;
        case kExp: unary_inplace(m, [](float x) { return std::exp(x); }); break;
        case kLog: unary_inplace(m, [](float x) { return std::log(x); }); break;
        case kSin: unary_inplace(m, [](float x) { return std::sin(x); }); break;
        case kCos: unary_inplace(m, [](float x) { return std::cos(x); }); break;
        case kTan: unary_inplace(m, [](float x) { return std::tan(x); }); break;
        case kAsin: unary_inplace(m, [](float x) { return std::asin(x); }); break;
        case kAcos: unary_inplace(m, [](float x) { return std::acos(x); }); break;
        case kAtan: unary_inplace(m, [](float x) { return std::atan(x); }); break;
        case kReciprocal: unary_inplace(m, [](float x) { return 1.f / x; }); break;
        case kTanh: unary_inplace(m, [](float x) { return std::tanh(x); }); break;
        case kLog10: unary_inplace(m, [](float x) { return std::log10(x); }); break;
        // nearbyint rounds in the current mode; nnfold never changes it from round-to-nearest-even
        // (and wasm has no other mode), which is the mode ncnn sets explicitly.
        case kRound: unary_inplace(m, [](float x) { return std::nearbyint(x); }); break;
        case kTrunc: unary_inplace(m, [](float x) { return std::trunc(x); }); break;
        default: return internal_error("UnaryOp: op_type " + std::to_string(op_type) + " not validated");
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(UnaryOp)

}  // namespace nnfold
