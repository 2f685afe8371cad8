// Whole-graph analyses that need layer semantics but no weights: shape inference, the memory
// estimate, and the model summary used by `nnfold info`, the npm package and the page.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

// The shape an Input layer declares (dims 0 when none): ncnn's 0=w 1=h 11=d 2=c.
Shape declared_input_shape(const ParamDict& pd);

// Infers every blob's shape from the input shapes (declared by Input layers, overridden by
// `input_shapes` keyed by blob name). Blobs downstream of an input without a shape stay unknown.
// Errors name the layer whose inputs do not fit.
Status infer_shapes(const Graph& g, const std::map<std::string, Shape>& input_shapes, std::vector<Shape>& blob_shapes);

// Sets g.blobs[i].shape from infer_shapes, or clears every shape when inference fails (the error
// is returned so callers may report it; the graph stays usable).
Status annotate_shapes(Graph& g, const std::map<std::string, Shape>& input_shapes);

// Peak bytes of live intermediate tensors when running the graph in order, each blob freed after
// its last consumer (the runtime's rule, without in-place reuse). 0 when a shape is unknown.
uint64_t estimate_peak_memory(const Graph& g, const std::vector<Shape>& blob_shapes);

uint64_t weights_bytes(const Graph& g);  // decoded fp32 bytes held by the runtime
uint64_t weights_file_bytes(const Graph& g);  // bytes in the .bin as stored

struct ModelSummary {
    int layers = 0;
    std::map<std::string, int> layers_by_type;
    uint64_t weight_values = 0;
    uint64_t weights_file_bytes = 0;
    uint64_t memory_bytes = 0;  // estimate_peak_memory + weights, 0 when shapes unknown
    bool shapes_known = false;
    std::string shape_error;    // why shapes are unknown
    struct Io {
        std::string name;
        Shape shape;
    };
    std::vector<Io> inputs, outputs;
};
ModelSummary summarize(const Graph& g, const std::map<std::string, Shape>& input_shapes);

// JSON rendering of a summary (for `nnfold info --json` and the bindings).
std::string summary_json(const Graph& g, const ModelSummary& s, const std::vector<Shape>& blob_shapes);

}  // namespace nnfold
