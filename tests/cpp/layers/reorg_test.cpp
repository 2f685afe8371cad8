// Reorg: a 2x2 case by hand for both modes, the index formulas on odd sizes, errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

Mat reorg(int s, int mode, const Mat& in) {
    Built b = build("Reorg", params({{0, s}, {1, mode}}));
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, {in});
}

}  // namespace

TEST(Reorg, ByHand) {
    // 2 channels of 2x2 -> 8 channels of one pixel
    Mat in = mat_of(Shape::d3(2, 2, 2), {0, 1, 2, 3, 10, 11, 12, 13});
    Mat a = reorg(2, 0, in);  // darknet: channel q's four pixels become channels 4q .. 4q+3
    EXPECT_EQ(a.shape(), Shape::d3(1, 1, 8));
    expect_near({0, 1, 2, 3, 10, 11, 12, 13}, a, 0, 0);
    // TensorFlow space_to_depth: per pixel position, all channels
    expect_near({0, 10, 1, 11, 2, 12, 3, 13}, reorg(2, 1, in), 0, 0);
}

TEST(Reorg, FormulasOnOddSizes) {
    for (int s : {1, 2, 3})
        for (int mode : {0, 1}) {
            const int c = 3, oh = 2, ow = 5;
            Mat in = rand_mat(Shape::d3(ow * s, oh * s, c), 21 + s);
            Mat out = reorg(s, mode, in);
            ASSERT_EQ(out.shape(), Shape::d3(ow, oh, c * s * s));
            expect_near(expected_by_coord({c * s * s, oh, ow},
                                          [&](const std::vector<int>& o) {
                                              const int p = o[0];
                                              const int q = mode == 0 ? p / (s * s) : p % c;
                                              const int k = mode == 0 ? p % (s * s) : p / c;  // sh * s + sw
                                              return at(in, {q, o[1] * s + k / s, o[2] * s + k % s});
                                          }),
                        out, 0, 0);
        }
}

TEST(Reorg, Errors) {
    std::vector<Mat> out;
    Built b = build("Reorg", params({{0, 2}}));
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(5, 4, 2), 1)}, out), ErrorCode::ShapeMismatch, "does not divide");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d4(4, 4, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "3D input");
    LT_EXPECT_ERROR(create_layer("Reorg", false)->load_param(params({{0, 0}})), ErrorCode::InvalidModel, "stride");
}
