// The one graph IR shared by the .param/.bin reader, the ONNX importer, the optimizer passes, the
// writer and the runtime. Layers are kept in execution (topological) order, as in a .param file;
// blobs are named edges with exactly one producer. Passes mark layers erased and call compact(),
// which removes them and any blob nothing refers to (no "ncnnfused" placeholders survive).
//
// Producers and consumers: by default producer() and consumers() scan the layers, so code that
// builds a graph by editing `layers` directly (readers, importers) needs nothing else. The optimizer
// turns on the use index (blob -> producing and consuming layers), which makes those queries cost
// the number of uses instead of the number of layers; while it is on, every change to a live
// layer's bottoms, tops or erased flag goes through the edit functions below (set_bottom,
// set_tops, erase_layer, replace_uses...), which keep it current, and check_use_index() compares it
// with a full rescan.
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
    int consumer_count(int blob) const;

    // Redirect every live consumer of `from` to read `to` instead.
    void replace_uses(int from, int to);
    void erase_layer(int index);
    // Drop erased layers and unreferenced blobs, renumbering indices. Keeps execution order.
    void compact();

    // Edits of one layer's blob lists that keep the use index current.
    void set_bottom(int layer, size_t k, int blob);
    void set_top(int layer, size_t k, int blob);
    void set_bottoms(int layer, std::vector<int> bottoms);
    void set_tops(int layer, std::vector<int> tops);
    void erase_bottom(int layer, size_t k);
    void erase_top(int layer, size_t k);

    // Builds the use index (on) or drops it (off); see the top of this file.
    void set_use_index(bool on);
    bool use_index_on() const { return index_on_; }
    // Internal error naming the first blob whose indexed producers or consumers differ from a
    // rescan of the live layers (a layer edited around the functions above); ok when off.
    Status check_use_index() const;

    // Blobs produced by Input layers, in layer order.
    std::vector<int> input_blobs() const;
    // Blobs produced and never consumed (ncnn's output blobs), in blob order.
    std::vector<int> output_blobs() const;
    int live_layer_count() const;

    // Structural checks: indices in range, every consumed blob produced earlier, no blob produced
    // twice, unique layer names. Returns the first problem found.
    Status validate() const;

private:
    // Per blob, the live layers writing and reading it, in execution order, once per use (a blob
    // has two producers only for the moment a rewrite moves it from one layer to another).
    struct Uses {
        std::vector<int> producers;
        std::vector<int> consumers;
    };
    std::vector<Uses> uses_;
    bool index_on_ = false;

    std::vector<Uses> scan_uses() const;  // from the live layers
    void rebuild_uses();
    void attach(int layer);  // adds a live layer's uses to the index
    void detach(int layer);  // removes them
    void update_uses(int layer, void (*op)(std::vector<int>& list, int layer));
    // Points one bottom or top `slot` of `layer` at `blob` (list: which side of the index).
    void retarget(int layer, int& slot, std::vector<int> Uses::*list, int blob);
    bool indexed(int layer) const { return index_on_ && !layers[layer].erased; }
};

}  // namespace nnfold
