// ELU: ncnn's default alpha 0.1 and an explicit 1.0.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(ELU, HandValues) {
    auto y = run_values("ELU", ParamDict(), {2.f, 0.f, -1.f, -100.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], 2.f);
    EXPECT_EQ(y[1], 0.f);
    EXPECT_NEAR(y[2], 0.1 * (std::exp(-1.0) - 1.0), 1e-7);
    EXPECT_NEAR(y[3], -0.1f, 1e-7);
}

TEST(ELU, EveryRank) {
    expect_elementwise("ELU", ParamDict(), [](double v) { return v < 0 ? 0.1 * std::expm1(v) : v; }, -4.f, 4.f, 1e-5f,
                       1e-7f);
    expect_elementwise("ELU", fparams({{0, 1.f}}), [](double v) { return v < 0 ? std::expm1(v) : v; }, -4.f, 4.f, 1e-5f,
                       1e-7f);
}
