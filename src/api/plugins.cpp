#include "api/plugins.h"

namespace nnfold {

namespace {
Status not_in_build(const char* what) {
    return unsupported(std::string(what) + " is not available in this build");
}
}  // namespace

Status optimize_graph(Graph&, const OptimizeRequest&, std::string&, Warnings&, const ProgressFn&) {
    return not_in_build("the optimizer");
}

Status verify_models(ModelHandle&, ModelHandle&, uint32_t, std::string&, const ProgressFn&) {
    return not_in_build("verify");
}

Status import_onnx_model(const uint8_t*, size_t, Graph&, Warnings&) { return not_in_build("ONNX import"); }

bool have_optimizer() { return false; }
bool have_verify() { return false; }
bool have_onnx_import() { return false; }

}  // namespace nnfold
