// YoloDetectionOutput (ncnn src/layer/yolodetectionoutput.cpp): YOLOv2's region layer + NMS.
// Params: 0 num_class (20), 1 num_box (5), 2 confidence_threshold (0.01), 3 nms_threshold
// (0.45), 4 biases (float array: anchor w, h per box, in grid cells). No weights.
// Inputs: one or more feature maps [num_box * (5 + num_class), h, w]; per box the channels are
// x, y, w, h, objectness, then the class scores. Per cell (i, j) and box b:
//   class probabilities = softmax over the class channels; best class = the first maximum;
//   confidence = sigmoid(objectness) * best probability, kept when >= confidence_threshold;
//   cx = (j + sigmoid(x)) / w, cy = (i + sigmoid(y)) / h,
//   bw = exp(tw) * biases[2b] / w, bh = exp(th) * biases[2b+1] / h.
// All boxes of all inputs (in input, box, row, column order) are sorted by confidence (ncnn's
// quicksort) and go through one class-agnostic greedy NMS. Output rows label, score, xmin, ymin,
// xmax, ymax with label = class + 1 (0 is the background in ncnn's convention); none -> [0, 6].
// ncnn works in place, softmaxing its input and, when nothing is found, leaving that input as the
// output; nnfold never modifies its input and always returns detections.
#include <algorithm>
#include <cmath>

#include "layers/yolo_head.h"

namespace nnfold {

class YoloDetectionOutput : public YoloHead {
public:
    YoloDetectionOutput() : YoloHead("YoloDetectionOutput") {}

    NF_PARAM_TABLE(YoloDetectionOutput, yolo_head_fields())

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        NF_RETURN_IF_ERROR(check_head_params());
        if (biases.size() < (size_t)num_box * 2)
            return invalid_model("YoloDetectionOutput biases (param 4) needs a w and h for each of the " +
                                 std::to_string(num_box) + " boxes, got " + std::to_string(biases.size()) + " values");
        return Status::ok();
    }

protected:
    // Anchors in grid cells: box sizes are divided by the map's own size.
    Anchor anchor(size_t, int b, int w, int h) const override {
        return {biases[2 * b], biases[2 * b + 1], (float)w, (float)h};
    }
    // Softmax over the classes at this cell (ncnn's Softmax axis 0); the first maximum wins;
    // confidence = sigmoid(objectness) * its probability.
    void classify(const float* cls, size_t plane, float objectness, float* prob, int& best,
                  float& confidence) const override {
        float mx = -INFINITY;
        for (int q = 0; q < num_class; q++)
            mx = std::max(mx, cls[q * plane]);
        float sum = 0.f;
        for (int q = 0; q < num_class; q++) {
            prob[q] = std::exp(cls[q * plane] - mx);
            sum += prob[q];
        }
        best = 0;
        float best_p = 0.f;
        for (int q = 0; q < num_class; q++) {
            const float p = prob[q] / sum;
            if (p > best_p) {
                best = q;
                best_p = p;
            }
        }
        confidence = sigmoid(objectness) * best_p;
    }
};

NF_DEFINE_LAYER(YoloDetectionOutput)

}  // namespace nnfold
