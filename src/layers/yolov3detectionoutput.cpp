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

#include "layers/detection_common.h"
#include "layers/layer.h"

namespace nnfold {

class Yolov3DetectionOutput : public Layer {
public:
    int num_class = 20;
    int num_box = 5;
    float confidence_threshold = 0.01f;
    float nms_threshold = 0.45f;
    std::vector<float> biases, anchors_scale;
    std::vector<int> mask;  // anchor indices, from the float array

    int expected_tops() const override { return 1; }

    Status load_param(const ParamDict& pd) override {
        num_class = pd.get_int(0, 20);
        num_box = pd.get_int(1, 5);
        confidence_threshold = pd.get_float(2, 0.01f);
        nms_threshold = pd.get_float(3, 0.45f);
        biases = pd.get_floats(4);
        anchors_scale = pd.get_floats(6);
        if (num_class < 1 || num_class > 65536)
            return invalid_model("Yolov3DetectionOutput num_class (param 0) must be positive, got " +
                                 std::to_string(num_class));
        if (num_box < 1 || num_box > 4096)
            return invalid_model("Yolov3DetectionOutput num_box (param 1) must be positive, got " + std::to_string(num_box));
        if (std::isnan(confidence_threshold) || std::isnan(nms_threshold))
            return invalid_model("Yolov3DetectionOutput thresholds (params 2, 3) must be numbers");
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

    Status check(const std::vector<Shape>& in) const {
        if (in.empty())
            return shape_mismatch("Yolov3DetectionOutput needs at least one input");
        if (mask.size() < in.size() * (size_t)num_box)
            return shape_mismatch("Yolov3DetectionOutput has " + std::to_string(in.size()) + " inputs but mask (param 5) "
                                  "holds anchors for " + std::to_string(mask.size() / num_box));
        if (anchors_scale.size() < in.size())
            return shape_mismatch("Yolov3DetectionOutput has " + std::to_string(in.size()) +
                                  " inputs but anchors_scale (param 6) has " + std::to_string(anchors_scale.size()) +
                                  " values");
        const int64_t want = (int64_t)num_box * (5 + num_class);
        for (size_t b = 0; b < in.size(); b++) {
            const Shape& s = in[b];
            if (s.dims != 3 || s.c != want)
                return shape_mismatch("Yolov3DetectionOutput needs inputs [num_box * (5 + num_class) = " +
                                      std::to_string(want) + ", h, w], got " + s.str());
            const float nw = anchors_scale[b] * s.w, nh = anchors_scale[b] * s.h;  // checked before the int cast
            if (!(nw >= 1.f && nh >= 1.f && nw < 1e9f && nh < 1e9f))
                return shape_mismatch("Yolov3DetectionOutput anchors_scale " + std::to_string(anchors_scale[b]) +
                                      " gives no usable network size for input " + s.str());
        }
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(check(bottoms));
        tops.assign(1, Shape::dynamic_shape(2, 6));
        return Status::ok();
    }

    static float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        std::vector<Shape> in;
        for (auto& m : bottoms)
            in.push_back(m.shape());
        NF_RETURN_IF_ERROR(check(in));
        std::vector<DetBox> all;
        for (size_t bi = 0; bi < bottoms.size(); bi++) {
            const int w = in[bi].w, h = in[bi].h;
            const size_t plane = (size_t)w * h;
            const int net_w = (int)(anchors_scale[bi] * w);
            const int net_h = (int)(anchors_scale[bi] * h);
            for (int b = 0; b < num_box; b++) {
                if (opt.cancel && *opt.cancel)
                    return Status(ErrorCode::Cancelled, "cancelled");
                const int anchor = mask[bi * num_box + b];
                const float bias_w = biases[2 * anchor], bias_h = biases[2 * anchor + 1];
                const float* ch = bottoms[bi].data + (size_t)b * (5 + num_class) * plane;
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++) {
                        const size_t at = (size_t)i * w + j;
                        int best = 0;
                        float best_s = -FLT_MAX;
                        for (int q = 0; q < num_class; q++) {
                            const float s = ch[(5 + q) * plane + at];
                            if (s > best_s) {
                                best = q;
                                best_s = s;
                            }
                        }
                        const float confidence =
                            1.f / ((1.f + std::exp(-ch[4 * plane + at]) * (1.f + std::exp(-best_s))));
                        if (!(confidence >= confidence_threshold))
                            continue;
                        const float cx = (j + sigmoid(ch[at])) / w;
                        const float cy = (i + sigmoid(ch[plane + at])) / h;
                        const float bw = std::exp(ch[2 * plane + at]) * bias_w / net_w;
                        const float bh = std::exp(ch[3 * plane + at]) * bias_h / net_h;
                        DetBox box;
                        box.score = confidence;
                        box.xmin = cx - bw * 0.5f;
                        box.ymin = cy - bh * 0.5f;
                        box.xmax = cx + bw * 0.5f;
                        box.ymax = cy + bh * 0.5f;
                        box.area = bw * bh;
                        box.label = best + 1;
                        all.push_back(box);
                    }
            }
        }
        ncnn_sort_descending(all);
        std::vector<DetBox> kept;
        for (size_t k : nms_sorted(all, nms_threshold, NmsForm::ProductWithStoredArea))
            kept.push_back(all[k]);
        return detection_rows(kept, tops[0], opt.blob_allocator);
    }
};

NF_DEFINE_LAYER(Yolov3DetectionOutput,
                {0, "num_class", ParamType::Int, pint(20)},
                {1, "num_box", ParamType::Int, pint(5)},
                {2, "confidence_threshold", ParamType::Float, pfloat(0.01f)},
                {3, "nms_threshold", ParamType::Float, pfloat(0.45f)},
                {4, "biases", ParamType::FloatArray, 0},
                {5, "mask", ParamType::FloatArray, 0},
                {6, "anchors_scale", ParamType::FloatArray, 0})

}  // namespace nnfold
