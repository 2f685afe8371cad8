// Threshold: 1 where x > threshold (strictly), else 0.
#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Threshold, HandValues) {
    expect_same_floats({0.f, 0.f, 1.f, 0.f}, run_values("Threshold", ParamDict(), {-1.f, 0.f, 0.5f, NAN}));
    expect_same_floats({0.f, 0.f, 1.f}, run_values("Threshold", fparams({{0, 0.5f}}), {0.f, 0.5f, 0.51f}));
    expect_elementwise("Threshold", fparams({{0, -0.2f}}), [](double v) { return v > -0.2f ? 1.0 : 0.0; }, -1.f, 1.f, 0.f,
                       0.f);
}
