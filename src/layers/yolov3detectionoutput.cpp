// Yolov3DetectionOutput (ncnn src/layer/yolov3detectionoutput.cpp): YOLOv3/v4 heads + NMS.
// Params: 0 num_class (20), 1 num_box (5, boxes per input), 2 confidence_threshold (0.01),
// 3 nms_threshold (0.45), 4 biases (anchor w, h pairs in input pixels), 5 mask (anchor index per
// box, num_box per input), 6 anchors_scale (one per input: the network input size divided by this
// input's grid size). No weights. All three are float arrays; ncnn reads them as floats whatever
// tokens the file used, and yolov4-tiny stores mask as the bit patterns of 3.0, 4.0, ... written as
// ints (-23305=6,1077936128,...). The ParamDict keeps raw bits, so they read back as those floats.
// A mask value that is not a whole number (e.g. an int token 3, whose bits read as 4.2e-45) is
// refused instead of silently picking anchor 0 as ncnn would.
// Inputs: feature maps [num_box * (5 + num_class), h, w]; input b uses anchors
// mask[b * num_box .. b * num_box + num_box - 1] and net size (int)(anchors_scale[b] * w/h).
// Per cell (i, j) and box: best class = the first maximum of the raw class scores;
//   confidence = 1 / (1 + exp(-objectness) * (1 + exp(-best)))
// which is ncnn's expression, in its generic and x86 layers alike (the comment beside it says
// sigmoid(objectness) * sigmoid(best); the parentheses compute this instead: 1/3 rather than 0.25
// when both are 0). nnfold follows ncnn, so thresholds tuned on ncnn keep their meaning.
// Kept when confidence >= threshold;
//   cx = (j + sigmoid(x)) / w, cy = (i + sigmoid(y)) / h,
//   bw = exp(tw) * anchor_w / net_w, bh = exp(th) * anchor_h / net_h.
// All boxes (input, box, row, column order) are sorted by confidence (ncnn's quicksort) and go
// through one class-agnostic greedy NMS (IoU > nms_threshold drops, areas bw * bh). Output rows
// label, score, xmin, ymin, xmax, ymax with label = class + 1; none -> [0, 6].
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "layers/yolo_head.h"

namespace nnfold {

class Yolov3DetectionOutput : public YoloHead {
public:
    Yolov3DetectionOutput() : YoloHead("Yolov3DetectionOutput") { nms_form = NmsForm::ProductWithStoredArea; }

    std::vector<float> anchors_scale;
    std::vector<int> mask;  // anchor indices, from the float array

    NF_PARAM_TABLE(Yolov3DetectionOutput,
                   yolo_head_fields(),
                   {{5, "mask", ParamType::FloatArray, 0},  // read in load_param (validated)
                   NF_PARAM(6, anchors_scale)})

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        NF_RETURN_IF_ERROR(check_head_params());
        const size_t nanchor = biases.size() / 2;
        mask.clear();
        for (float m : pd.get_floats(5)) {
            if (!(m >= 0.f && m < (float)nanchor && m == std::floor(m))) {
                char buf[64];
                std::snprintf(buf, sizeof(buf), "%g", (double)m);
                return invalid_model("Yolov3DetectionOutput mask (param 5) value " + std::string(buf) +
                                     " is not the index of one of the " + std::to_string(nanchor) +
                                     " anchors in biases (param 4); mask values are floats (an int token like 3 "
                                     "reads as its bit pattern, 4.2e-45)");
            }
            mask.push_back((int)m);
        }
        if (mask.size() < (size_t)num_box)
            return invalid_model("Yolov3DetectionOutput mask (param 5) needs num_box (" + std::to_string(num_box) +
                                 ") anchor indices per input, got " + std::to_string(mask.size()));
        for (float s : anchors_scale)
            if (!(s > 0.f) || !std::isfinite(s))
                return invalid_model("Yolov3DetectionOutput anchors_scale (param 6) values must be positive");
        if (anchors_scale.empty())
            return invalid_model("Yolov3DetectionOutput needs anchors_scale (param 6), one per input");
        return Status::ok();
    }

protected:
    Status check(const std::vector<Shape>& in) const override {
        if (in.empty())
            return shape_mismatch("Yolov3DetectionOutput needs at least one input");
        if (mask.size() < in.size() * (size_t)num_box)
            return shape_mismatch("Yolov3DetectionOutput has " + std::to_string(in.size()) + " inputs but mask (param 5) "
                                  "holds anchors for " + std::to_string(mask.size() / num_box));
        if (anchors_scale.size() < in.size())
            return shape_mismatch("Yolov3DetectionOutput has " + std::to_string(in.size()) +
                                  " inputs but anchors_scale (param 6) has " + std::to_string(anchors_scale.size()) +
                                  " values");
        NF_RETURN_IF_ERROR(YoloHead::check(in));
        for (size_t b = 0; b < in.size(); b++) {
            const Shape& s = in[b];
            const float nw = anchors_scale[b] * s.w, nh = anchors_scale[b] * s.h;  // checked before the int cast
            if (!(nw >= 1.f && nh >= 1.f && nw < 1e9f && nh < 1e9f))
                return shape_mismatch("Yolov3DetectionOutput anchors_scale " + std::to_string(anchors_scale[b]) +
                                      " gives no usable network size for input " + s.str());
        }
        return Status::ok();
    }
    // Anchors in input pixels: box sizes are divided by the network size (int)(anchors_scale * w/h).
    Anchor anchor(size_t bi, int b, int w, int h) const override {
        const int a = mask[bi * num_box + b];
        const int net_w = (int)(anchors_scale[bi] * w), net_h = (int)(anchors_scale[bi] * h);
        return {biases[2 * a], biases[2 * a + 1], (float)net_w, (float)net_h};
    }
    // The first maximum of the raw class scores; ncnn's confidence expression (see above).
    void classify(const float* cls, size_t plane, float objectness, float*, int& best,
                  float& confidence) const override {
        best = 0;
        float best_s = -FLT_MAX;
        for (int q = 0; q < num_class; q++) {
            const float s = cls[q * plane];
            if (s > best_s) {
                best = q;
                best_s = s;
            }
        }
        confidence = 1.f / ((1.f + std::exp(-objectness) * (1.f + std::exp(-best_s))));
    }
};

NF_DEFINE_LAYER(Yolov3DetectionOutput)

}  // namespace nnfold
