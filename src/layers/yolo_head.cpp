#include "layers/yolo_head.h"

#include "core/parallel.h"

namespace nnfold {

const std::vector<ParamField<YoloHead>>& yolo_head_fields() {
    using Self = YoloHead;
    static const std::vector<ParamField<Self>> fields = {
        NF_PARAM(0, num_class),
        NF_PARAM(1, num_box),
        NF_PARAM(2, confidence_threshold),
        NF_PARAM(3, nms_threshold),
        NF_PARAM(4, biases),
    };
    return fields;
}

Status YoloHead::check_head_params() const {
    if (num_class < 1 || num_class > 65536)
        return invalid_model(std::string(name_) + " num_class (param 0) must be positive, got " +
                             std::to_string(num_class));
    if (num_box < 1 || num_box > 4096)
        return invalid_model(std::string(name_) + " num_box (param 1) must be positive, got " +
                             std::to_string(num_box));
    if (std::isnan(confidence_threshold) || std::isnan(nms_threshold))
        return invalid_model(std::string(name_) + " thresholds (params 2, 3) must be numbers");
    return Status::ok();
}

Status YoloHead::check(const std::vector<Shape>& in) const {
    if (in.empty())
        return shape_mismatch(std::string(name_) + " needs at least one input");
    const int64_t want = (int64_t)num_box * (5 + num_class);
    for (auto& s : in)
        if (s.dims != 3 || s.c != want)
            return shape_mismatch(std::string(name_) + " needs inputs [num_box * (5 + num_class) = " +
                                  std::to_string(want) + ", h, w], got " + s.str());
    return Status::ok();
}

Status YoloHead::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    NF_RETURN_IF_ERROR(check(bottoms));
    tops.assign(1, Shape::dynamic_shape(2, 6));
    return Status::ok();
}

Status YoloHead::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    const std::vector<Shape> in = shapes_of(bottoms);
    NF_RETURN_IF_ERROR(check(in));
    // Candidates are decoded per row (input, box, grid row), rows numbered in ncnn's loop order.
    // threads: ranges of rows, each row's boxes into its own list; the lists are joined in row
    // order afterwards, so the candidate order (which decides ties in the sort and so what NMS
    // keeps) is the serial loop's whatever the split.
    std::vector<size_t> first_row(bottoms.size() + 1, 0);
    for (size_t bi = 0; bi < bottoms.size(); bi++)
        first_row[bi + 1] = first_row[bi] + (size_t)num_box * in[bi].h;
    const size_t nrows = first_row.back();
    std::vector<std::vector<DetBox>> row_boxes(nrows);
    const int64_t row_cost = (int64_t)in[0].w * (num_class + 8);
    parallel_for((int64_t)nrows, parallel_grain(row_cost), [&](int64_t r0, int64_t r1) {
        std::vector<float> scratch((size_t)num_class);
        for (int64_t r = r0; r < r1; r++) {
            if (opt.cancel && *opt.cancel)
                return;
            size_t bi = 0;
            while ((size_t)r >= first_row[bi + 1])
                bi++;
            const int w = in[bi].w, h = in[bi].h;
            const size_t plane = (size_t)w * h;
            const int b = (int)(((size_t)r - first_row[bi]) / h), i = (int)(((size_t)r - first_row[bi]) % h);
            const Anchor a = anchor(bi, b, w, h);
            const float* ch = bottoms[bi].data + (size_t)b * (5 + num_class) * plane;
            std::vector<DetBox>& out = row_boxes[(size_t)r];
            for (int j = 0; j < w; j++) {
                const size_t at = (size_t)i * w + j;
                int best = 0;
                float confidence = 0.f;
                classify(ch + 5 * plane + at, plane, ch[4 * plane + at], scratch.data(), best, confidence);
                if (!(confidence >= confidence_threshold))
                    continue;
                const float cx = (j + sigmoid(ch[at])) / w;
                const float cy = (i + sigmoid(ch[plane + at])) / h;
                const float bw = std::exp(ch[2 * plane + at]) * a.w / a.div_w;
                const float bh = std::exp(ch[3 * plane + at]) * a.h / a.div_h;
                DetBox box;
                box.score = confidence;
                box.xmin = cx - bw * 0.5f;
                box.ymin = cy - bh * 0.5f;
                box.xmax = cx + bw * 0.5f;
                box.ymax = cy + bh * 0.5f;
                box.area = bw * bh;
                box.label = best + 1;
                out.push_back(box);
            }
        }
    });
    if (opt.cancel && *opt.cancel)
        return Status(ErrorCode::Cancelled, "cancelled");
    size_t count = 0;
    for (auto& rb : row_boxes)
        count += rb.size();
    std::vector<DetBox> all;
    all.reserve(count);
    for (auto& rb : row_boxes)
        all.insert(all.end(), rb.begin(), rb.end());
    ncnn_sort_descending(all);
    std::vector<DetBox> kept;
    for (size_t k : nms_sorted(all, nms_threshold, nms_form))
        kept.push_back(all[k]);
    return detection_rows(kept, tops[0], opt.blob_allocator);
}

}  // namespace nnfold
