// DetectionOutput (ncnn src/layer/detectionoutput.cpp): SSD's decode + per-class NMS.
// Params: 0 num_class (default 0; -233 = MXNet layout), 1 nms_threshold (0.05), 2 nms_top_k (300),
// 3 keep_top_k (100), 4 confidence_threshold (0.5), 5-8 variances (0.1, 0.1, 0.2, 0.2; MXNet
// layout only). No weights.
// Inputs: location [4 * num_prior] (dx, dy, dw, dh per prior), confidence, and priorbox:
//  - Caffe layout: confidence [num_prior * num_class] (class innermost), priorbox [2, 4 * num_prior]
//    from PriorBox: row 0 boxes, row 1 their variances;
//  - MXNet layout: confidence [num_class, num_prior], priorbox [num_prior, 4]; variances from params.
// Decode (CENTER_SIZE): prior centre/size (pcx, pcy, pw, ph);
//   cx = v0 * dx * pw + pcx, cy = v1 * dy * ph + pcy, w = exp(v2 * dw) * pw, h = exp(v3 * dh) * ph.
// Per class 1..num_class-1 (0 is the background): boxes whose score > confidence_threshold,
// sorted by score (ncnn's quicksort), the first nms_top_k kept, greedy NMS at nms_threshold;
// then all classes together sorted again and cut to keep_top_k.
// Output: rows label, score, xmin, ymin, xmax, ymax (label = class index); none -> [0, 6] (see
// detection_common.h). ncnn skips decoding priors whose background score is >= 1 -
// confidence_threshold (their class scores cannot pass when the scores are a softmax); nnfold
// decodes every prior, which gives the same detections and never reads undefined boxes.
#include <cmath>

#include "layers/detection_common.h"
#include "layers/param_table.h"

namespace nnfold {

class DetectionOutput : public Layer {
public:
    int num_class = 0;
    float nms_threshold = 0.05f;
    int nms_top_k = 300;
    int keep_top_k = 100;
    float confidence_threshold = 0.5f;
    float variances[4] = {0.1f, 0.1f, 0.2f, 0.2f};

    int expected_bottoms() const override { return 3; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(DetectionOutput,
                   NF_PARAM(0, num_class),
                   NF_PARAM(1, nms_threshold),
                   NF_PARAM(2, nms_top_k),
                   NF_PARAM(3, keep_top_k),
                   NF_PARAM(4, confidence_threshold),
                   {5, "variances[0]", &DetectionOutput::variances, 0},
                   {6, "variances[1]", &DetectionOutput::variances, 1},
                   {7, "variances[2]", &DetectionOutput::variances, 2},
                   {8, "variances[3]", &DetectionOutput::variances, 3})

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (num_class != -233 && num_class < 1)
            return invalid_model("DetectionOutput num_class (param 0) must be positive (background included) or -233, got " +
                                 std::to_string(num_class));
        if (nms_top_k < 0)
            return invalid_model("DetectionOutput nms_top_k (param 2) must not be negative, got " + std::to_string(nms_top_k));
        if (keep_top_k < 0)
            return invalid_model("DetectionOutput keep_top_k (param 3) must not be negative, got " + std::to_string(keep_top_k));
        if (std::isnan(nms_threshold) || std::isnan(confidence_threshold))
            return invalid_model("DetectionOutput thresholds (params 1, 4) must be numbers");
        return Status::ok();
    }

    bool mxnet() const { return num_class == -233; }

    struct Dims {
        int num_prior = 0, num_class = 0;
    };

