// HardSwish: ncnn's default alpha is 1/6 (its operators.md says 0.2; the code wins), so the
// default is PyTorch's hardswish x * relu6(x + 3) / 6; custom alpha/beta; alpha = 0.
#include <algorithm>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(HardSwish, DefaultIsPyTorchHardswish) {
    auto y = run_values("HardSwish", ParamDict(), {-4.f, -3.f, 0.f, 1.f, 3.f, 4.f});
    ASSERT_EQ(y.size(), 6u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.f, 1e-7);
    EXPECT_EQ(y[2], 0.f);
    EXPECT_NEAR(y[3], 1.0 * 4.0 / 6.0, 1e-6);
    EXPECT_NEAR(y[4], 3.f, 1e-6);
    EXPECT_EQ(y[5], 4.f);
    expect_elementwise("HardSwish", ParamDict(),
                       [](double v) { return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0; }, -5.f, 5.f, 1e-5f, 1e-6f);
}

TEST(HardSwish, CustomAlphaBeta) {
    // alpha 0.2, beta 0.5 (Keras/ncnn-doc style): breakpoints -2.5 and 2.5
    expect_elementwise("HardSwish", fparams({{0, 0.2f}, {1, 0.5f}}),
                       [](double v) { return v * std::min(std::max(v * 0.2 + 0.5, 0.0), 1.0); }, -4.f, 4.f, 1e-5f,
                       1e-6f);
    // alpha 0: ncnn's breakpoints become -inf / NaN and every x takes the middle branch x * beta
    auto y = run_values("HardSwish", fparams({{0, 0.f}, {1, 0.25f}}), {-8.f, 2.f});
    ASSERT_EQ(y.size(), 2u);
    EXPECT_EQ(y[0], -2.f);
    EXPECT_EQ(y[1], 0.5f);
}
