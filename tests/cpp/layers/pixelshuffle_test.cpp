// PixelShuffle: a 2x2 case by hand for both modes, the index formulas on odd sizes, Reorg as its
// inverse, errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

Mat shuffle(int r, int mode, const Mat& in) {
    Built b = build("PixelShuffle", params({{0, r}, {1, mode}}));
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, {in});
}

}  // namespace

TEST(PixelShuffle, ByHand) {
    // 8 channels of one pixel, r = 2 -> 2 channels of 2x2
    Mat in = mat_of(Shape::d3(1, 1, 8), {0, 1, 2, 3, 4, 5, 6, 7});
    // mode 0 (PyTorch): channel p takes 4p .. 4p+3 in row-major order
    Mat a = shuffle(2, 0, in);
    EXPECT_EQ(a.shape(), Shape::d3(2, 2, 2));
    expect_near({0, 1, 2, 3, 4, 5, 6, 7}, a, 0, 0);
    // mode 1 (TensorFlow): channel p takes p, p+2, p+4, p+6
    expect_near({0, 2, 4, 6, 1, 3, 5, 7}, shuffle(2, 1, in), 0, 0);
}

TEST(PixelShuffle, FormulasOnOddSizes) {
    for (int r : {1, 2, 3})
        for (int mode : {0, 1}) {
            const int oc = 2, h = 3, w = 5;
            Mat in = rand_mat(Shape::d3(w, h, oc * r * r), 11 + r);
            Mat out = shuffle(r, mode, in);
            ASSERT_EQ(out.shape(), Shape::d3(w * r, h * r, oc));
            expect_near(expected_by_coord({oc, h * r, w * r},
                                          [&](const std::vector<int>& c) {
                                              const int p = c[0], sh = c[1] % r, sw = c[2] % r;
                                              const int q = mode == 0 ? p * r * r + sh * r + sw : (sh * r + sw) * oc + p;
                                              return at(in, {q, c[1] / r, c[2] / r});
                                          }),
                        out, 0, 0);
            // Reorg with the same mode undoes it
            Built back = build("Reorg", params({{0, r}, {1, mode}}));
            expect_near(vec(in), run1(*back.layer, {out}), 0, 0);
        }
}

TEST(PixelShuffle, Errors) {
    std::vector<Mat> out;
    Built b = build("PixelShuffle", params({{0, 2}}));
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 6), 1)}, out), ErrorCode::ShapeMismatch, "multiple of 4");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(2, 8), 1)}, out), ErrorCode::ShapeMismatch, "3D input");
    LT_EXPECT_ERROR(create_layer("PixelShuffle", false)->load_param(params({{0, 0}})), ErrorCode::InvalidModel,
                    "upscale_factor");
    LT_EXPECT_ERROR(create_layer("PixelShuffle", false)->load_param(params({{1, 2}})), ErrorCode::InvalidModel, "mode");
}