    Status dims(const std::vector<Shape>& in, Dims& d) const {
        if (in.size() != 3)
            return shape_mismatch("DetectionOutput takes location, confidence and priorbox, got " +
                                  std::to_string(in.size()) + " inputs");
        const Shape &loc = in[0], &conf = in[1], &pb = in[2];
        for (auto& s : in)
            if (s.dims < 1 || s.dims > 4 || !s.valid())
                return shape_mismatch("DetectionOutput needs 1D-4D inputs, got " + s.str());
        if (mxnet()) {
            if (pb.w != 4 || pb.total() != (uint64_t)pb.h * 4)
                return shape_mismatch("DetectionOutput (MXNet layout) needs priorbox [num_prior, 4], got " + pb.str());
            d.num_prior = pb.h;
            d.num_class = conf.dims >= 2 ? conf.h : 1;
            if (conf.total() != (uint64_t)d.num_class * d.num_prior || conf.w != d.num_prior)
                return shape_mismatch("DetectionOutput (MXNet layout) needs confidence [num_class, " +
                                      std::to_string(d.num_prior) + "], got " + conf.str());
        } else {
            if (pb.dims != 2 || pb.h < 2 || pb.w % 4 != 0)
                return shape_mismatch("DetectionOutput needs priorbox [2, 4 * num_prior] (boxes and variances), got " +
                                      pb.str());
            d.num_prior = pb.w / 4;
            d.num_class = num_class;
            if (conf.total() != (uint64_t)d.num_prior * d.num_class)
                return shape_mismatch("DetectionOutput confidence " + conf.str() + " should hold " +
                                      std::to_string(d.num_class) + " scores for each of the " +
                                      std::to_string(d.num_prior) + " priors");
        }
        if (loc.total() != (uint64_t)d.num_prior * 4)
            return shape_mismatch("DetectionOutput location " + loc.str() + " should hold 4 values for each of the " +
                                  std::to_string(d.num_prior) + " priors");
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        Dims d;
        NF_RETURN_IF_ERROR(dims(bottoms, d));
        tops.assign(1, Shape::dynamic_shape(2, 6));
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const std::vector<Shape> in = shapes_of(bottoms);
        Dims d;
        NF_RETURN_IF_ERROR(dims(in, d));
        const float* loc = bottoms[0].data;
        const float* conf = bottoms[1].data;
        const float* pbox = bottoms[2].data;
        const float* pvar = mxnet() ? nullptr : pbox + (size_t)d.num_prior * 4;  // row 1

        std::vector<DetBox> decoded((size_t)d.num_prior);
        for (int i = 0; i < d.num_prior; i++) {
            const float* l = loc + (size_t)i * 4;
            const float* pb = pbox + (size_t)i * 4;
            const float* var = pvar ? pvar + (size_t)i * 4 : variances;
            const float pw = pb[2] - pb[0], ph = pb[3] - pb[1];
            const float pcx = (pb[0] + pb[2]) * 0.5f, pcy = (pb[1] + pb[3]) * 0.5f;
            const float cx = var[0] * l[0] * pw + pcx;
            const float cy = var[1] * l[1] * ph + pcy;
            const float bw = std::exp(var[2] * l[2]) * pw;
            const float bh = std::exp(var[3] * l[3]) * ph;
            DetBox& b = decoded[i];
            b.xmin = cx - bw * 0.5f;
            b.ymin = cy - bh * 0.5f;
            b.xmax = cx + bw * 0.5f;
            b.ymax = cy + bh * 0.5f;
        }

        std::vector<DetBox> all;
        for (int c = 1; c < d.num_class; c++) {
            if (opt.cancel && *opt.cancel)
                return Status(ErrorCode::Cancelled, "cancelled");
            std::vector<DetBox> cls;
            for (int j = 0; j < d.num_prior; j++) {
                const float score = mxnet() ? conf[(size_t)c * d.num_prior + j] : conf[(size_t)j * d.num_class + c];
                if (score > confidence_threshold) {
                    DetBox b = decoded[j];
                    b.score = score;
                    b.label = c;
                    cls.push_back(b);
                }
            }
            ncnn_sort_descending(cls);
            if ((size_t)nms_top_k < cls.size())
                cls.resize(nms_top_k);
            for (size_t k : nms_sorted(cls, nms_threshold, NmsForm::AreaFromCorners))
                all.push_back(cls[k]);
        }
        ncnn_sort_descending(all);
        if ((size_t)keep_top_k < all.size())
            all.resize(keep_top_k);
        return detection_rows(all, tops[0], opt.blob_allocator);
    }
};

NF_DEFINE_LAYER(DetectionOutput)

}  // namespace nnfold
