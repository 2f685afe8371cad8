// SELU with ncnn's default alpha/lambda and custom ones.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(SELU, DefaultsAndCustom) {
    const double alpha = 1.6732632423543772, lambda = 1.0507009873554805;
    expect_elementwise("SELU", ParamDict(), [&](double v) { return v < 0 ? lambda * alpha * std::expm1(v) : lambda * v; },
                       -4.f, 4.f, 1e-5f, 1e-6f);
    expect_elementwise("SELU", fparams({{0, 2.f}, {1, 0.5f}}), [](double v) { return v < 0 ? std::expm1(v) : 0.5 * v; },
                       -4.f, 4.f, 1e-5f, 1e-6f);
    auto y = run_values("SELU", ParamDict(), {0.f, 1.f});
    ASSERT_EQ(y.size(), 2u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_EQ(y[1], 1.050700987f);
}
