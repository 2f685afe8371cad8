// The one graph IR shared by the .param/.bin reader, the ONNX importer, the optimizer passes, the
// writer and the runtime. Layers are kept in execution (topological) order, as in a .param file;
// blobs are named edges with exactly one producer. Passes mark layers erased and call compact(),
// which removes them and any blob nothing refers to (no "ncnnfused" placeholders survive).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "model/param_dict.h"
#include "model/weights.h"

namespace nnfold {

struct LayerNode {
    std::string type;
    std::string name;
    std::vector<int> bottoms;  // blob indices
    std::vector<int> tops;     // blob indices
    ParamDict params;
    std::vector<WeightArray> weights;  // in .bin order
    bool erased = false;
};

struct BlobNode {
    std::string name;
    Shape shape;  // from a shape hint or inference; dims 0 = unknown
};

class Graph {
public:
    std::vector<LayerNode> layers;
    std::vector<BlobNode> blobs;
    // Names shortened on import (ONNX names longer than ncnn's 255): ncnn name -> original name.
    std::map<std::string, std::string> original_names;

    int find_blob(const std::string& name) const;   // -1 if absent
    int find_layer(const std::string& name) const;  // -1 if absent (erased layers are skipped)
    int add_blob(const std::string& name, Shape shape = Shape());
    // Appends a layer; returns its index. Does not reorder: callers insert in execution order via
    // insert_layer when needed.
    int add_layer(LayerNode layer);
    int insert_layer(int position, LayerNode layer);

    // The live layer producing a blob, or -1 (graph input without producer).
    int producer(int blob) const;
    // Live layers consuming a blob, in execution order (a layer appears once per use).
    std::vector<int> consumers(int blob) const;
    int consumer_count(int blob) const { return (int)consumers(blob).size(); }

    // Redirect every live consumer of `from` to read `to` instead.
    void replace_uses(int from, int to);
    void erase_layer(int index) { layers[index].erased = true; }
    // Drop erased layers and unreferenced blobs, renumbering indices. Keeps execution order.
    void compact();

    // Blobs produced by Input layers, in layer order.
    std::vector<int> input_blobs() const;
    // Blobs produced and never consumed (ncnn's output blobs), in blob order.
    std::vector<int> output_blobs() const;
    int live_layer_count() const;

    // Structural checks: indices in range, every consumed blob produced earlier, no blob produced
    // twice, unique layer names. Returns the first problem found.
    Status validate() const;
};

}  // namespace nnfold
