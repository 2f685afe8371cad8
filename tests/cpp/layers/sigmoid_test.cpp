// Sigmoid against 1 / (1 + e^-x) in double; saturation at both ends as ncnn's float formula gives.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Sigmoid, HandValues) {
    auto y = run_values("Sigmoid", ParamDict(), {0.f, -200.f, 200.f, 2.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], 0.5f);
    EXPECT_EQ(y[1], 0.f);  // exp(200) overflows to inf: 1 / inf
    EXPECT_EQ(y[2], 1.f);
    EXPECT_NEAR(y[3], 0.880797077977882, 1e-7);
}

TEST(Sigmoid, EveryRank) {
    expect_elementwise("Sigmoid", ParamDict(), [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, -9.f, 9.f);
}
