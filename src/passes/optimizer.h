// The optimizer: ncnnoptimize's passes (and a few it lacks), exact, logged, repeated to a fixed
// point (docs/optimizer.md). This is the entry point the CLI, the bindings and the page use.
//
//   Graph g = ...;                       // read_param + read_bin (or random weights)
//   OptimizeOptions opt;                 // all passes
//   OptimizeReport report;
//   Warnings w;
//   Status st = optimize(g, opt, report, w);
//   std::string j = report_json(report);
//
// The pipeline runs in ncnnoptimize's order (passes/registry.h) and is repeated until a whole
// round changes nothing, so optimizing the result again changes nothing. Every rewrite is logged;
// with `explain`, so is every candidate a pass refused and why. Input and output blob names never
// change; names in `keep` survive with their values.
//
// On an error (bad options, a cancel request) the graph is left valid but possibly partially
// optimized: every rewrite is applied whole, and erased layers are always compacted away.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

struct OptimizeProgress {
    int round = 0;          // 1-based round of the pipeline
    int pass_index = 0;     // 0-based index into the passes being run
    int pass_count = 0;
    std::string pass;       // name of the pass about to run
};

struct OptimizeOptions {
    // Pass names to run, in any order (they run in pipeline order); empty = all. An unknown name
    // is InvalidArgument listing the valid ones.
    std::vector<std::string> passes;
    // Blob names no rewrite may remove or change (intermediate results a caller wants to read);
    // a layer name keeps the blobs that layer reads and writes. An unknown name is InvalidArgument.
    std::vector<std::string> keep;
    // Also record every candidate a pass refused, with the reason.
    bool explain = false;
    // Shapes for inputs that declare none (or to override declared ones), by blob name. Passes
    // whose exactness depends on shapes refuse when a shape is unknown.
    std::map<std::string, Shape> input_shapes;
    // Checked before every pass; when set, optimize returns Cancelled.
    const volatile bool* cancel = nullptr;
    // Called before every pass.
    std::function<void(const OptimizeProgress&)> progress;
    // Debug check (tests, the differential fuzzer): after every rewrite, compare the graph's use
    // index (model/graph.h) with a full rescan; a difference is Internal naming the pass. Costs a
    // scan of the graph per rewrite.
    bool check_use_index = false;
};

struct RewriteRecord {
    std::vector<std::string> layers;  // names of the layers involved, as they were before the rewrite
    std::string detail;
};

struct PassRecord {
    std::string name;
    std::vector<RewriteRecord> rewrites;
};

struct SkipRecord {
    std::string pass;
    std::vector<std::string> layers;
    std::string reason;
};

struct ModelStats {
    int layers = 0;
    uint64_t weights_bytes = 0;  // bytes of the .bin as stored (tags, fp16/int8 storage, padding)
    uint64_t memory_bytes = 0;   // estimated peak: live intermediate tensors + weights as fp32
    bool memory_known = false;   // false when shapes are unknown (an input without a shape)
};

struct OptimizeReport {
    std::vector<PassRecord> passes;  // every pass that ran, in pipeline order, rewrites of all rounds
    std::vector<SkipRecord> skipped; // with explain: candidates still refused at the fixed point
    ModelStats before, after;
    int rounds = 0;                  // pipeline rounds run (the last one changed nothing)
    // Candidates refused at the fixed point only because shapes are unknown (a refusal whose reason
    // says "give input shapes"; counted with or without explain), and the model inputs whose
    // shape is unknown: the --shape that would let those passes decide.
    int refused_unknown_shapes = 0;
    std::vector<std::string> shapeless_inputs;
    int rewrite_count() const;
};

Status optimize(Graph& g, const OptimizeOptions& opt, OptimizeReport& report, Warnings& warnings);

// docs/optimizer.md's report JSON:
//   {"version": "<nnfold version>",
//    "passes": [{"name": "...", "rewrites": [{"layers": ["conv1", "bn1"], "detail": "..."}]}],
//    "skipped": [{"pass": "...", "layers": [...], "reason": "..."}],
//    "before": {"layers": N, "weights_bytes": N, "memory_bytes": N | null},
//    "after": {...},
//    "unknown_shapes": {"refused": N, "inputs": ["data", ...]}}
// memory_bytes is null when shapes are unknown. Keys in this order; no whitespace. unknown_shapes
// (added after the first schema: readers of the older keys are unaffected) counts the candidates
// refused for unknown shapes and names the inputs without a shape.
std::string report_json(const OptimizeReport& report);

// One line per rewrite: "<pass>: <layers...>: <detail>"; and, with explain, one per refusal:
// "<pass>: skipped <layers...>: <reason>"; then, when candidates were refused for unknown shapes,
// "unknown shapes: N candidates refused; give --shape for: <inputs>".
std::vector<std::string> report_lines(const OptimizeReport& report);

// Names of every pass in pipeline order.
std::vector<std::string> optimizer_pass_names();

}  // namespace nnfold
