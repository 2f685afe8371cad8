// Erf against erf in double.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Erf, HandValuesAndEveryRank) {
    auto y = run_values("Erf", ParamDict(), {0.f, 1.f, -1.f, 6.f});
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.8427007929497149, 1e-6);
    EXPECT_NEAR(y[2], -0.8427007929497149, 1e-6);
    EXPECT_EQ(y[3], 1.f);
    expect_elementwise("Erf", ParamDict(), [](double v) { return std::erf(v); }, -3.f, 3.f, 1e-5f, 1e-7f);
}
