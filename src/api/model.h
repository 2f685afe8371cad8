// ModelHandle: the library's facade for front ends (the Embind bindings of the npm package and
// the page, and the `nnfold` command in src/cli, which prints its own texts). One loaded model:
// its Graph (structure + weights, kept so it can be written back or optimized) and a Net built
// lazily on the first run from a copy of it.
// Every entry point returns a Status; nothing throws out of this class except std::bad_alloc from
// the standard library, which front ends turn into ResourceLimit (see guard()).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/mat.h"
#include "core/status.h"
#include "io/io_map.h"
#include "io/picture.h"
#include "model/graph.h"
#include "runtime/net.h"

namespace nnfold {

class Rng;

struct LoadOptions {
    uint32_t seed = 0;                       // random weights when there is no .bin
    std::map<std::string, Shape> shapes;     // input shapes (override or supply declared ones)
    std::string param_name = "model.param";  // names used in error messages
    std::string bin_name = "model.bin";
    bool use_simd = true;                    // SIMD layers where the build has them
    // load_ncnn/load_structure: the OUT.io.json that `convert` wrote beside the .param (empty:
    // none); the model then presents its inputs and outputs under the original (ONNX) names,
    // shapes and layouts (docs/shapes-and-files.md). Its blobs must exist in the .param.
    std::string io_json;
    std::string io_json_name = "model.io.json";
    // load_onnx: full ONNX shapes (batch included, any rank) for inputs with symbolic dims or to
    // override declared ones, keyed by ONNX input name. `shapes` entries are taken the same way
    // (as full ONNX shapes of at most 4 dims).
    std::map<std::string, std::vector<int64_t>> onnx_shapes;
};

struct IoInfo {
    std::string name;
    Shape shape;  // dims 0 when unknown (or, for a mapped tensor, more than 4 dims: see `dims`)
    // Outermost first. For a plain ncnn blob shape.to_list(); for a tensor of the io map
    // (ONNX import, .io.json) the original shape, batch included, any rank.
    std::vector<int64_t> dims;
    bool mapped = false;  // presented through the io map
    std::string blob;     // the ncnn blob (== name when not mapped)
    std::string layout;   // mapped: "NHWC" when the blob holds a transposed tensor, else ""
    // Element type at the interface: "float32", or for an ONNX integer/boolean input "int32",
    // "int64", "bool" (held as float32 values inside the graph, docs/shapes-and-files.md).
    std::string dtype = "float32";
    // Mapped inputs: the exporter's symbolic name of each entry of `dims` ("" where fixed or
    // unknown); empty for plain blobs and outputs.
    std::vector<std::string> dim_names;
};

// Called between steps of a long operation with (done, total); returning false cancels it
// (the operation then fails with ErrorCode::Cancelled).
using ProgressFn = std::function<bool(int done, int total)>;

struct ProfileResult {
    int runs = 0;
    std::vector<double> run_ms;  // per run, total
    struct LayerProfile {
        int index = 0;  // position in the graph (execution order)
        std::string name, type;
        double ms_mean = 0, ms_min = 0;
    };
    std::vector<LayerProfile> layers;
    uint64_t peak_bytes = 0;
};

// Options of the optimizer as the front ends pass them (docs/optimizer.md). fp16 is a storage
// decision of the writer: optimize() records it as the default for to_ncnn().
struct OptimizeRequest {
    bool fp16 = false;
    std::vector<std::string> passes;  // empty: the full pipeline
    std::vector<std::string> keep;    // blob/layer names that must survive
    // blobs that must survive where they exist after the cut (set by ModelHandle::optimize: the
    // io map's blobs)
    std::vector<std::string> keep_if_present;
    bool explain = false;             // also report why candidates were skipped
    // ncnnoptimize's cutstart/cutend: keep only these layers (names; empty = first/last), cut
    // before optimizing (src/passes/cut.h); blobs entering the range become inputs
    std::string cut_start, cut_end;
    std::map<std::string, Shape> input_shapes;  // set by ModelHandle::optimize from its shapes
};

// Options of quantization as the front ends pass them (src/quant/quantize.h).
struct QuantizeRequest {
    std::string method = "kl";            // "kl" | "aciq" | "eq"
    std::vector<std::string> keep_fp32;   // layer names left fp32
    double max_layer_error = 0;           // > 0: layers quantizing worse than this stay fp32
    bool optimize = true;                 // run the optimizer first, as ncnn2int8 expects
};

class ModelHandle {
public:
    ModelHandle();
    ~ModelHandle();
    ModelHandle(const ModelHandle&) = delete;
    ModelHandle& operator=(const ModelHandle&) = delete;

