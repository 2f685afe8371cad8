// LayerNorm against mean/variance computed in double: 1D, 2D rows (vision_transformer), 3D rows
// (affine_size == w) and 3D channels (affine_size == w*h), without affine; errors.
#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

std::vector<float> ln_ref(const Mat& in, int group, float eps, const std::vector<float>* g, const std::vector<float>* b) {
    std::vector<float> out;
    for (size_t s = 0; s < in.total_floats(); s += group) {
        double m = 0, v = 0;
        for (int i = 0; i < group; i++)
            m += in.data[s + i];
        m /= group;
        for (int i = 0; i < group; i++)
            v += (in.data[s + i] - m) * (in.data[s + i] - m);
        v /= group;
        for (int i = 0; i < group; i++) {
            double y = (in.data[s + i] - m) / std::sqrt(v + eps);
            out.push_back((float)(g ? y * (*g)[i] + (*b)[i] : y));
        }
    }
    return out;
}

}  // namespace

TEST(LayerNorm, GroupsAsNcnn) {
    struct Case {
        Shape s;
        int affine_size, group;
    };
    const Case cases[] = {
        {Shape::d1(17), 17, 17},
        {Shape::d2(12, 5), 12, 12},
        {Shape::d3(7, 3, 5), 7, 7},
        {Shape::d3(7, 3, 5), 21, 21},
        {Shape::d3(1, 1, 3), 1, 1},  // affine_size == w takes the row form
    };
    uint32_t seed = 10;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.s.str() + " affine_size " + std::to_string(c.affine_size));
        ParamDict pd = params({{0, c.affine_size}});
        pd.set_float(1, 1e-6f);
        auto w = random_weights("LayerNorm", pd, ++seed);
        ASSERT_EQ(w.size(), 2u);
        Built b = build("LayerNorm", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat in = rand_mat(c.s, ++seed, -3.f, 2.f);
        expect_near(ln_ref(in, c.group, 1e-6f, &w[0], &w[1]), run1(*b.layer, {in}), 1e-4f, 1e-4f);
    }
    // no affine: the default eps 0.001 and no weights; a 3D input whose affine_size is not w
    // normalizes each channel
    Built b = build("LayerNorm", params({{0, 5}, {2, 0}}));
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d3(4, 3, 2), 40);
    expect_near(ln_ref(in, 12, 0.001f, nullptr, nullptr), run1(*b.layer, {in}), 1e-4f, 1e-4f);
}

TEST(LayerNorm, BadParamsAndShapesAreErrors) {
    LT_EXPECT_ERROR(create_layer("LayerNorm", false)->load_param(params({{0, 0}})), ErrorCode::InvalidModel,
                    "affine_size");
    Built b = build("LayerNorm", params({{0, 6}}));
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(5, 2), 1)}, out), ErrorCode::ShapeMismatch, "affine_size");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(4, 3, 2), 1)}, out), ErrorCode::ShapeMismatch, "affine_size");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(6, 1, 1, 2), 1)}, out), ErrorCode::ShapeMismatch, "1D, 2D or 3D");
}
