// Post-training int8 quantization as ncnn's tools do it (tools/quantize/ncnn2table.cpp for the
// calibration table, tools/quantize/ncnn2int8.cpp for the rewrite), in one library call used by
// the CLI (`nnfold quantize`), the npm package (model.quantize) and the page.
//
// Layer: quant sits above runtime (it runs the fp32 model to collect activations) and passes (it
// optimizes first, as ncnn2int8 expects an ncnnoptimize'd model), below api.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/mat.h"
#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

enum class CalibrationMethod { KL, ACIQ, EQ };

// "kl" | "aciq" | "eq" (ncnn2table's method= values); false for anything else.
bool parse_calibration_method(const std::string& s, CalibrationMethod& out);
const char* calibration_method_name(CalibrationMethod m);

struct QuantizeOptions {
    CalibrationMethod method = CalibrationMethod::KL;
    std::vector<std::string> keep_fp32;  // layer names left fp32 (as ncnn2int8 allows)
    // > 0: a layer whose quantized output differs from its fp32 output by more than this (relative
    // error, docs/numbers.md's measure, worst over the calibration set) is left fp32.
    double max_layer_error = 0;
    bool fuse_requantize = true;  // ncnn2int8's requantize fusion (int8_scale_term + 100)
    // Input shapes that replace the Input layers' declared ones (ModelHandle's shapes), by blob
    // name: samples must have these shapes.
    std::map<std::string, Shape> input_shapes;
};

// One calibration sample: a value for every input blob of the graph, by ncnn blob name.
using CalibrationSample = std::map<std::string, Mat>;

// Called with (done, total); false cancels (ErrorCode::Cancelled).
using QuantizeProgress = std::function<bool(int done, int total)>;

// Quantizes `fp32` (an fp32 model, already optimized by the caller) into `out`: Convolution,
// ConvolutionDepthWise and InnerProduct get int8 weights (per output channel scales; per group for
// depthwise) and a bottom scale from the calibration set; everything else is copied. `report_json`:
// {"method", "samples", "layers": [{"name", "type", "int8": bool, "reason" (why fp32, "" if int8),
//   "bottom_scale", "weight_scale_min", "weight_scale_max", "top_scale" (null unless requantized),
//   "error" (relative error of this layer's output against fp32 over the set)}],
//  "outputs": [{"name", "error", "top1_agreement" (null unless the output is one class vector)}],
//  "bytes_before", "bytes_after"}.
// Errors: no sample, a sample missing an input or of the wrong shape (invalid_argument), a model
// with nothing to quantize (unsupported: "no Convolution/ConvolutionDepthWise/InnerProduct to
// quantize"), an already int8 model (unsupported).
Status quantize_graph(const Graph& fp32, const std::vector<CalibrationSample>& samples, const QuantizeOptions& opt,
                      Graph& out, std::string& report_json, Warnings& warnings,
                      const QuantizeProgress& progress = nullptr);

}  // namespace nnfold
