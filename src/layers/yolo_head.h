// The part YoloDetectionOutput (YOLOv2) and Yolov3DetectionOutput (YOLOv3/v4) share: params 0-4,
// the feature-map checks, the walk over inputs x boxes x cells, the box decode and the final
// sort + class-agnostic NMS. Each head supplies only what differs: its per-input anchors and
// divisors (anchor()), and how a cell's class scores become a label and a confidence (classify()).
//
// Decode, per cell (i, j) of a w x h map and box b with anchor (aw, ah) and divisors (dw, dh):
//   cx = (j + sigmoid(x)) / w, cy = (i + sigmoid(y)) / h,
//   bw = exp(tw) * aw / dw,    bh = exp(th) * ah / dh,
// the box is [cx - bw/2, cy - bh/2, cx + bw/2, cy + bh/2] with area bw * bh, in ncnn's float order.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "layers/detection_common.h"
#include "layers/param_table.h"

namespace nnfold {

class YoloHead : public Layer {
public:
    explicit YoloHead(const char* type_name) : name_(type_name) {}

    int num_class = 20;
    int num_box = 5;
    float confidence_threshold = 0.01f;
    float nms_threshold = 0.45f;
    std::vector<float> biases;

    int expected_tops() const override { return 1; }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;

    static float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

protected:
    // Anchor size and the divisors of bw / bh for box b of input bi (a w x h map).
    struct Anchor {
        float w = 0.f, h = 0.f;
        float div_w = 1.f, div_h = 1.f;
    };
    virtual Anchor anchor(size_t bi, int b, int w, int h) const = 0;
    // The cell's class scores (channel q at class[q * plane]) -> label index and confidence, given
    // the objectness logit. `scratch` has num_class floats.
    virtual void classify(const float* cls, size_t plane, float objectness, float* scratch, int& best,
                          float& confidence) const = 0;
    // The shape checks (this class checks the maps; the v3 head adds its per-input params).
    virtual Status check(const std::vector<Shape>& in) const;
    NmsForm nms_form = NmsForm::AreaFromCorners;

    // The checks of params 0 num_class, 1 num_box, 2 confidence_threshold, 3 nms_threshold (read
    // by the type's param table, which starts with yolo_head_fields()).
    Status check_head_params() const;
    const char* name_;
};

// Params 0-4, which both heads' tables start with.
const std::vector<ParamField<YoloHead>>& yolo_head_fields();

}  // namespace nnfold