    // Reads .param text and .bin bytes; bin == nullptr (with has_bin false) gives nnfold's seeded
    // random weights (docs/numbers.md). Input shapes from `opt.shapes` are checked against
    // the graph (unknown names are an error).
    Status load_ncnn(const std::string& param_text, const uint8_t* bin, size_t bin_size, bool has_bin,
                     const LoadOptions& opt);
    // Reads the structure (and the .bin when has_bin) without drawing random weights: enough for
    // info/graph; such a handle cannot run or be written (used by `nnfold info`).
    Status load_structure(const std::string& param_text, const uint8_t* bin, size_t bin_size, bool has_bin,
                          const LoadOptions& opt);
    // Imports ONNX bytes (src/io/onnx, import_onnx_model below). The model keeps the import's IoMap:
    // inputs(), outputs(), run() and the random inputs use the ONNX names, shapes and layouts.
    Status load_onnx(const uint8_t* data, size_t size, const LoadOptions& opt);

    // The io map (ONNX import, or the .io.json given with a .param); empty for a plain model.
    const IoMap& io_map() const { return io_; }
    // Replaces the io map (checked: every blob must exist, entries self-consistent). An empty
    // map makes the model plain again.
    Status set_io_map(const IoMap& io);
    // OUT.io.json text for the io map ("" when the model has none): written beside OUT.param by
    // whoever writes to_ncnn()'s files.
    std::string io_json() const { return io_.empty() ? std::string() : io_.to_json(); }

    bool loaded() const { return loaded_; }
    const Graph& graph() const { return graph_; }
    const Warnings& warnings() const { return warnings_; }

    // Replaces the input shapes used by inputs(), info, random inputs and plain-array runs.
    Status set_input_shapes(const std::map<std::string, Shape>& shapes);
    const std::map<std::string, Shape>& input_shapes() const { return shapes_; }
    // Inputs and outputs with their shapes (declared/given input shapes, inferred output shapes).
    // Mapped tensors come under their original names and shapes, outputs in the io map's order.
    std::vector<IoInfo> inputs() const;
    std::vector<IoInfo> outputs() const;
    // The names of outputs(), in its order, without their shapes (no shape inference: run() asks
    // for them on every call).
    std::vector<std::string> output_names() const;
    // The shape an input takes when the caller gives no shape (given or declared); dims 0 if none.
    Shape input_shape(const std::string& name) const;

    // Summary JSON (analysis/analysis.h summary_json) as `nnfold info --json` prints it.
    std::string info_json() const;
    // Drawing data: {nodes: [{id, type, name, params: [{id, name, value}], weights_bytes,
    // bottoms: [edge ids], tops: [edge ids]}], edges: [{id, name, shape, from, to: [node ids]}]}.
    std::string graph_json() const;

    // ncnn files in canonical form (as `nnfold convert`): shape hints where inference succeeds.
    // fp16 < 0 uses the default recorded by optimize() (fp32 otherwise).
    Status to_ncnn(int fp16, std::string& param, std::vector<uint8_t>& bin, Warnings& warnings);

    // Seeded random inputs (docs/numbers.md): one stream, in the model's input order,
    // U(-1, 1). Errors when an input has no known shape.
    Status random_inputs(uint32_t seed, std::vector<std::pair<std::string, Mat>>& out) const;
    // Random values for the inputs not present in `inputs` (`nnfold run`'s rule for inputs not
    // given with --input: one stream consumed only by the inputs still missing, in input order;
    // with nothing given, the values of random_inputs()).
    Status fill_missing_inputs(uint32_t seed, std::map<std::string, Mat>& inputs) const;

    // Runs the model. `wanted` empty: the model's outputs. Inputs are checked by name; a model
    // whose layers cannot take the given shapes fails with ShapeMismatch naming the layer.
    // Mapped inputs are given in their original shape and layout (any Mat holding that many
    // values, dense, outermost first) and mapped outputs come back that way (a Mat of the
    // original shape when it has at most 4 dims, else 1-D: presented_dims() has the shape);
    // other names are ncnn blobs as they are.
    Status run(const std::map<std::string, Mat>& inputs, const std::vector<std::string>& wanted,
               std::map<std::string, Mat>& outputs, RunStats* stats = nullptr);
    // Per-layer times over `runs` runs (after one untimed warm-up run).
    Status profile(const std::map<std::string, Mat>& inputs, int runs, ProfileResult& result,
                   const ProgressFn& progress = nullptr);

