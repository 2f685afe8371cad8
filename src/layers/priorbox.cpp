// PriorBox (ncnn src/layer/priorbox.cpp): SSD anchor boxes for every cell of a feature map.
// Params: 0 min_sizes, 1 max_sizes, 2 aspect_ratios (float arrays), 3-6 variances (0.1, 0.1,
// 0.2, 0.2), 7 flip (1), 8 clip (0), 9 image_width, 10 image_height (int, default 0; -233 = take
// it from the second input), 11 step_width, 12 step_height (float, -233 = image size / feature
// size), 13 offset (0), 14 step_mmdetection (0), 15 center_mmdetection (0). No weights.
// Inputs: the feature map (its w and h count the cells) and, optionally, the image (its w and h).
//
// Caffe style (mobilenet_ssd): output [2, 4 * w * h * num_prior]; row 0 holds the boxes as
// xmin, ymin, xmax, ymax divided by the image size, row 1 the four variances per box. Cell (i, j)
// is centred at (offset * step_w + j * step_w, offset * step_h + i * step_h) (x accumulated cell by
// cell in float, as ncnn does); per min size k, in order: the min_size square, the
// sqrt(min_size * max_size[k]) square (when max sizes are given), then per aspect ratio ar the
// box min_size * sqrt(ar) wide and min_size / sqrt(ar) high, followed by its transpose when flip
// is set (Caffe's ratio list 1, ar, 1/ar). num_prior = n_min * (1 + n_ar * (1 + flip)) + n_max.
// step_mmdetection rounds the default step up; center_mmdetection centres cells at
// offset * (step - 1) instead of offset * step. clip clamps row 0 to [0, 1].
//
// MXNet style (_contrib_MultiBoxPrior): chosen when there is one input, both image sizes are -233
// and there are no max sizes. Output [4 * w * h * num_prior] with num_prior = n_sizes - 1 + n_ratios:
// per cell (centred at offset * step + index * step, step default 1 / extent) the boxes of every
// size at ratio 1, then the first size at ratios[1...]; half extents size * h / w / 2 * sqrt(r)
// and size / 2 / sqrt(r). No variances.
#include <algorithm>
#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

