// PriorBox: Caffe style by hand (two cells, min/max/ratio/flip, variances), the zoo's
// mobilenet_ssd head, explicit image size and steps, clip, the mmdetection step/centre variants,
// MXNet style by hand, errors.
#include <cmath>

#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

ParamDict caffe(std::vector<float> mins, std::vector<float> maxs, std::vector<float> ars) {
    ParamDict pd;
    pd.set_floats(0, mins);
    if (!maxs.empty())
        pd.set_floats(1, maxs);
    if (!ars.empty())
        pd.set_floats(2, ars);
    pd.set_int(9, -233);
    pd.set_int(10, -233);
    pd.set_float(13, 0.5f);
    return pd;
}

// A box centred at (cx, cy) of size bw x bh in an iw x ih image: xmin, ymin, xmax, ymax.
std::vector<double> box(double cx, double cy, double bw, double bh, double iw, double ih) {
    return {(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw, (cy + bh / 2) / ih};
}

void expect_boxes(const Mat& out, const std::vector<std::vector<double>>& boxes, double tol = 1e-6) {
    ASSERT_EQ(out.w, (int)boxes.size() * 4);
    for (size_t i = 0; i < boxes.size(); i++)
        for (int k = 0; k < 4; k++)
            EXPECT_NEAR(out.data[i * 4 + k], boxes[i][k], tol) << "box " << i << " coordinate " << k;
}

Mat prior(const ParamDict& pd, const std::vector<Mat>& in) {
    Built b = build("PriorBox", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, in);
}

}  // namespace

TEST(PriorBox, CaffeStyleByHand) {
    // feature map 2x1 (w=2, h=1) on a 100x50 image: steps 50 and 50, centres (25,25) and (75,25)
    Mat feat = rand_mat(Shape::d3(2, 1, 3), 1), image = rand_mat(Shape::d3(100, 50, 3), 2);
    Mat out = prior(caffe({10}, {20}, {2}), {feat, image});
    // per cell: min square, sqrt(10*20) square, ratio 2 (w 10*sqrt2, h 10/sqrt2), its flip
    EXPECT_EQ(out.shape(), Shape::d2(2 * 1 * 4 * 4, 2));
    const double s = std::sqrt(200.0), r = std::sqrt(2.0);
    std::vector<std::vector<double>> want;
    for (double cx : {25.0, 75.0}) {
        want.push_back(box(cx, 25, 10, 10, 100, 50));
        want.push_back(box(cx, 25, s, s, 100, 50));
        want.push_back(box(cx, 25, 10 * r, 10 / r, 100, 50));
        want.push_back(box(cx, 25, 10 / r, 10 * r, 100, 50));
    }
    expect_boxes(out, want);
    // row 1: the default variances for every box
    for (int i = 0; i < 8; i++) {
        EXPECT_FLOAT_EQ(out.data[32 + i * 4 + 0], 0.1f);
        EXPECT_FLOAT_EQ(out.data[32 + i * 4 + 1], 0.1f);
        EXPECT_FLOAT_EQ(out.data[32 + i * 4 + 2], 0.2f);
        EXPECT_FLOAT_EQ(out.data[32 + i * 4 + 3], 0.2f);
    }
    // flip off: no transposed boxes
    ParamDict noflip = caffe({10}, {20}, {2});
    noflip.set_int(7, 0);
    Mat nf = prior(noflip, {feat, image});
    expect_boxes(nf, {want[0], want[1], want[2], want[4], want[5], want[6]});
}

TEST(PriorBox, MobilenetSsdLastHead) {
    // conv17_2_mbox_priorbox: 1x1 feature map, 300x300 image, min 285, max 300, ratios 2, 3, flip
    Mat feat = rand_mat(Shape::d3(1, 1, 4), 1), image = rand_mat(Shape::d3(300, 300, 3), 2);
    Mat out = prior(caffe({285}, {300}, {2, 3}), {feat, image});
    EXPECT_EQ(out.shape(), Shape::d2(24, 2));  // the zoo's hint: 2,24,2
    const double s = std::sqrt(285.0 * 300.0);
    expect_boxes(out, {box(150, 150, 285, 285, 300, 300), box(150, 150, s, s, 300, 300),
                       box(150, 150, 285 * std::sqrt(2.0), 285 / std::sqrt(2.0), 300, 300),
                       box(150, 150, 285 / std::sqrt(2.0), 285 * std::sqrt(2.0), 300, 300),
                       box(150, 150, 285 * std::sqrt(3.0), 285 / std::sqrt(3.0), 300, 300),
                       box(150, 150, 285 / std::sqrt(3.0), 285 * std::sqrt(3.0), 300, 300)});
    // clip clamps row 0 to [0, 1]
    ParamDict c = caffe({285}, {300}, {2, 3});
    c.set_int(8, 1);
    Mat clipped = prior(c, {feat, image});
    for (int i = 0; i < 24; i++) {
        EXPECT_GE(clipped.data[i], 0.f);
        EXPECT_LE(clipped.data[i], 1.f);
        EXPECT_FLOAT_EQ(clipped.data[i], std::min(std::max(out.data[i], 0.f), 1.f));
    }
}

