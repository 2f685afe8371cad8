// GELU: the exact form against 0.5 x (1 + erf(x / sqrt 2)) in double, the tanh form against its
// formula in double (any non-zero fast_gelu selects it, as ncnn tests `if (fast_gelu)`).
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {
double gelu_exact(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
}  // namespace

TEST(GELU, HandValues) {
    auto y = run_values("GELU", ParamDict(), {0.f, 1.f, -1.f, 10.f, -10.f});
    ASSERT_EQ(y.size(), 5u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.8413447460685429, 1e-6);
    EXPECT_NEAR(y[2], -0.15865525393145707, 1e-6);
    EXPECT_NEAR(y[3], 10.f, 1e-5);
    EXPECT_NEAR(y[4], 0.f, 1e-6);
}

TEST(GELU, ExactAndFast) {
    expect_elementwise("GELU", ParamDict(), gelu_exact, -6.f, 6.f, 1e-5f, 1e-6f);
    expect_elementwise("GELU", params({{0, 1}}), gelu_tanh, -6.f, 6.f, 1e-5f, 1e-6f);
    expect_elementwise("GELU", params({{0, 2}}), gelu_tanh, -6.f, 6.f, 1e-5f, 1e-6f);
    // the two forms differ by up to ~5e-4 around |x| = 2.7: make sure each param picks its own
    auto exact = run_values("GELU", ParamDict(), {2.7f});
    auto fast = run_values("GELU", params({{0, 1}}), {2.7f});
    ASSERT_EQ(exact.size(), 1u);
    ASSERT_EQ(fast.size(), 1u);
    EXPECT_NEAR(exact[0], gelu_exact(2.7), 1e-6);
    EXPECT_NEAR(fast[0], gelu_tanh(2.7), 1e-6);
    EXPECT_GT(std::fabs(gelu_exact(2.7) - gelu_tanh(2.7)), 4e-4);
}