    // The optimizer (optimize_graph below). On success the graph is
    // replaced, the Net rebuilt on the next run, and `report_json` holds the docs/optimizer.md
    // report.
    Status optimize(const OptimizeRequest& req, std::string& report_json, const ProgressFn& progress = nullptr);

    // Quantizes this fp32 model into `out` (a new, loaded handle holding the int8 model, same io
    // map and input shapes), calibrated on `samples`: each maps every input, by the name inputs()
    // gives, to its value (in the presented shape and layout). `report_json`: quantize_graph's
    // report (src/quant/quantize.h).
    Status quantize(const std::vector<std::map<std::string, Mat>>& samples, const QuantizeRequest& req,
                    ModelHandle& out, std::string& report_json, const ProgressFn& progress = nullptr);
    // One calibration sample from an encoded PNG/JPEG picture (src/io/picture.h): the model must have
    // exactly one input, of 1 or 3 channels with known height and width (presented NCHW or NHWC);
    // `name` is used in messages.
    Status picture_sample(const uint8_t* data, size_t size, const std::string& name, const PictureToTensor& opt,
                          std::map<std::string, Mat>& sample) const;

    // The shape to present for a tensor `m` that run()/random_inputs() returned under `name`:
    // the io map's original shape for mapped tensors, m's shape otherwise.
    std::vector<int64_t> presented_dims(const std::string& name, const Mat& m) const;

    bool uses_simd() const;
    // Drops the Net (kept graph stays); the next run rebuilds it. Frees the runtime's copy of the
    // weights.
    void release_runtime() { net_.reset(); }

private:
    enum class Weights { File, Random, None };
    Status load_impl(const std::string& param_text, const uint8_t* bin, size_t bin_size, Weights weights,
                     const LoadOptions& opt);
    Status finish_load(Graph g, Warnings w, const LoadOptions& opt);
    Status ensure_net();
    Status check_shapes(const std::map<std::string, Shape>& shapes) const;
    Status make_input(const IoInfo& io, Rng& rng, Mat& m) const;
    Status blob_inputs(const std::map<std::string, Mat>& in, std::map<std::string, Mat>& blobs_in) const;

    Graph graph_;
    IoMap io_;
    Warnings warnings_;
    std::map<std::string, Shape> shapes_;
    std::unique_ptr<Net> net_;
    bool loaded_ = false;
    bool structure_only_ = false;
    bool use_simd_ = true;
    bool fp16_default_ = false;
};

// Runs `fn`, turning std::bad_alloc (the standard library on memory exhaustion, e.g. a wasm heap
// that cannot grow) into ResourceLimit and any other exception into Internal, so nothing escapes
// into a front end.
Status guard(const std::function<Status()>& fn);

// ---- the facade's entry points into the optimizer, verification and ONNX import (every build
// has all three)

// Optimizes `g` in place (after the cut the request asks for); `report_json` gets the
// docs/optimizer.md report.
Status optimize_graph(Graph& g, const OptimizeRequest& req, std::string& report_json, Warnings& warnings,
                      const ProgressFn& progress);

// Runs `a` and `b` on the same seeded random inputs and compares outputs (docs/numbers.md and
// docs/cli.md); `report_json` gets per-output errors and the first layer where they diverge
// (runtime/verify.h verify_json). Input shapes: those given to `a` (else declared).
struct VerifyRequest {
    uint32_t seed = 0;
    double tolerance = 1e-4;
    bool divergence = true;  // also search the first diverging layer
};
Status verify_models(ModelHandle& a, ModelHandle& b, const VerifyRequest& req, std::string& report_json,
                     const ProgressFn& progress);

// Imports an ONNX model into `g` (src/io/onnx/onnx_import.h); `io` gets how the ONNX inputs and
// outputs map onto ncnn blobs. `input_shapes`: full ONNX shapes (batch included) by input name,
// for symbolic dims or to override declared ones.
Status import_onnx_model(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& warnings,
                         const std::map<std::string, std::vector<int64_t>>& input_shapes = {});

}  // namespace nnfold
