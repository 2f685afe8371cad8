// ModelHandle::quantize: the facade's entry into post-training quantization (src/quant/quantize.h).
// The calibration samples come by the names inputs() presents (an ONNX import's original names,
// shapes and layouts); they are mapped onto the ncnn input blobs as run() maps its inputs, the
// model is optimized first (ncnn2int8 expects an ncnnoptimize'd model: BatchNorm folded and
// activations fused into the convolutions, so that their outputs are what gets quantized), and the
// int8 model comes back as a new handle with this one's io map and input shapes.
#include <algorithm>

#include "api/model.h"
#include "core/strings.h"
#include "quant/quantize.h"

namespace nnfold {

Status ModelHandle::quantize(const std::vector<std::map<std::string, Mat>>& samples, const QuantizeRequest& req,
                             ModelHandle& out, std::string& report_json, const ProgressFn& progress) {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    if (structure_only_)
        return invalid_argument("this model was loaded without weights (structure only) and cannot be quantized");
    QuantizeOptions qo;
    if (!parse_calibration_method(req.method, qo.method))
        return invalid_argument("unknown calibration method " + quote(req.method) + " (kl, aciq or eq)");
    if (!(req.max_layer_error >= 0))
        return invalid_argument("max_layer_error must be 0 (off) or positive");
    if (samples.empty())  // before the optimizer's work (quantize_graph says the same)
        return invalid_argument("quantization needs at least one calibration sample");
    qo.keep_fp32 = req.keep_fp32;
    qo.max_layer_error = req.max_layer_error;
    qo.input_shapes = shapes_;

    std::vector<CalibrationSample> blob_samples(samples.size());
    for (size_t i = 0; i < samples.size(); i++) {
        Status st = blob_inputs(samples[i], blob_samples[i]);
        if (!st)
            return st.with_context("calibration sample " + std::to_string(i + 1));
    }

    Graph g = graph_;
    Warnings w;
    if (req.optimize) {
        OptimizeRequest r;
        r.input_shapes = shapes_;
        for (auto* list : {&io_.inputs, &io_.outputs})
            for (auto& e : *list)
                r.keep_if_present.push_back(e.blob);
        // layers asked to stay fp32 must still be there, under their names, after the optimizer
        for (auto& name : req.keep_fp32)
            if (g.find_layer(name) >= 0)
                r.keep.push_back(name);
        std::string optimize_report;
        NF_RETURN_IF_ERROR(optimize_graph(g, r, optimize_report, w, nullptr).with_context("optimizing before quantization"));
    }

    Graph q;
    NF_RETURN_IF_ERROR(quantize_graph(g, blob_samples, qo, q, report_json, w, progress));

    // `out` may be this handle: everything it takes is copied first
    IoMap io = io_;
    LoadOptions lo;
    lo.shapes = shapes_;
    lo.use_simd = use_simd_;
    out.net_.reset();
    out.structure_only_ = false;
    out.fp16_default_ = false;
    out.io_ = IoMap();
    NF_RETURN_IF_ERROR(out.finish_load(std::move(q), std::move(w), lo));
    return out.set_io_map(io);
}

}  // namespace nnfold
