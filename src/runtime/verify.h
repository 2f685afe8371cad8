// Comparing two models that should compute the same thing (an original and its optimized or
// converted form): both run on the same seeded random inputs (docs/numbers.md's PRNG, inputs
// in model A's input order), every output is compared by name with docs/numbers.md's
// measure err = max|a-b| / max(max|a|, 1e-6) (shapes must be equal), and every blob name both
// models share is compared in A's execution order to find the first layer where they diverge.
//
// Detection heads (DetectionOutput, YoloDetectionOutput, Yolov3DetectionOutput) select boxes by
// thresholds, so near-ties flip between two correct runs: their outputs are reported but the
// verdict uses the tensors feeding them (docs/numbers.md).
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

struct VerifyOptions {
    uint32_t seed = 0;                           // random inputs
    std::map<std::string, Shape> input_shapes;   // for inputs without a declared shape (or overrides)
    double tolerance = 1e-4;                     // the optimizer's budget (docs/numbers.md)
    // An int8 model against its fp32 original without a tolerance (docs/numbers.md): errors and
    // top-1 agreement are reported, not judged; only a missing output or a shape that differs
    // fails. The divergence search is skipped (every int8 layer differs by design).
    bool accuracy = false;
    bool use_simd = true;
    // Compare the blobs both models share to find the first divergence.
    bool find_divergence = true;
    // Bytes of intermediate blobs held at once while comparing them (runs are split to fit).
    uint64_t memory_budget = (uint64_t)512 << 20;
    const volatile bool* cancel = nullptr;
    // Called after each run of the models with (done, total); returning false cancels (Cancelled).
    std::function<bool(int done, int total)> progress;
};

struct BlobDiff {
    std::string name;
    Shape shape_a, shape_b;     // as produced (dims 0 when missing)
    double err = 0;             // +inf when shapes differ, a blob is missing or NaNs disagree
    bool judged = true;         // false for detection outputs (their head's inputs decide)
    std::string note;           // why err is +inf, or "detection output (judged by its inputs)"
    // A class vector (one extent above 1, e.g. [1000]): the index of the largest value in each
    // model (the first one on ties); -1 for any other tensor.
    int top1_a = -1, top1_b = -1;
};

struct VerifyResult {
    std::vector<BlobDiff> outputs;      // A's outputs in order, then outputs only B has
    std::vector<BlobDiff> head_inputs;  // inputs of detection heads, judged in their place
    double max_err = 0;                 // over judged outputs and head inputs
    double tolerance = 0;
    bool passed = false;
    bool accuracy = false;              // VerifyOptions::accuracy
    uint32_t seed = 0;
    // first shared blob over tolerance, in A's execution order
    bool diverged = false;
    std::string diverge_blob, diverge_layer, diverge_type, diverge_layer_b;
    double diverge_err = 0;
    int blobs_compared = 0;             // shared blobs compared in the divergence search
};

// Runs both models (graphs with weights) and fills `r`. Errors: a model that cannot load or run,
// inputs that differ in name or shape, an input without a shape.
Status verify_models(const Graph& a, const Graph& b, const VerifyOptions& opt, VerifyResult& r);

// {"passed", "tolerance", "max_err", "seed", "outputs": [{"name", "shape_a", "shape_b", "err",
//  "judged", "note", "top1_a", "top1_b" (class vectors only)}], "head_inputs": [...], "blobs_compared", "first_divergence": null |
//  {"blob", "layer", "type", "layer_b", "err"}, "accuracy": true (accuracy mode only)}. An infinite
// err is written as null.
std::string verify_json(const VerifyResult& r);

// The error measure of docs/numbers.md over `n` floats (+inf when NaNs disagree).
double relative_error(const float* ref, const float* got, size_t n);

}  // namespace nnfold
