// Power: (shift + x * scale)^power.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Power, HandValues) {
    // defaults power 1 scale 1 shift 0: identity
    expect_same_floats({-2.f, 0.f, 3.5f}, run_values("Power", ParamDict(), {-2.f, 0.f, 3.5f}));
    // (1 + 2x)^2: x = 1 -> 9, x = -1 -> 1
    auto y = run_values("Power", fparams({{0, 2.f}, {1, 2.f}, {2, 1.f}}), {1.f, -1.f, 0.f});
    ASSERT_EQ(y.size(), 3u);
    EXPECT_EQ(y[0], 9.f);
    EXPECT_EQ(y[1], 1.f);
    EXPECT_EQ(y[2], 1.f);
    // a fractional power of a negative base is NaN, as pow gives
    auto z = run_values("Power", fparams({{0, 0.5f}}), {-4.f, 4.f});
    ASSERT_EQ(z.size(), 2u);
    EXPECT_TRUE(std::isnan(z[0]));
    EXPECT_EQ(z[1], 2.f);
}

TEST(Power, EveryRank) {
    expect_elementwise("Power", fparams({{0, 3.f}, {1, -0.5f}, {2, 0.25f}}),
                       [](double v) { return std::pow(0.25 - 0.5 * v, 3.0); }, -3.f, 3.f, 1e-5f, 1e-6f);
    expect_elementwise("Power", fparams({{0, -1.5f}, {1, 2.f}, {2, 5.f}}),
                       [](double v) { return std::pow(5.0 + 2.0 * v, -1.5); }, -2.f, 2.f, 1e-5f, 1e-7f);
}
