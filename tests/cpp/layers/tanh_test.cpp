// TanH against tanh in double.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(TanH, HandValues) {
    auto y = run_values("TanH", ParamDict(), {0.f, 1.f, -1.f, 50.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.7615941559557649, 1e-7);
    EXPECT_NEAR(y[2], -0.7615941559557649, 1e-7);
    EXPECT_EQ(y[3], 1.f);
}

TEST(TanH, EveryRank) {
    expect_elementwise("TanH", ParamDict(), [](double v) { return std::tanh(v); }, -5.f, 5.f);
}
