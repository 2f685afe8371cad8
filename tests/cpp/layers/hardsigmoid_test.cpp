// HardSigmoid: clamp(x * alpha + beta, 0, 1) with ncnn's defaults 0.2 / 0.5 and custom values.
#include <algorithm>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(HardSigmoid, HandValues) {
    auto y = run_values("HardSigmoid", ParamDict(), {-3.f, -2.5f, 0.f, 1.f, 2.5f, 3.f});
    ASSERT_EQ(y.size(), 6u);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_NEAR(y[1], 0.f, 1e-7);
    EXPECT_EQ(y[2], 0.5f);
    EXPECT_NEAR(y[3], 0.7f, 1e-7);
    EXPECT_NEAR(y[4], 1.f, 1e-7);
    EXPECT_EQ(y[5], 1.f);
}

TEST(HardSigmoid, EveryRankAndParams) {
    expect_elementwise("HardSigmoid", ParamDict(),
                       [](double v) { return std::min(std::max(v * 0.2 + 0.5, 0.0), 1.0); }, -4.f, 4.f, 1e-5f, 1e-6f);
    // ONNX HardSigmoid default alpha 0.2 beta 0.5 written out, and PyTorch's 1/6, 0.5
    expect_elementwise("HardSigmoid", fparams({{0, 1.f / 6}, {1, 0.5f}}),
                       [](double v) { return std::min(std::max(v / 6.0 + 0.5, 0.0), 1.0); }, -4.f, 4.f, 1e-5f, 1e-6f);
}
