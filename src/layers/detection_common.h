// Pieces shared by the detection heads (DetectionOutput, YoloDetectionOutput,
// Yolov3DetectionOutput): candidate boxes, ncnn's sort and greedy NMS, and the output rows.
//
// Output (ncnn's layout): a 2D tensor [n, 6], one row per detection, rows in descending score
// order: label, score, xmin, ymin, xmax, ymax (coordinates relative to the image, 0..1 when the
// boxes lie inside it). The row count depends on the data, so infer_shape returns
// Shape::dynamic_shape(2, 6).
//
// Nothing detected: ncnn leaves the top blob empty. nnfold represents that as a tensor of shape
// [0, 6]: a Mat with dims 2, w 6, h 0 and no data (empty() is true, total() is 0). The runtime
// gives the same Mat for any empty dynamic output, and the CLI summary then prints shape [0,6]
// with no values, so "nothing detected" is an ordinary result, never an error.
#pragma once

#include <cstddef>
#include <vector>

#include "core/mat.h"
#include "core/status.h"

namespace nnfold {

struct DetBox {
    float score = 0.f;
    float xmin = 0.f, ymin = 0.f, xmax = 0.f, ymax = 0.f;
    float area = 0.f;  // used by NmsForm::ProductWithStoredArea
    int label = 0;     // the value written to column 0
};

// Sorts by descending score with the same algorithm as ncnn's qsort_descent_inplace (Hoare
// partition around the middle element, recursing left then right). The algorithm is not stable:
// it is reproduced so that boxes with equal scores come out in ncnn's order, which decides what
// NMS keeps (a zoo model fed zeros gives thousands of equal scores).
void ncnn_sort_descending(std::vector<DetBox>& boxes);

// ncnn's NMS comes in two spellings that differ only in rounding at exact ties:
//  - AreaFromCorners: area = (xmax - xmin) * (ymax - ymin) computed here; drop a box when
//    inter / union > threshold (DetectionOutput, YoloDetectionOutput);
//  - ProductWithStoredArea: area from DetBox::area (w * h at decode time); drop when
//    inter > threshold * union (Yolov3DetectionOutput).
enum class NmsForm { AreaFromCorners, ProductWithStoredArea };

// Greedy NMS over boxes already sorted by descending score: a box is kept unless it overlaps a
// kept one by more than `threshold` IoU. Every class together (callers split by class when they
// need per-class NMS). Returns indices of kept boxes in order.
std::vector<size_t> nms_sorted(const std::vector<DetBox>& boxes, float threshold, NmsForm form);

// Writes the [n, 6] output rows (label, score, xmin, ymin, xmax, ymax); n == 0 gives the empty
// [0, 6] tensor described above.
Status detection_rows(const std::vector<DetBox>& boxes, Mat& top, Allocator* alloc);

// The empty result ([0, 6], no data).
Mat empty_detections();

}  // namespace nnfold
