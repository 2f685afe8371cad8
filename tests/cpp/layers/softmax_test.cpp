// Softmax against exp/sum in double over every axis of 1D-4D inputs (negative axes too), and
// ncnn's fixbug0 rule: axis != 0 without fixbug0=1 is refused.
#include <cmath>

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Softmax, EveryAxis) {
    const Shape shapes[] = {Shape::d1(7), Shape::d2(5, 3), Shape::d3(4, 3, 5), Shape::d4(3, 2, 4, 3)};
    uint32_t seed = 1;
    for (const Shape& s : shapes)
        for (int axis = -s.dims; axis < s.dims; axis++) {
            SCOPED_TRACE(s.str() + " axis " + std::to_string(axis));
            Built b = build("Softmax", params({{0, axis}, {1, 1}}));
            ASSERT_TRUE(b.st.is_ok()) << b.st.message();
            Mat in = rand_mat(s, ++seed, -4.f, 4.f);
            Mat out = run1(*b.layer, {in});
            const int a = axis < 0 ? axis + s.dims : axis;
            auto dims = s.to_list();
            size_t stride = 1;
            for (int i = a + 1; i < s.dims; i++)
                stride *= dims[i];
            const int len = dims[a];
            std::vector<float> want(in.total_floats());
            for (size_t i = 0; i < want.size(); i++) {
                // i's position along the axis, and the first element of its slice
                size_t pos = (i / stride) % len, first = i - pos * stride;
                double sum = 0;
                for (int k = 0; k < len; k++)
                    sum += std::exp((double)in.data[first + k * stride]);
                want[i] = (float)(std::exp((double)in.data[i]) / sum);
            }
            expect_near(want, out, 1e-5f, 1e-6f);
        }
}

TEST(Softmax, Fixbug0AndErrors) {
    auto load = [](ParamDict pd) { return create_layer("Softmax", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 1}})), ErrorCode::InvalidModel, "fixbug0");
    LT_EXPECT_ERROR(load(params({{0, -1}})), ErrorCode::InvalidModel, "fixbug0");
    EXPECT_TRUE(load(params({{0, 0}})).is_ok());  // axis 0 was always right
    EXPECT_TRUE(load(params({{0, 1}, {1, 1}})).is_ok());
    // vision_transformer: Softmax 0=0 1=1 on the [1, 1000] scores normalizes along h (size 1)
    Built b = build("Softmax", params({{0, 0}, {1, 1}}));
    Mat ones = run1(*b.layer, {rand_mat(Shape::d2(5, 1), 3)});
    expect_near({1, 1, 1, 1, 1}, ones, 0, 0);
    Built c = build("Softmax", params({{0, 3}, {1, 1}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*c.layer, {rand_mat(Shape::d3(2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "axis");
}
