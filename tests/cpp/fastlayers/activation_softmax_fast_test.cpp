// ReLU_fast, Clip_fast, HardSwish_fast, HardSigmoid_fast and Softmax_fast against the reference
// layers on odd sizes (1, 3, 5, 17 channels, widths around the 4- and 64-value steps of the SIMD
// loops and the thread ranges). The piecewise activations compute the reference's operations:
// the same values (tolerance 0; leaky ReLU may differ only in the sign of a zero); Softmax uses
// exp_fast: within 1e-4, along every axis of 1D-4D blobs. Parameters that take the reference path
// (Clip with min > max, HardSwish alpha 0) are compared too.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

ParamDict floats(std::initializer_list<std::pair<int, float>> fs) {
    ParamDict pd;
    for (auto& f : fs)
        pd.set_float(f.first, f.second);
    return pd;
}

std::vector<Shape> odd_shapes() {
    std::vector<Shape> v;
    for (int C : {1, 3, 5, 17})
        for (int W : {1, 3, 4, 5, 13, 67})
            v.push_back(Shape::d3(W, (W % 3) + 1, C));
    v.push_back(Shape::d1(1));
    v.push_back(Shape::d1(259));
    v.push_back(Shape::d2(9, 7));
    v.push_back(Shape::d4(5, 3, 2, 3));
    return v;
}

}  // namespace

TEST(ActivationFast, PiecewiseActivationsGiveTheReferenceValues) {
    uint32_t seed = 40;
    const std::vector<std::pair<std::string, ParamDict>> layers = {
        {"ReLU", ParamDict()},
        {"ReLU", floats({{0, 0.1f}})},
        {"ReLU", floats({{0, -0.3f}})},
        {"Clip", floats({{0, -0.25f}, {1, 0.5f}})},
        {"Clip", ParamDict()},                       // +-FLT_MAX: identity
        {"Clip", floats({{0, 0.5f}, {1, -0.5f}})},   // min > max: the reference path (every value max)
        {"HardSwish", ParamDict()},                  // alpha 1/6, beta 0.5
        {"HardSwish", floats({{0, 0.2f}, {1, 0.5f}})},
        {"HardSwish", floats({{0, 0.f}, {1, 0.5f}})},  // alpha 0: infinite/NaN breakpoints
        {"HardSigmoid", ParamDict()},
        {"HardSigmoid", floats({{0, 0.25f}, {1, 0.4f}})},
        {"HardSigmoid", floats({{0, 0.f}, {1, 0.3f}})},
    };
    for (auto& l : layers)
        for (const Shape& s : odd_shapes()) {
            SCOPED_TRACE(l.first + " " + s.str());
            // wide enough to cross every breakpoint (hardswish at +-3, hardsigmoid at +-2.5)
            compare(l.first, l.second, {rand_mat(s, seed++, -5.f, 5.f)}, 0.0);
        }
}

TEST(ActivationFast, SpecialValues) {
    // NaN, infinities, signed zeros and the breakpoints themselves, in vector lanes and in the tail
    const std::vector<float> special = {NAN, INFINITY, -INFINITY, 0.f, -0.f, 3.f, -3.f, 2.5f, -2.5f, 0.5f, -0.25f,
                                        1e30f, -1e30f};
    Mat m;
    ASSERT_TRUE(m.create(Shape::d1((int)special.size())).is_ok());
    std::copy(special.begin(), special.end(), m.data);
    for (const char* type : {"ReLU", "Clip", "HardSwish", "HardSigmoid"}) {
        SCOPED_TRACE(type);
        ParamDict pd = std::string(type) == "Clip" ? floats({{0, -0.25f}, {1, 0.5f}}) : ParamDict();
        auto ref = build(type, pd, {}, false), opt = build(type, pd, {}, true);
        ASSERT_TRUE(ref.st.is_ok() && opt.st.is_ok());
        std::vector<Mat> a, b;
        ASSERT_TRUE(run(*ref.layer, {m}, a).is_ok());
        ASSERT_TRUE(run(*opt.layer, {m}, b).is_ok());
        for (size_t i = 0; i < special.size(); i++) {
            const float x = a[0].data[i], y = b[0].data[i];
            EXPECT_TRUE((std::isnan(x) && std::isnan(y)) || x == y) << "at " << special[i] << ": " << x << " vs " << y;
        }
    }
}

TEST(SoftmaxFast, EveryAxisOnOddShapes) {
    uint32_t seed = 300;
    for (const Shape& s : odd_shapes())
        for (int axis = -s.dims; axis < s.dims; axis++) {
            SCOPED_TRACE("axis " + std::to_string(axis) + " " + s.str());
            compare("Softmax", params({{0, axis}, {1, 1}}), {rand_mat(s, seed++, -8.f, 8.f)}, 1e-4);
        }
    // large logits: the max subtraction keeps exp in range
    compare("Softmax", params({{0, 0}, {1, 1}}), {rand_mat(Shape::d3(7, 5, 17), seed++, -90.f, 90.f)}, 1e-4);
    compare("Softmax", params({{0, 2}, {1, 1}}), {rand_mat(Shape::d3(37, 2, 3), seed++, -90.f, 90.f)}, 1e-4);
}
