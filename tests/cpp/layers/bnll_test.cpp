// BNLL: softplus log(1 + e^x) in double; ncnn's split keeps large inputs finite (x + log1p(e^-x)).
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(BNLL, HandValues) {
    auto y = run_values("BNLL", ParamDict(), {0.f, 100.f, -100.f, 1.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_NEAR(y[0], std::log(2.0), 1e-7);
    EXPECT_EQ(y[1], 100.f);
    EXPECT_NEAR(y[2], 0.f, 1e-30);
    EXPECT_NEAR(y[3], 1.3132616875182228, 1e-6);
}

TEST(BNLL, EveryRank) {
    expect_elementwise("BNLL", ParamDict(), [](double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); },
                       -10.f, 10.f, 1e-5f, 1e-6f);
}
