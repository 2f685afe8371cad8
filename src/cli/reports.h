// What the `nnfold` command prints about a model, kept out of the library's facade (src/api): the
// text of `nnfold info` and the summary JSON of `nnfold run`. (`nnfold verify` formats its lines in
// cmd_verify.cpp; `info --json` and the optimizer's report are the facade's own JSON.)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/model.h"
#include "core/mat.h"
#include "runtime/net.h"

namespace nnfold {
namespace cli {

// The text `nnfold info` prints; `label` names the model (its path). Inputs and outputs of an io
// map (ONNX import, .io.json) are shown under their original names and shapes with their ncnn blob.
std::string info_text(const ModelHandle& model, const std::string& label);

// The JSON `nnfold run` prints: per output (in `order`) shape, min, max, mean over finite values,
// nonfinite count, the first 8 values, and `file` when files are written; then peak_bytes, ms, simd
// and threads (the thread count the run used).
// `files` maps output names to the .f32 file names written (empty: none).
// `dims` (optional) gives the shape to print per output name (ModelHandle::presented_dims).
std::string run_summary_json(const std::vector<std::string>& order, const std::map<std::string, Mat>& outputs,
                             const std::map<std::string, std::string>& files, const RunStats& stats, bool simd,
                             const std::map<std::string, std::vector<int64_t>>& dims = {}, int threads = 1);

}  // namespace cli
}  // namespace nnfold
