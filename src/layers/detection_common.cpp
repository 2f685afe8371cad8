#include "layers/detection_common.h"

#include <algorithm>
#include <utility>

#include "core/parallel.h"

namespace nnfold {

void ncnn_sort_descending(std::vector<DetBox>& boxes) {
    if (boxes.size() < 2)
        return;
    // ncnn recurses into [left, j] and then [i, right]. The two ranges are disjoint, so working
    // through them from an explicit stack gives the same final order without deep recursion (a
    // head can sort tens of thousands of boxes; wasm stacks are small).
    std::vector<std::pair<int, int>> todo;
    todo.emplace_back(0, (int)boxes.size() - 1);
    while (!todo.empty()) {
        const int left = todo.back().first, right = todo.back().second;
        todo.pop_back();
        int i = left, j = right;
        const float p = boxes[(left + right) / 2].score;
        while (i <= j) {
            // The bounds checks never trigger for ncnn's partition (the pivot and swapped
            // elements stop both scans); they only make the loop safe by construction.
            while (i < right && boxes[i].score > p)
                i++;
            while (j > left && boxes[j].score < p)
                j--;
            if (i <= j) {
                std::swap(boxes[i], boxes[j]);
                i++;
                j--;
            }
        }
        // pushed in reverse so that [left, j] is handled first, as ncnn's recursion does
        if (i < right)
            todo.emplace_back(i, right);
        if (left < j)
            todo.emplace_back(left, j);
    }
}

static float intersection_area(const DetBox& a, const DetBox& b) {
    if (a.xmin > b.xmax || a.xmax < b.xmin || a.ymin > b.ymax || a.ymax < b.ymin)
        return 0.f;
    const float iw = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
    const float ih = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
    return iw * ih;
}

std::vector<size_t> nms_sorted(const std::vector<DetBox>& boxes, float threshold, NmsForm form) {
    std::vector<size_t> picked;
    const size_t n = boxes.size();
    std::vector<float> areas(n);
    for (size_t i = 0; i < n; i++)
        areas[i] = form == NmsForm::AreaFromCorners ? (boxes[i].xmax - boxes[i].xmin) * (boxes[i].ymax - boxes[i].ymin)
                                                    : boxes[i].area;
    // box i overlaps box j beyond the threshold (one expression whatever thread evaluates it)
    auto overlaps = [&](size_t i, size_t j) {
        const float inter = intersection_area(boxes[i], boxes[j]);
        const float uni = areas[i] + areas[j] - inter;
        return form == NmsForm::AreaFromCorners ? inter / uni > threshold : inter > threshold * uni;
    };
    // Box i is kept iff no kept box before it overlaps it: a yes/no over a set, so the boxes can be
    // checked in blocks: first, in parallel and each box on its own, against the boxes kept before
    // the block, and (when that leaves it standing) against every earlier box of its block, one
    // flag per pair; then in order, reading only those flags, against the boxes kept inside the
    // block. Random-weight heads keep most of thousands of boxes, which made this O(boxes x kept)
    // loop a serial tenth of yolov4-tiny; with the in-block pairs also computed in parallel only
    // the flag reads stay serial. Each flag is the same expression, overlaps(candidate, earlier),
    // as the serial loop's, so the kept set is exactly the serial loop's.
    constexpr size_t kBlock = 128;
    std::vector<unsigned char> suppressed(kBlock), pair(kBlock * kBlock);
    std::vector<size_t> kept_in_block;
    for (size_t i0 = 0; i0 < n; i0 += kBlock) {
        const size_t i1 = std::min(n, i0 + kBlock), before = picked.size();
        parallel_for((int64_t)(i1 - i0), parallel_grain((int64_t)(before + kBlock / 2) * 16 + 1),
                     [&](int64_t b, int64_t e) {
            for (int64_t t = b; t < e; t++) {
                const size_t i = i0 + (size_t)t;
                bool hit = false;
                for (size_t k = 0; k < before && !hit; k++)
                    hit = overlaps(i, picked[k]);
                suppressed[(size_t)t] = hit;
                if (!hit)
                    for (size_t j = 0; j < (size_t)t; j++)
                        pair[(size_t)t * kBlock + j] = overlaps(i, i0 + j);
            }
        });
        kept_in_block.clear();
        for (size_t t = 0; t < i1 - i0; t++) {
            bool keep = !suppressed[t];
            for (size_t k = 0; k < kept_in_block.size() && keep; k++)
                keep = !pair[t * kBlock + kept_in_block[k]];
            if (keep) {
                kept_in_block.push_back(t);
                picked.push_back(i0 + t);
            }
        }
    }
    return picked;
}

Mat empty_detections() {
    Mat m;
    m.dims = 2;
    m.w = 6;
    return m;
}

Status detection_rows(const std::vector<DetBox>& boxes, Mat& top, Allocator* alloc) {
    if (boxes.empty()) {
        top = empty_detections();
        return Status::ok();
    }
    if (boxes.size() > (size_t)INT32_MAX)
        return resource_limit("too many detections");
    Mat m;
    NF_RETURN_IF_ERROR(m.create(Shape::d2(6, (int)boxes.size()), alloc));
    for (size_t i = 0; i < boxes.size(); i++) {
        float* r = m.data + i * 6;
        r[0] = (float)boxes[i].label;
        r[1] = boxes[i].score;
        r[2] = boxes[i].xmin;
        r[3] = boxes[i].ymin;
        r[4] = boxes[i].xmax;
        r[5] = boxes[i].ymax;
    }
    top = m;
    return Status::ok();
}

}  // namespace nnfold
