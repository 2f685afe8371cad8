// Where the optimizer (task P), model verification (P) and ONNX import (task O) join the facade:
// one function each. A build without one returns ErrorCode::Unsupported with "... is not
// available in this build", which the bindings surface as a JS Error with code 'unsupported'.
// Each body in plugins.cpp calls
//   optimize(Graph&, const OptimizeOptions&, OptimizeReport&, Warnings&)   (src/passes/optimizer.h)
//   verify(...)                                                            (src/runtime/verify.h)
//   import_onnx(const uint8_t*, size_t, Graph&, IoMap&, Warnings&, opts)   (src/io/onnx/)
// and converting the options/report. All three are wired in this tree.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/model.h"
#include "core/status.h"
#include "io/io_map.h"
#include "model/graph.h"

namespace nnfold {

// Optimizes `g` in place; `report_json` gets the docs/optimizer.md report.
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

// Which of the above this build has (for `nf.features` and the CLI's command list).
bool have_optimizer();
bool have_verify();
bool have_onnx_import();

}  // namespace nnfold
