// ONNX shape arithmetic shared by constant folding and the translators (onnx_shape_ops.cpp).
#pragma once

#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

// Reshape's target (0 copies the input dimension unless allowzero, one -1 is inferred).
Status reshape_target(const Dims& in, const Dims& spec, bool allowzero, Dims& out);
Status unsqueeze_shape(const Dims& in, const Dims& axes, Dims& out);
// Without axes every dimension of size 1 goes.
Status squeeze_shape(const Dims& in, const Dims& axes, bool has_axes, Dims& out);

// One axis of a Slice after ONNX's clamping: elements start, start + step, ... (count of them).
struct SliceRange {
    int64_t start = 0, end = 0, step = 1, count = 0;
};
Status slice_ranges(const Dims& in, const Dims& starts, const Dims& ends, const Dims& axes, const Dims& steps,
                    std::vector<SliceRange>& out);
// The ranges of the Slice node being translated: starts/ends/axes from attributes before opset
// 10, from constant inputs 1..4 (axes, steps optional) since; the node's shape is input 0's.
Status slice_node_ranges(Importer& im, std::vector<SliceRange>& out);
// [prod(s[:ax]), s[ax], prod(s[ax+1:])] as a 3-D ncnn shape; unsupported when an extent does not
// fit an int.
Status axis_view(Importer& im, const Dims& s, int ax, Shape& view);
// The indices of node n's inputs that are present (an empty name is an omitted optional input);
// invalid_model when there are none (Concat, Sum, Min, Max need at least one).
Status present_inputs(Importer& im, const Node& n, std::vector<size_t>& ks);
// The Gather node being translated, with constant indices `idx`: its axis (normalized against
// input 0) and the indices into it, negatives counted from the end; an axis or index out of
// range is invalid_model.
Status gather_positions(Importer& im, const Tensor& idx, int& ax, std::vector<int64_t>& ids);
// A constant blob of zeros of ONNX shape `dims`, viewed as `s` (what Expand adds its input to:
// ncnn's BinaryOp broadcasts B into A).
Status zeros_blob(Importer& im, const Dims& dims, const Shape& s, int& blob);
// Split's part sizes: the 'split' input (opset 13+) or attribute, else equal parts
// (num_outputs in opset 18).
Status split_sizes(const Node& n, int64_t opset, int64_t dim, const Tensor* split_input, Dims& sizes);
// The Split node being translated: its axis (normalized against input 0) and part sizes.
Status split_node_sizes(Importer& im, const Node& n, int& ax, Dims& sizes);
// Shape (with its start/end attributes) or Size of a value of shape `dims`, as an int64 tensor.
Tensor shape_query(const Node& n, const Dims& dims);
Status transpose_tensor(const Tensor& in, const Dims& perm, Tensor& out);

}  // namespace onnx
}  // namespace nnfold