TEST(PriorBox, ExplicitImageAndSteps) {
    // one input: image size and steps from params; 3x2 cells, offset 0
    ParamDict pd;
    pd.set_floats(0, {8});
    pd.set_int(9, 64);
    pd.set_int(10, 32);
    pd.set_float(11, 20.f);
    pd.set_float(12, 16.f);
    pd.set_float(3, 0.5f);
    Mat out = prior(pd, {rand_mat(Shape::d2(3, 2), 1)});
    std::vector<std::vector<double>> want;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            want.push_back(box(j * 20.0, i * 16.0, 8, 8, 64, 32));
    expect_boxes(out, want);
    EXPECT_FLOAT_EQ(out.data[24], 0.5f);  // variance 0 from param 3
    // mmdetection: step = ceil(100 / 3) = 34; centre_mmdetection: offset * (step - 1)
    ParamDict mm = caffe({10}, {}, {});
    mm.set_int(14, 1);
    mm.set_int(15, 1);
    Mat o2 = prior(mm, {rand_mat(Shape::d2(3, 1), 1), rand_mat(Shape::d3(100, 40, 3), 2)});
    // h: step ceil(40 / 1) = 40, centre 0.5 * 39
    expect_boxes(o2, {box(16.5, 19.5, 10, 10, 100, 40), box(16.5 + 34, 19.5, 10, 10, 100, 40),
                      box(16.5 + 68, 19.5, 10, 10, 100, 40)});
}

TEST(PriorBox, MxnetStyleByHand) {
    // one input, image sizes -233, no max sizes: sizes relative to the image, 2x2 cells
    ParamDict pd;
    pd.set_floats(0, {0.2f, 0.4f});
    pd.set_floats(2, {1.f, 2.f});
    pd.set_int(9, -233);
    pd.set_int(10, -233);
    pd.set_float(13, 0.5f);
    Mat out = prior(pd, {rand_mat(Shape::d3(2, 2, 5), 1)});
    EXPECT_EQ(out.shape(), Shape::d1(2 * 2 * 3 * 4));  // num_prior = 2 sizes - 1 + 2 ratios
    const double r = std::sqrt(2.0);
    std::vector<std::vector<double>> want;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double cx = 0.25 + 0.5 * j, cy = 0.25 + 0.5 * i;
            want.push_back({cx - 0.1, cy - 0.1, cx + 0.1, cy + 0.1});
            want.push_back({cx - 0.2, cy - 0.2, cx + 0.2, cy + 0.2});
            want.push_back({cx - 0.1 * r, cy - 0.1 / r, cx + 0.1 * r, cy + 0.1 / r});
        }
    expect_boxes(out, want);
}

TEST(PriorBox, Errors) {
    std::vector<Mat> out;
    Built two = build("PriorBox", caffe({10}, {20}, {2}));
    LT_EXPECT_ERROR(run(*two.layer, {rand_mat(Shape::d3(2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch, "second input");
    auto l = create_layer("PriorBox", false);
    LT_EXPECT_ERROR(l->load_param(ParamDict()), ErrorCode::InvalidModel, "min_sizes");
    LT_EXPECT_ERROR(l->load_param(caffe({10, 20}, {30}, {})), ErrorCode::InvalidModel, "max_sizes");
    LT_EXPECT_ERROR(l->load_param(caffe({-1}, {}, {})), ErrorCode::InvalidModel, "min_sizes");
    LT_EXPECT_ERROR(l->load_param(caffe({10}, {}, {0})), ErrorCode::InvalidModel, "aspect_ratios");
    ParamDict zero = caffe({10}, {}, {});
    zero.set_int(9, 0);
    LT_EXPECT_ERROR(l->load_param(zero), ErrorCode::InvalidModel, "image_width");
    ParamDict mx = caffe({10}, {}, {});
    Built m = build("PriorBox", mx);
    LT_EXPECT_ERROR(run(*m.layer, {rand_mat(Shape::d3(2, 2, 2), 1)}, out), ErrorCode::InvalidModel, "MXNet");
}
