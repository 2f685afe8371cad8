// Log: ln(shift + x * scale) for base -1, divided by ln(base) otherwise; non-positive arguments give
// -inf / NaN as data (no error).
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Log, HandValues) {
    auto y = run_values("Log", ParamDict(), {1.f, 0.f, -1.f});
    ASSERT_EQ(y.size(), 3u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_TRUE(std::isinf(y[1]) && y[1] < 0);
    EXPECT_TRUE(std::isnan(y[2]));
    // log10(1 + x * 9): x = 1 -> 1, x = 11 -> 2
    auto z = run_values("Log", fparams({{0, 10.f}, {1, 9.f}, {2, 1.f}}), {1.f, 11.f});
    ASSERT_EQ(z.size(), 2u);
    EXPECT_NEAR(z[0], 1.f, 1e-6);
    EXPECT_NEAR(z[1], 2.f, 1e-6);
}

TEST(Log, EveryRank) {
    expect_elementwise("Log", ParamDict(), [](double v) { return std::log(v); }, 0.01f, 5.f);
    expect_elementwise("Log", fparams({{0, 2.f}, {1, 3.f}, {2, 0.5f}}),
                       [](double v) { return std::log2(0.5 + v * 3.0); }, 0.1f, 4.f, 1e-5f, 1e-6f);
}