class PriorBox : public Layer {
public:
    std::vector<float> min_sizes, max_sizes, aspect_ratios;
    float variances[4] = {0.1f, 0.1f, 0.2f, 0.2f};
    int flip = 1, clip = 0;
    int image_width = 0, image_height = 0;
    float step_width = -233.f, step_height = -233.f;
    float offset = 0.f;
    int step_mmdetection = 0, center_mmdetection = 0;

    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(PriorBox,
                   NF_PARAM(0, min_sizes),
                   NF_PARAM(1, max_sizes),
                   NF_PARAM(2, aspect_ratios),
                   {3, "variances[0]", &PriorBox::variances, 0},
                   {4, "variances[1]", &PriorBox::variances, 1},
                   {5, "variances[2]", &PriorBox::variances, 2},
                   {6, "variances[3]", &PriorBox::variances, 3},
                   NF_PARAM(7, flip),
                   NF_PARAM(8, clip),
                   NF_PARAM(9, image_width),
                   NF_PARAM(10, image_height),
                   NF_PARAM(11, step_width),
                   NF_PARAM(12, step_height),
                   NF_PARAM(13, offset),
                   NF_PARAM(14, step_mmdetection),
                   NF_PARAM(15, center_mmdetection))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (min_sizes.empty())
            return invalid_model("PriorBox needs min_sizes (param 0)");
        for (float v : min_sizes)
            if (!(v > 0.f) || !std::isfinite(v))
                return invalid_model("PriorBox min_sizes (param 0) must be positive, got " + std::to_string(v));
        for (float v : max_sizes)
            if (!(v > 0.f) || !std::isfinite(v))
                return invalid_model("PriorBox max_sizes (param 1) must be positive, got " + std::to_string(v));
        for (float v : aspect_ratios)
            if (!(v > 0.f) || !std::isfinite(v))
                return invalid_model("PriorBox aspect_ratios (param 2) must be positive, got " + std::to_string(v));
        if (!max_sizes.empty() && max_sizes.size() != min_sizes.size())
            return invalid_model("PriorBox max_sizes (param 1) needs one value per min size (" +
                                 std::to_string(min_sizes.size()) + "), got " + std::to_string(max_sizes.size()));
        if (min_sizes.size() > 4096 || max_sizes.size() > 4096 || aspect_ratios.size() > 4096)
            return invalid_model("PriorBox has too many sizes or ratios");
        for (int v : {image_width, image_height})
            if (v != -233 && v <= 0)
                return invalid_model("PriorBox image_width/image_height (params 9, 10) must be positive or -233 (from "
                                     "the second input), got " + std::to_string(v));
        for (float v : {step_width, step_height})
            if (v != -233.f && !(v > 0.f && std::isfinite(v)))
                return invalid_model("PriorBox step_width/step_height (params 11, 12) must be positive or -233, got " +
                                     std::to_string(v));
        if (!std::isfinite(offset))
            return invalid_model("PriorBox offset (param 13) is not finite");
        return Status::ok();
    }

    bool mxnet_possible() const { return image_width == -233 && image_height == -233 && max_sizes.empty(); }
    bool mxnet(size_t nbottoms) const { return nbottoms == 1 && mxnet_possible(); }

    int64_t num_prior(bool mx) const {
        const int64_t nmin = (int64_t)min_sizes.size(), nmax = (int64_t)max_sizes.size(),
                      nar = (int64_t)aspect_ratios.size();
        if (mx)
            return nmin - 1 + nar;
        return nmin * nar + nmin + nmax + (flip ? nmin * nar : 0);
    }

    Status out_shape(const std::vector<Shape>& in, Shape& out) const {
        if (in.empty() || in.size() > 2)
            return shape_mismatch("PriorBox takes the feature map and optionally the image, got " +
                                  std::to_string(in.size()) + " inputs");
        for (auto& s : in)
            if (s.dims < 1 || s.dims > 4)
                return shape_mismatch("PriorBox needs 1D-4D inputs, got " + s.str());
        const bool mx = mxnet(in.size());
        if (mx && aspect_ratios.empty())
            return invalid_model("PriorBox in MXNet style (one input, image size -233, no max sizes) needs "
                                  "aspect_ratios (param 2), the first being ratio 1");
        if (!mx && (image_width == -233 || image_height == -233) && in.size() < 2)
            return shape_mismatch("PriorBox takes the image size from a second input (image_width/image_height are "
                                  "-233), but it has one input");
        const int64_t n = 4 * (int64_t)in[0].w * in[0].h * num_prior(mx);
        if (n <= 0 || n > INT32_MAX)
            return shape_mismatch("PriorBox output for feature map " + in[0].str() + " is empty or too large");
        out = mx ? Shape::d1((int)n) : Shape::d2((int)n, 2);
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        Shape s;
        NF_RETURN_IF_ERROR(out_shape(bottoms, s));
        tops.assign(1, s);
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const std::vector<Shape> in = shapes_of(bottoms);
        Shape os;
        NF_RETURN_IF_ERROR(out_shape(in, os));
        const int w = in[0].w, h = in[0].h;
        Mat top;
        NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
        const int np = (int)num_prior(mxnet(in.size()));
        if (mxnet(in.size())) {
            const float step_w = step_width == -233.f ? 1.f / (float)w : step_width;
            const float step_h = step_height == -233.f ? 1.f / (float)h : step_height;
            for (int i = 0; i < h; i++) {
                float* box = top.data + (size_t)i * w * np * 4;
                float cx = offset * step_w;
                const float cy = offset * step_h + i * step_h;
                for (int j = 0; j < w; j++) {
                    for (float size : min_sizes) {
                        const float cw = size * h / w / 2, ch = size / 2;
                        box[0] = cx - cw;
                        box[1] = cy - ch;
                        box[2] = cx + cw;
                        box[3] = cy + ch;
                        box += 4;
                    }
                    const float size = min_sizes[0];
                    for (size_t p = 1; p < aspect_ratios.size(); p++) {
                        const float ratio = (float)std::sqrt((double)aspect_ratios[p]);
                        const float cw = size * h / w * ratio / 2, ch = size / ratio / 2;
                        box[0] = cx - cw;
                        box[1] = cy - ch;
                        box[2] = cx + cw;
                        box[3] = cy + ch;
                        box += 4;
                    }
                    cx += step_w;
                }
            }
            if (clip)
                for (size_t i = 0; i < top.total_floats(); i++)
                    top.data[i] = std::min(std::max(top.data[i], 0.f), 1.f);
            tops[0] = top;
            return Status::ok();
        }

        const int image_w = image_width == -233 ? in[1].w : image_width;
        const int image_h = image_height == -233 ? in[1].h : image_height;
        float step_w = step_width, step_h = step_height;
        if (step_w == -233.f)
            step_w = step_mmdetection ? std::ceil((float)image_w / w) : (float)image_w / w;
        if (step_h == -233.f)
            step_h = step_mmdetection ? std::ceil((float)image_h / h) : (float)image_h / h;
        const size_t nbox = (size_t)w * h * np;
        float* boxes = top.data;  // row 0
        for (int i = 0; i < h; i++) {
            float* box = boxes + (size_t)i * w * np * 4;
            float cx = offset * step_w;
            float cy = offset * step_h + i * step_h;
            if (center_mmdetection) {
                cx = offset * (step_w - 1);
                cy = offset * (step_h - 1) + i * step_h;
            }
            auto put = [&](float bw, float bh) {
                box[0] = (cx - bw * 0.5f) / image_w;
                box[1] = (cy - bh * 0.5f) / image_h;
                box[2] = (cx + bw * 0.5f) / image_w;
                box[3] = (cy + bh * 0.5f) / image_h;
                box += 4;
            };
            for (int j = 0; j < w; j++) {
                for (size_t k = 0; k < min_sizes.size(); k++) {
                    const float min_size = min_sizes[k];
                    put(min_size, min_size);
                    if (!max_sizes.empty()) {
                        const float s = (float)std::sqrt((double)(min_size * max_sizes[k]));
                        put(s, s);
                    }
                    for (float ar : aspect_ratios) {
                        // ncnn: min_size * sqrt(ar) in double, then rounded to float
                        const float bw = (float)(min_size * std::sqrt((double)ar));
                        const float bh = (float)(min_size / std::sqrt((double)ar));
                        put(bw, bh);
                        if (flip)
                            put(bh, bw);
                    }
                }
                cx += step_w;
            }
        }
        if (clip)
            for (size_t i = 0; i < nbox * 4; i++)
                boxes[i] = std::min(std::max(boxes[i], 0.f), 1.f);
        float* var = top.data + nbox * 4;  // row 1
        for (size_t i = 0; i < nbox; i++)
            for (int k = 0; k < 4; k++)
                var[i * 4 + k] = variances[k];
        tops[0] = top;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(PriorBox)

}  // namespace nnfold
