// One quantizable layer run alone, in fp32 or int8 (the per-layer error of quantize_graph), and
// ncnn2table's EQ search (tools/quantize/ncnn2table.cpp quantize_EQ) on it: each weight scale and
// then the bottom scale tried at 100 points of [0.5, 2) x its KL value, keeping the one whose int8
// output is closest (summed cosine similarity over at most 50 samples) to the fp32 output.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/mat.h"
#include "core/status.h"
#include "layers/layer.h"
#include "model/graph.h"
#include "quant/int8_rewrite.h"

namespace nnfold {
namespace quant {

// A layer built alone from a node, as Net::load builds it (optimized implementation).
Status build_layer(const LayerNode& node, Allocator* alloc, std::unique_ptr<Layer>& out);
// Its one-input forward.
Status forward_layer(const Layer& l, const Mat& bottom, Allocator* alloc, Mat& top);
// The int8 form of an fp32 node (dequantizing: int8_scale_term 1 or 2) with these scales.
Status build_int8_layer(const LayerNode& fp32_node, const Int8Candidate& c, const std::vector<float>& weight_scales,
                        float bottom_scale, Allocator* alloc, std::unique_ptr<Layer>& out);

// EQ's weight scale search: row j (an output channel; a group of ConvolutionDepthWise) is searched
// with rows before it at their chosen scales and rows after at their starting ones, scored over
// the samples (`ins`, `outs`: the layer's fp32 inputs and outputs). `tick` is called after each row;
// false cancels (ErrorCode::Cancelled).
//
// ncnn runs the whole layer for every candidate. Changing row j's scale changes only row j's
// outputs, so here the similarity is kept as per-row partial sums (a.b and b.b per row, a.a per
// sample) and each candidate computes only row j (a one-row layer: num_output 1, or the group's
// channels as a one-group layer): the same search at 1 / rows of the cost. Sums are in double, so
// the choice can differ from ncnn's float sums only where two candidates tie to about 1e-7.
Status eq_weight_scales(const LayerNode& fp32_node, const Int8Candidate& c, float bottom_scale,
                        const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                        std::vector<float>& weight_scales, const std::function<bool()>& tick = nullptr);

// The same search literally as ncnn2table writes it: the whole layer per candidate (the reference
// eq_weight_scales is tested against; `rows_limit` < 0 searches every row, else the first ones).
Status eq_weight_scales_full(const LayerNode& fp32_node, const Int8Candidate& c, float bottom_scale,
                             const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                             std::vector<float>& weight_scales, int rows_limit = -1);

// EQ's bottom scale search (the whole layer per candidate, as ncnn).
Status eq_bottom_scale(const LayerNode& fp32_node, const Int8Candidate& c, const std::vector<float>& weight_scales,
                       const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                       float& bottom_scale);

}  // namespace quant
}  // namespace nnfold
