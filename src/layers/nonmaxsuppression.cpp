// nnfold.NonMaxSuppression (extension layer, docs/extension-layers.md): ONNX NonMaxSuppression as
// YOLO exports use it. ncnn's detection layers (DetectionOutput, Yolov3DetectionOutput) decode
// their own box formats and emit boxes, not ONNX's selected indices: hence a type of its own.
// For each batch b and class c, greedily (as onnxruntime's reference): the boxes whose score is
// above score_threshold (strictly, when has_score_threshold), highest score first, equal scores by
// the smaller box index; a box is dropped when its IoU with an already selected box of that class
// exceeds iou_threshold (a box of zero area, or a pair that does not intersect, suppresses
// nothing); at most max_output per class. The top is [K, 3] rows (b, c, box index) as float
// values, K data-dependent (0 gives an empty tensor), classes in order, each in selection order.
// Boxes: center_point_box 0 = [y1, x1, y2, x2] (any two opposite corners), 1 = [xc, yc, w, h].
// Params: 0 max_output (>= 0), 1 iou_threshold (float, in [0, 1]), 2 score_threshold (float),
// 3 has_score_threshold (0), 4 center_point_box (0), 5 batch (1).
// Bottoms: boxes (batch x N x 4 values), scores (batch x C x N values). Top: 2-D, w = 3.
#include <algorithm>
#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

class NonMaxSuppression : public Layer {
public:
    int max_output = 0, has_score_threshold = 0, center_point_box = 0, batch = 1;
    float iou_threshold = 0.f, score_threshold = 0.f;

    int expected_bottoms() const override { return 2; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(NonMaxSuppression,
                   NF_PARAM(0, max_output),
                   NF_PARAM(1, iou_threshold),
                   NF_PARAM(2, score_threshold),
                   NF_PARAM(3, has_score_threshold),
                   NF_PARAM(4, center_point_box),
                   NF_PARAM(5, batch))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (max_output < 0)
            return invalid_model("max_output (param 0) must not be negative, got " + std::to_string(max_output));
        if (!(iou_threshold >= 0.f && iou_threshold <= 1.f))
            return invalid_model("iou_threshold (param 1) must be in [0, 1], got " + std::to_string(iou_threshold));
        if (score_threshold != score_threshold)
            return invalid_model("score_threshold (param 2) is NaN");
        if ((has_score_threshold != 0 && has_score_threshold != 1) || (center_point_box != 0 && center_point_box != 1))
            return invalid_model("has_score_threshold and center_point_box (params 3, 4) must be 0 or 1");
        if (batch < 1)
            return invalid_model("batch (param 5) must be at least 1");
        return Status::ok();
    }

    Status sizes(const Shape& boxes, const Shape& scores, uint64_t& n, uint64_t& classes) const {
        const uint64_t bt = boxes.total(), st = scores.total();
        if (bt == 0 || bt % (4 * (uint64_t)batch) != 0)
            return shape_mismatch("nnfold.NonMaxSuppression: boxes " + boxes.str() + " are not " + std::to_string(batch) +
                                  " x N x 4 values");
        n = bt / 4 / (uint64_t)batch;
        if (st == 0 || st % (n * (uint64_t)batch) != 0)
            return shape_mismatch("nnfold.NonMaxSuppression: scores " + scores.str() + " are not " + std::to_string(batch) +
                                  " x C x " + std::to_string(n) + " values");
        classes = st / n / (uint64_t)batch;
        if ((uint64_t)batch * classes * std::min<uint64_t>(n, (uint64_t)max_output) * 3 > 0x7fffffff)
            return shape_mismatch("nnfold.NonMaxSuppression: up to " + std::to_string(batch) + " x " +
                                  std::to_string(classes) + " x " + std::to_string(n) + " selections do not fit a tensor");
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 2)
            return shape_mismatch("nnfold.NonMaxSuppression takes 2 inputs, got " + std::to_string(bottoms.size()));
        uint64_t n, classes;
        NF_RETURN_IF_ERROR(sizes(bottoms[0], bottoms[1], n, classes));
        tops.assign(1, Shape::dynamic_shape(2, 3));
        return Status::ok();
    }

    struct Box {
        float y1, x1, y2, x2;
    };

    Box corners(const float* p) const {
        Box b;
        if (center_point_box) {
            b.x1 = p[0] - p[2] / 2.f;
            b.x2 = p[0] + p[2] / 2.f;
            b.y1 = p[1] - p[3] / 2.f;
            b.y2 = p[1] + p[3] / 2.f;
        } else {
            b.y1 = std::min(p[0], p[2]);
            b.y2 = std::max(p[0], p[2]);
            b.x1 = std::min(p[1], p[3]);
            b.x2 = std::max(p[1], p[3]);
        }
        return b;
    }

    bool suppresses(const Box& a, const Box& b) const {
        const float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
        const float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
        if (iw <= 0.f || ih <= 0.f)
            return false;
        const float inter = iw * ih;
        const float area_a = (a.x2 - a.x1) * (a.y2 - a.y1), area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
        const float uni = area_a + area_b - inter;
        if (area_a <= 0.f || area_b <= 0.f || uni <= 0.f)
            return false;
        return inter / uni > iou_threshold;
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        uint64_t n, classes;
        NF_RETURN_IF_ERROR(sizes(bottoms[0].shape(), bottoms[1].shape(), n, classes));
        std::vector<float> rows;
        std::vector<int> cand, picked;
        std::vector<Box> boxes(n);
        for (int b = 0; b < batch; b++) {
            const float* bx = bottoms[0].data + (uint64_t)b * n * 4;
            for (uint64_t i = 0; i < n; i++)
                boxes[i] = corners(bx + i * 4);
            for (uint64_t c = 0; c < classes; c++) {
                const float* sc = bottoms[1].data + ((uint64_t)b * classes + c) * n;
                cand.clear();
                for (uint64_t i = 0; i < n; i++)
                    if (!has_score_threshold || sc[i] > score_threshold)
                        cand.push_back((int)i);
                // highest score first, equal scores by the smaller index (a total order: NaN scores
                // never pass a threshold; without one they sort last)
                std::sort(cand.begin(), cand.end(), [&](int x, int y) {
                    const float sx = sc[x], sy = sc[y];
                    const bool nx = sx != sx, ny = sy != sy;
                    if (nx != ny)
                        return ny;
                    if (!nx && sx != sy)
                        return sx > sy;
                    return x < y;
                });
                picked.clear();
                for (int i : cand) {
                    if ((int)picked.size() >= max_output)
                        break;
                    bool keep = true;
                    for (int p : picked)
                        if (suppresses(boxes[p], boxes[i])) {
                            keep = false;
                            break;
                        }
                    if (!keep)
                        continue;
                    picked.push_back(i);
                    rows.insert(rows.end(), {(float)b, (float)c, (float)i});
                }
            }
        }
        tops.resize(1);
        if (rows.empty()) {
            tops[0] = Mat();  // nothing selected: the runtime keeps an empty [0, 3]
            return Status::ok();
        }
        NF_RETURN_IF_ERROR(tops[0].create(Shape::d2(3, (int)(rows.size() / 3)), opt.blob_allocator));
        std::copy(rows.begin(), rows.end(), tops[0].data);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(NonMaxSuppression)

}  // namespace nnfold
