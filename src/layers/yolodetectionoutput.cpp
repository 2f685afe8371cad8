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

#include "layers/detection_common.h"
#include "layers/layer.h"

namespace nnfold {

class YoloDetectionOutput : public Layer {
public:
    int num_class = 20;
    int num_box = 5;
    float confidence_threshold = 0.01f;
    float nms_threshold = 0.45f;
    std::vector<float> biases;

    int expected_tops() const override { return 1; }

    Status load_param(const ParamDict& pd) override {
        num_class = pd.get_int(0, 20);
        num_box = pd.get_int(1, 5);
        confidence_threshold = pd.get_float(2, 0.01f);
        nms_threshold = pd.get_float(3, 0.45f);
        biases = pd.get_floats(4);
        if (num_class < 1 || num_class > 65536)
            return invalid_model("YoloDetectionOutput num_class (param 0) must be positive, got " + std::to_string(num_class));
        if (num_box < 1 || num_box > 4096)
            return invalid_model("YoloDetectionOutput num_box (param 1) must be positive, got " + std::to_string(num_box));
        if (biases.size() < (size_t)num_box * 2)
            return invalid_model("YoloDetectionOutput biases (param 4) needs a w and h for each of the " +
                                 std::to_string(num_box) + " boxes, got " + std::to_string(biases.size()) + " values");
        if (std::isnan(confidence_threshold) || std::isnan(nms_threshold))
            return invalid_model("YoloDetectionOutput thresholds (params 2, 3) must be numbers");
        return Status::ok();
    }

    Status check(const std::vector<Shape>& in) const {
        if (in.empty())
            return shape_mismatch("YoloDetectionOutput needs at least one input");
        const int64_t want = (int64_t)num_box * (5 + num_class);
        for (auto& s : in)
            if (s.dims != 3 || s.c != want)
                return shape_mismatch("YoloDetectionOutput needs inputs [num_box * (5 + num_class) = " +
                                      std::to_string(want) + ", h, w], got " + s.str());
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
        std::vector<float> prob((size_t)num_class);
        for (size_t bi = 0; bi < bottoms.size(); bi++) {
            const int w = in[bi].w, h = in[bi].h;
            const size_t plane = (size_t)w * h;
            for (int b = 0; b < num_box; b++) {
                if (opt.cancel && *opt.cancel)
                    return Status(ErrorCode::Cancelled, "cancelled");
                const float* ch = bottoms[bi].data + (size_t)b * (5 + num_class) * plane;
                const float bias_w = biases[2 * b], bias_h = biases[2 * b + 1];
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++) {
                        const size_t at = (size_t)i * w + j;
                        // softmax over the classes at this cell (ncnn's Softmax axis 0)
                        float mx = -INFINITY;
                        for (int q = 0; q < num_class; q++)
                            mx = std::max(mx, ch[(5 + q) * plane + at]);
                        float sum = 0.f;
                        for (int q = 0; q < num_class; q++) {
                            prob[q] = std::exp(ch[(5 + q) * plane + at] - mx);
                            sum += prob[q];
                        }
                        int best = 0;
                        float best_p = 0.f;
                        for (int q = 0; q < num_class; q++) {
                            const float p = prob[q] / sum;
                            if (p > best_p) {
                                best = q;
                                best_p = p;
                            }
                        }
                        const float confidence = sigmoid(ch[4 * plane + at]) * best_p;
                        if (!(confidence >= confidence_threshold))
                            continue;
                        const float cx = (j + sigmoid(ch[at])) / w;
                        const float cy = (i + sigmoid(ch[plane + at])) / h;
                        const float bw = std::exp(ch[2 * plane + at]) * bias_w / w;
                        const float bh = std::exp(ch[3 * plane + at]) * bias_h / h;
                        DetBox box;
                        box.score = confidence;
                        box.xmin = cx - bw * 0.5f;
                        box.ymin = cy - bh * 0.5f;
                        box.xmax = cx + bw * 0.5f;
                        box.ymax = cy + bh * 0.5f;
                        box.label = best + 1;
                        all.push_back(box);
                    }
            }
        }
        ncnn_sort_descending(all);
        std::vector<DetBox> kept;
        for (size_t k : nms_sorted(all, nms_threshold, NmsForm::AreaFromCorners))
            kept.push_back(all[k]);
        return detection_rows(kept, tops[0], opt.blob_allocator);
    }
};

NF_DEFINE_LAYER(YoloDetectionOutput,
                {0, "num_class", ParamType::Int, pint(20)},
                {1, "num_box", ParamType::Int, pint(5)},
                {2, "confidence_threshold", ParamType::Float, pfloat(0.01f)},
                {3, "nms_threshold", ParamType::Float, pfloat(0.45f)},
                {4, "biases", ParamType::FloatArray, 0})

}  // namespace nnfold
