// Clip: ncnn's defaults clamp nothing; hand-checked clamping; min > max gives max (ncnn tests min
// first, then max); NaN passes through; every rank.
#include <cfloat>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Clip, HandValues) {
    const std::vector<float> x = {-FLT_MAX, -3.f, -0.5f, 0.f, 0.25f, 0.5f, 7.f, FLT_MAX, NAN};
    // defaults -FLT_MAX / FLT_MAX: identity
    expect_same_floats(x, run_values("Clip", ParamDict(), x));
    expect_same_floats({-0.5f, -0.5f, -0.5f, 0.f, 0.25f, 0.5f, 0.5f, 0.5f, NAN},
                       run_values("Clip", fparams({{0, -0.5f}, {1, 0.5f}}), x));
    // only a lower bound (ReLU6's other half)
    expect_same_floats({0.f, 0.f, 0.f, 0.f, 0.25f, 0.5f, 7.f, FLT_MAX, NAN}, run_values("Clip", fparams({{0, 0.f}}), x));
    // min > max: everything ends at max
    expect_same_floats({-1.f, -1.f, -1.f, -1.f, -1.f, -1.f, -1.f, -1.f, NAN},
                       run_values("Clip", fparams({{0, 1.f}, {1, -1.f}}), x));
}

TEST(Clip, EveryRank) {
    expect_elementwise("Clip", fparams({{0, -0.3f}, {1, 0.6f}}),
                       [](double v) { return v < -0.3f ? -0.3f : v > 0.6f ? 0.6f : v; }, -2.f, 2.f, 0.f, 0.f);
}
