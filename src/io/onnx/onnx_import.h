// ONNX import: an .onnx file (opsets 9-17) becomes an ncnn-format Graph in ncnn's layout (batch
// of 1 dropped, [c, h, w]) plus the IoMap that presents its inputs and outputs under the ONNX
// names and shapes. Runs in the library, so in the wasm module too. Never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "io/io_map.h"
#include "model/graph.h"

namespace nnfold {

struct OnnxImportOptions {
    // Shapes for inputs whose ONNX shape has symbolic dims (or to override a declared one), keyed
    // by the ONNX input name; full ONNX shapes, batch included, outermost first.
    std::map<std::string, std::vector<int64_t>> input_shapes;
    // Absorb a tf2onnx-style input Transpose(0,3,1,2) so the ncnn input is [c, h, w] and the IoMap
    // records layout NHWC (the conversion happens in io_to_ncnn).
    bool absorb_input_transpose = true;
};

// One ONNX-level rewrite the importer applied before translating (src/io/onnx/onnx_rewrite.h
// lists the passes): the Erf form of GELU fused, a Transpose pair merged, an NHWC input's
// Transpose absorbed.
struct OnnxRewriteRecord {
    std::string pass;                // "fuse_gelu", "merge_transpose_pair", "absorb_input_transpose"
    std::vector<std::string> nodes;  // the ONNX nodes involved (name, else first output), or the input
    std::string detail;
};

// Imports `data` into `g` (replaced) and `io` (replaced). Warnings collect non-fatal findings
// (a symbolic batch dimension taken as 1, an extension layer stock ncnn cannot load, ...).
Status import_onnx(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& w,
                   const OnnxImportOptions& opt = {});
// The same, also returning the ONNX-level rewrites applied, in order (`rewrites` is replaced;
// empty on an error).
Status import_onnx(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& w, const OnnxImportOptions& opt,
                   std::vector<OnnxRewriteRecord>& rewrites);

// The operators the importer knows, by name (docs/coverage.md is generated from these): those
// translated into layers, and those evaluated at import when all their inputs are constants.
std::vector<std::string> onnx_translated_operators();
std::vector<std::string> onnx_folded_operators();

// True when the bytes look like a serialized ONNX ModelProto (first field: ir_version varint),
// for tools deciding between .param and .onnx by content.
bool looks_like_onnx(const uint8_t* data, size_t size);

}  // namespace nnfold
