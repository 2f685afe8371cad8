// Mish against x * tanh(ln(1 + e^x)) in double; large inputs give x (ncnn's float softplus
// overflows to inf and tanh(inf) = 1).
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Mish, HandValues) {
    auto y = run_values("Mish", ParamDict(), {0.f, 1.f, 100.f, -100.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.8650983882673103, 1e-6);
    EXPECT_EQ(y[2], 100.f);
    EXPECT_NEAR(y[3], 0.f, 1e-30);
}

TEST(Mish, EveryRank) {
    expect_elementwise("Mish", ParamDict(), [](double v) { return v * std::tanh(std::log1p(std::exp(v))); }, -8.f, 8.f,
                       1e-5f, 1e-6f);
}
