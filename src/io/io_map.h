// How a model's original inputs and outputs (an ONNX file's, with their names, batch axis and
// layout) map onto ncnn blobs (docs/shapes-and-files.md). The ONNX importer fills it; `convert`
// writes it as OUT.io.json beside OUT.param; the CLI, the npm package and the page read it to
// present inputs and outputs under the original names and shapes.
//
// The relation between an original tensor T (shape `shape`, outermost first) and its ncnn blob B:
//   B = reshape(transpose(T, perm), ncnn_shape)
// `perm` is empty for the identity (the usual case: B holds T's values in the same order with the
// batch axis of 1 dropped), or [0, 3, 1, 2] for an NHWC input whose tf2onnx Transpose was absorbed
// into the import (layout "NHWC": the ncnn blob is [c, h, w]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/mat.h"
#include "core/shape.h"
#include "core/status.h"

namespace nnfold {

struct IoEntry {
    std::string name;                // original (ONNX) name
    std::string blob;                // ncnn blob name
    std::vector<int64_t> shape;      // original shape, outermost first, batch included
    std::string layout;              // "NHWC" for an absorbed NHWC input; "" when the blob holds the
                                     // tensor in its declared order (perm empty)
    std::vector<int> perm;           // see above; empty = identity
    Shape ncnn_shape;                // the blob's ncnn shape
    std::string dtype = "float32";   // original element type ("bool" for masks, ...)
    // The exporter's symbolic name of each dimension of `shape` ("" where fixed); empty when
    // unknown (a version 1 file, an output).
    std::vector<std::string> dim_names;

    uint64_t numel() const;
};

struct IoMap {
    std::vector<IoEntry> inputs, outputs;

    bool empty() const { return inputs.empty() && outputs.empty(); }
    const IoEntry* find_input(const std::string& original_name) const;
    const IoEntry* find_output(const std::string& original_name) const;
    // Entry by ncnn blob name, or nullptr.
    const IoEntry* find_by_blob(const std::string& blob) const;

    // OUT.io.json: {"format": "nnfold.io", "version": 2, "inputs": [...], "outputs": [...]}, each
    // entry {name, blob, shape, layout, perm, ncnn_shape, dtype, dim_names (a name or null per
    // dimension)}. Version 1 files (no dim_names) still load.
    std::string to_json() const;
    static Status from_json(const std::string& text, IoMap& out);
    // Checks that every entry is self-consistent (element counts, permutation).
    Status validate() const;
};

// A tensor in the original shape/layout (dense, outermost first) -> the ncnn Mat of the blob.
Status io_to_ncnn(const IoEntry& e, const float* data, size_t count, Mat& out);
// An ncnn Mat of the blob -> dense values in the original shape/layout.
Status io_from_ncnn(const IoEntry& e, const Mat& m, std::vector<float>& out);

}  // namespace nnfold
