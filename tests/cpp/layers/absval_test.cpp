// AbsVal: |x| by ncnn's `x < 0 ? -x : x`, so -0 and NaN pass through unchanged.
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(AbsVal, HandValues) {
    expect_same_floats({3.f, 3.f, 0.f, -0.f, INFINITY, NAN},
                       run_values("AbsVal", ParamDict(), {-3.f, 3.f, 0.f, -0.f, -INFINITY, NAN}), true);
    expect_elementwise("AbsVal", ParamDict(), [](double v) { return std::fabs(v); }, -3.f, 3.f, 0.f, 0.f);
}
