// ncnn .param / .bin reading and writing (docs/format.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

// Parses .param text into `g` (layers, blobs, params, shape hints; no weights). Errors name the
// file, line, layer and problem. A blob consumed by several layers is accepted with a warning and
// a Split layer is inserted after its producer.
Status read_param(const std::string& text, Graph& g, Warnings& warnings,
                  const std::string& filename = "model.param");

// Reads the weights of every layer of `g` from .bin bytes, in layer order, following each layer's
// weight_specs and ncnn's storage tags. A truncated or over-long file is an error naming the layer.
Status read_bin(const uint8_t* data, size_t size, Graph& g, Warnings& warnings,
                const std::string& filename = "model.bin");

// True when the first bytes look like a .param text (the magic 7767517).
bool looks_like_param(const uint8_t* data, size_t size);

// Canonical .param text: ncnn's layout, params in id order with defaults omitted, floats as
// tokens ncnn reads back exactly, shape hints (-23330) for layers whose top shapes are all known.
Status write_param(const Graph& g, std::string& out, Warnings& warnings);

struct BinWriteOptions {
    // Store tagged fp32 arrays as fp16 (a layer whose weights exceed fp16's range stays fp32, with
    // a warning naming it).
    bool fp16 = false;
};
Status write_bin(const Graph& g, std::vector<uint8_t>& out, const BinWriteOptions& opt, Warnings& warnings);

// Size in bytes the .bin of `g` will have.
uint64_t bin_size(const Graph& g);

}  // namespace nnfold
