// Exp: e^(shift + x * scale) for base -1 (ncnn's marker for e), base^(shift + x * scale) otherwise.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Exp, HandValues) {
    auto y = run_values("Exp", ParamDict(), {0.f, 1.f, -1.f});
    ASSERT_EQ(y.size(), 3u);
    EXPECT_EQ(y[0], 1.f);
    EXPECT_NEAR(y[1], 2.718281828459045, 1e-6);
    EXPECT_NEAR(y[2], 0.36787944117144233, 1e-7);
    // 2^(1 + x * 3): x = 1 -> 16, x = -1 -> 0.25
    auto z = run_values("Exp", fparams({{0, 2.f}, {1, 3.f}, {2, 1.f}}), {1.f, -1.f, 0.f});
    ASSERT_EQ(z.size(), 3u);
    EXPECT_EQ(z[0], 16.f);
    EXPECT_EQ(z[1], 0.25f);
    EXPECT_EQ(z[2], 2.f);
}

TEST(Exp, EveryRank) {
    expect_elementwise("Exp", ParamDict(), [](double v) { return std::exp(v); }, -5.f, 5.f);
    expect_elementwise("Exp", fparams({{1, 0.5f}, {2, -1.f}}), [](double v) { return std::exp(-1.0 + v * 0.5); }, -5.f,
                       5.f);
    expect_elementwise("Exp", fparams({{0, 10.f}, {1, 2.f}, {2, 0.25f}}),
                       [](double v) { return std::pow(10.0, 0.25 + v * 2.0); }, -2.f, 2.f, 2e-5f, 1e-7f);
}
