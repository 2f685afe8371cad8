// Net: a runnable network built from a Graph. Inputs and outputs by blob name; input shapes from
// the model or the caller; each intermediate blob freed after its last consumer; peak tensor
// memory and per-layer times measured per run.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/mat.h"
#include "core/status.h"
#include "layers/layer.h"
#include "model/graph.h"
#include "runtime/fuse_store.h"

namespace nnfold {

struct NetOptions {
    // Use the optimized layer implementations (src/layers/wasm/) where a type has one; false runs
    // the scalar reference layers. Optimized layers exist in every build; their kernels are
    // SIMD-128 when build_has_simd(), else the scalar twins.
    bool use_optimized = true;
    // Older name of the same switch, kept so existing callers compile: the optimized layers run
    // only when both are true.
    bool use_simd = true;
    // Fuse a residual Add (and the activation after it) into the producing convolution's store
    // (runtime/fuse_store.h). Off runs every layer as the graph lists it (for comparisons).
    bool fuse_residual = true;
    MemoryLimits limits;
};

struct LayerTime {
    int layer = -1;  // index in graph().layers
    double ms = 0;
};

struct RunStats {
    uint64_t peak_bytes = 0;   // peak live tensor bytes during the run
    double total_ms = 0;
    std::vector<LayerTime> layers;  // layers that ran, in order
};

class Net {
public:
    Net();
    ~Net();
    Net(const Net&) = delete;
    Net& operator=(const Net&) = delete;

    // Builds layers from the graph and moves its weights into them. The graph must have weights
    // (read_bin or randomize_weights).
    Status load(Graph graph, const NetOptions& opt = NetOptions());

    // The structure (weights moved out) in execution order.
    const Graph& graph() const { return graph_; }
    std::vector<std::string> input_names() const;
    std::vector<std::string> output_names() const;
    // Declared shape of an input (dims 0 when the model does not declare one).
    Shape declared_input_shape(const std::string& name) const;

    // Runs the layers needed for `wanted` (empty: the model's outputs). Inputs are copied in.
    // Every input the needed layers depend on must be given.
    Status run(const std::map<std::string, Mat>& inputs, const std::vector<std::string>& wanted,
               std::map<std::string, Mat>& outputs, RunStats* stats = nullptr);

    void set_cancel_flag(const volatile bool* flag) { cancel_ = flag; }
    Allocator& allocator() { return *alloc_; }
    uint64_t weights_bytes() const { return weights_bytes_; }
    // True when at least one layer runs an optimized implementation.
    bool uses_optimized() const { return uses_optimized_; }
    // True when optimized layers run with SIMD-128 kernels (uses_optimized() && build_has_simd()).
    bool uses_simd() const { return uses_optimized_ && build_has_simd(); }
    // The residual Add fusions planned at load (runtime/fuse_store.h); a run applies those whose
    // per-run conditions hold.
    const std::vector<StoreFusion>& store_fusions() const { return fusions_; }

private:
    Graph graph_;
    std::vector<std::unique_ptr<Layer>> layers_;
    std::shared_ptr<Allocator> alloc_;
    const volatile bool* cancel_ = nullptr;
    uint64_t weights_bytes_ = 0;
    bool uses_optimized_ = false;
    std::vector<StoreFusion> fusions_;
    // The blob shapes of the last run and the input shapes they were inferred from.
    bool shapes_valid_ = false;
    std::map<std::string, Shape> shapes_for_;
    std::vector<Shape> shapes_;
};

}  // namespace nnfold
