// UnaryOp: all 20 op types against their formulas in double on every rank, hand values for the
// rounding ops (round is ties-to-even, as ncnn sets FE_TONEAREST), and the op_type check.
#include <cmath>
#include <functional>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

struct Case {
    const char* name;
    std::function<double(double)> f;
    float lo, hi;  // input range inside the op's domain
};

const std::vector<Case>& cases() {
    static const std::vector<Case> c = {
        {"abs", [](double x) { return std::fabs(x); }, -3, 3},
        {"neg", [](double x) { return -x; }, -3, 3},
        {"floor", [](double x) { return std::floor(x); }, -3, 3},
        {"ceil", [](double x) { return std::ceil(x); }, -3, 3},
        {"square", [](double x) { return x * x; }, -3, 3},
        {"sqrt", [](double x) { return std::sqrt(x); }, 0, 9},
        {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.05f, 9},
        {"exp", [](double x) { return std::exp(x); }, -5, 5},
        {"log", [](double x) { return std::log(x); }, 0.01f, 9},
        {"sin", [](double x) { return std::sin(x); }, -6, 6},
        {"cos", [](double x) { return std::cos(x); }, -6, 6},
        {"tan", [](double x) { return std::tan(x); }, -1.4f, 1.4f},
        {"asin", [](double x) { return std::asin(x); }, -1, 1},
        {"acos", [](double x) { return std::acos(x); }, -1, 1},
        {"atan", [](double x) { return std::atan(x); }, -9, 9},
        {"reciprocal", [](double x) { return 1 / x; }, 0.1f, 5},
        {"tanh", [](double x) { return std::tanh(x); }, -4, 4},
        {"log10", [](double x) { return std::log10(x); }, 0.01f, 900},
        {"round", [](double x) { return std::nearbyint(x); }, -4, 4},
        {"trunc", [](double x) { return std::trunc(x); }, -4, 4},
    };
    return c;
}

}  // namespace

TEST(UnaryOp, EveryOpEveryRank) {
    ASSERT_EQ(cases().size(), 20u);
    for (int op = 0; op < 20; op++) {
        SCOPED_TRACE(cases()[op].name);
        expect_elementwise("UnaryOp", params({{0, op}}), cases()[op].f, cases()[op].lo, cases()[op].hi, 2e-6f, 1e-6f,
                           1000 + op * 20);
    }
}

TEST(UnaryOp, HandValues) {
    const std::vector<float> x = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f, -2.7f};
    expect_same_floats({-2.f, -2.f, -0.f, 0.f, 2.f, 2.f, 3.f, -3.f}, run_values("UnaryOp", params({{0, 18}}), x), true);
    expect_same_floats({-2.f, -1.f, -0.f, 0.f, 1.f, 2.f, 2.f, -2.f}, run_values("UnaryOp", params({{0, 19}}), x), true);
    expect_same_floats({-3.f, -2.f, -1.f, 0.f, 1.f, 2.f, 2.f, -3.f}, run_values("UnaryOp", params({{0, 2}}), x));
    expect_same_floats({-2.f, -1.f, -0.f, 1.f, 2.f, 3.f, 3.f, -2.f}, run_values("UnaryOp", params({{0, 3}}), x), true);
    expect_same_floats({4.f, 0.5f, -0.25f}, run_values("UnaryOp", params({{0, 15}}), {0.25f, 2.f, -4.f}));
    expect_same_floats({0.5f, 1.f / 3}, run_values("UnaryOp", params({{0, 6}}), {4.f, 9.f}));
    // out of domain: NaN and infinities as data
    auto y = run_values("UnaryOp", params({{0, 5}}), {-1.f});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_TRUE(std::isnan(y[0]));
    y = run_values("UnaryOp", params({{0, 15}}), {0.f});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_TRUE(std::isinf(y[0]));
    // default op_type 0 is abs
    expect_same_floats({1.f, 2.f}, run_values("UnaryOp", ParamDict(), {-1.f, 2.f}));
}

TEST(UnaryOp, BadOpType) {
    LT_EXPECT_ERROR(create_layer("UnaryOp", false)->load_param(params({{0, 20}})), ErrorCode::InvalidModel,
                    "op_type (param 0)");
    LT_EXPECT_ERROR(create_layer("UnaryOp", false)->load_param(params({{0, -1}})), ErrorCode::InvalidModel, "0..19");
}
