// YoloDetectionOutput (YOLOv2): two cells worked on paper (softmax class probabilities, sigmoid
// objectness, decode with anchors in grid units), the threshold, class-agnostic NMS, two inputs,
// nothing detected, errors.
#include <cmath>

#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// One box per cell, 2 classes: channels x, y, w, h, objectness, class 0, class 1; a 2x2 grid.
// Cell (0,0): objectness logit ln 9 (sigmoid 0.9), class logits (ln 3, 0) -> (0.75, 0.25):
//   confidence 0.675, class 0, centre (0.25, 0.25), size (2/2, 3/2) with anchor (2, 3).
// Cell (1,1): objectness 0 (0.5), class logits (0, ln 4) -> (0.2, 0.8): confidence 0.4, class 1,
//   x logit ln 3 (sigmoid 0.75): centre ((1 + 0.75)/2, 0.75), same size.
// Cells (0,1), (1,0): objectness -20, nothing.
Mat yolo_input() {
    std::vector<float> v(7 * 4, 0.f);
    auto set = [&](int ch, int i, int j, float x) { v[ch * 4 + i * 2 + j] = x; };
    set(4, 0, 0, std::log(9.f));
    set(5, 0, 0, std::log(3.f));
    set(4, 0, 1, -20.f);
    set(4, 1, 0, -20.f);
    set(6, 1, 1, std::log(4.f));
    set(0, 1, 1, std::log(3.f));
    return mat_of(Shape::d3(2, 2, 7), v);
}

ParamDict yolo_params(float conf = 0.01f, float nms = 0.45f) {
    ParamDict pd;
    pd.set_int(0, 2);
    pd.set_int(1, 1);
    pd.set_float(2, conf);
    pd.set_float(3, nms);
    pd.set_floats(4, {2.f, 3.f});
    return pd;
}

std::vector<Row> detect(const ParamDict& pd, const std::vector<Mat>& in) {
    Built b = build("YoloDetectionOutput", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Row> rows;
    Status st = run_detect(*b.layer, in, rows);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return rows;
}

const std::vector<double> kRow0 = {1, 0.675, 0.25 - 0.5, 0.25 - 0.75, 0.25 + 0.5, 0.25 + 0.75};
const std::vector<double> kRow1 = {2, 0.4, 0.875 - 0.5, 0.75 - 0.75, 0.875 + 0.5, 0.75 + 0.75};

}  // namespace

TEST(YoloDetectionOutput, TwoCellsOnPaper) {
    // the boxes overlap by 0.375 x 1.0 of 1.5 + 1.5: IoU 0.14, both kept; labels are class + 1
    auto rows = detect(yolo_params(0.3f), {yolo_input()});
    ASSERT_EQ(rows.size(), 2u);
    expect_row(rows[0], kRow0);
    expect_row(rows[1], kRow1);
    // threshold between the two confidences
    auto one = detect(yolo_params(0.5f), {yolo_input()});
    ASSERT_EQ(one.size(), 1u);
    expect_row(one[0], kRow0);
    // NMS across classes: IoU 0.14 > 0.1 drops the weaker box
    auto nms = detect(yolo_params(0.3f, 0.1f), {yolo_input()});
    ASSERT_EQ(nms.size(), 1u);
    expect_row(nms[0], kRow0);
}

TEST(YoloDetectionOutput, TwoInputsAndNothingDetected) {
    // the same map twice: every box twice, duplicates removed by NMS (IoU 1)
    auto rows = detect(yolo_params(0.3f), {yolo_input(), yolo_input()});
    ASSERT_EQ(rows.size(), 2u);
    expect_row(rows[0], kRow0);
    expect_row(rows[1], kRow1);
    EXPECT_TRUE(detect(yolo_params(0.99f), {yolo_input()}).empty());
}

TEST(YoloDetectionOutput, Errors) {
    std::vector<Row> rows;
    Built b = build("YoloDetectionOutput", yolo_params());
    LT_EXPECT_ERROR(run_detect(*b.layer, {rand_mat(Shape::d3(2, 2, 8), 1)}, rows), ErrorCode::ShapeMismatch,
                    "num_box * (5 + num_class) = 7");
    LT_EXPECT_ERROR(run_detect(*b.layer, {rand_mat(Shape::d2(2, 7), 1)}, rows), ErrorCode::ShapeMismatch, "[7,2]");
    ParamDict few = yolo_params();
    few.set_int(1, 2);
    LT_EXPECT_ERROR(create_layer("YoloDetectionOutput", false)->load_param(few), ErrorCode::InvalidModel, "biases");
}
