// Swish (SiLU) against x / (1 + e^-x) in double.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Swish, HandValues) {
    auto y = run_values("Swish", ParamDict(), {0.f, 1.f, -1.f, -200.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.7310585786300049, 1e-7);
    EXPECT_NEAR(y[2], -0.2689414213699951, 1e-7);
    EXPECT_EQ(y[3], -0.f);  // -200 / inf
}

TEST(Swish, EveryRank) {
    expect_elementwise("Swish", ParamDict(), [](double v) { return v / (1.0 + std::exp(-v)); }, -8.f, 8.f);
}
