#include "api/plugins.h"

#include <algorithm>

#include "io/onnx/onnx_import.h"
#include "passes/cut.h"
#include "passes/optimizer.h"
#include "runtime/verify.h"

namespace nnfold {

Status optimize_graph(Graph& g, const OptimizeRequest& req, std::string& report, Warnings& warnings,
                      const ProgressFn& progress) {
    std::map<std::string, Shape> shapes = req.input_shapes;
    if (!req.cut_start.empty() || !req.cut_end.empty()) {
        NF_RETURN_IF_ERROR(cut_graph(g, req.cut_start, req.cut_end, shapes, warnings));
        // inputs the cut removed take no shape; new ones declare theirs
        std::map<std::string, Shape> kept;
        for (int b : g.input_blobs())
            if (shapes.count(g.blobs[b].name))
                kept[g.blobs[b].name] = shapes[g.blobs[b].name];
        shapes = kept;
    }
    OptimizeOptions opt;
    opt.passes = req.passes;
    opt.keep = req.keep;
    for (auto& b : req.keep_if_present)
        if (g.find_blob(b) >= 0 && std::find(opt.keep.begin(), opt.keep.end(), b) == opt.keep.end())
            opt.keep.push_back(b);
    opt.explain = req.explain;
    opt.input_shapes = shapes;
    volatile bool cancel = false;
    opt.cancel = &cancel;
    if (progress)
        opt.progress = [&](const OptimizeProgress& p) {
            if (!progress(p.pass_index, p.pass_count))
                cancel = true;
        };
    OptimizeReport r;
    NF_RETURN_IF_ERROR(optimize(g, opt, r, warnings));
    report = report_json(r);
    return Status::ok();
}

Status verify_models(ModelHandle& a, ModelHandle& b, const VerifyRequest& req, std::string& report,
                     const ProgressFn& progress) {
    if (!a.loaded() || !b.loaded())
        return invalid_argument("verify needs two loaded models");
    VerifyOptions opt;
    opt.seed = req.seed;
    opt.tolerance = req.tolerance;
    opt.find_divergence = req.divergence;
    opt.input_shapes = a.input_shapes();
    opt.use_simd = a.uses_simd() || b.uses_simd();
    opt.progress = progress;
    VerifyResult r;
    NF_RETURN_IF_ERROR(verify_models(a.graph(), b.graph(), opt, r));
    report = verify_json(r);
    return Status::ok();
}

Status import_onnx_model(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& warnings,
                         const std::map<std::string, std::vector<int64_t>>& input_shapes) {
    OnnxImportOptions opt;
    opt.input_shapes = input_shapes;
    return import_onnx(data, size, g, io, warnings, opt);
}

bool have_optimizer() { return true; }
bool have_verify() { return true; }
bool have_onnx_import() { return true; }

}  // namespace nnfold
