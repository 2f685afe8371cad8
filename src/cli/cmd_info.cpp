// nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]
// nnfold info MODEL.onnx [--json] [--shape NAME=d0,d1,...]
#include <cstdio>

#include "api/model.h"
#include "cli/cli_common.h"
#include "cli/commands.h"

namespace nnfold {
namespace cli {

static const char* kInfoHelp =
    "usage: nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]\n"
    "       nnfold info MODEL.onnx [--json] [--shape NAME=d0,d1,...]\n"
    "\n"
    "Shows layers by type, inputs and outputs with inferred shapes, weight sizes and the\n"
    "estimated peak memory (live tensors + weights). With a .bin, its storage is checked too.\n"
    "An .onnx model (imported), or a .param with the MODEL.io.json that convert writes beside it,\n"
    "shows its inputs and outputs under the ONNX names, shapes and layouts.\n";

int cmd_info(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "json"}, {"shape"}, a))
        return kUsage;
    if (a.has("help")) {
        fputs(kInfoHelp, stdout);
        return kOk;
    }
    const bool onnx = !a.positional.empty() && is_onnx_path(a.positional[0]);
    if (a.positional.empty() || a.positional.size() > (onnx ? 1u : 2u)) {
        fputs(kInfoHelp, stderr);
        return kUsage;
    }
    LoadOptions lo;
    Status st = parse_model_shapes(a.positional[0], a.all("shape"), lo);
    if (!st) {
        report("info", st);
        return kUsage;
    }
    // Structure only without a .bin: sizes come from the layers' weight specs (no random weights
    // are drawn just to describe the model).
    ModelHandle model;
    st = load_cli_model(a.positional[0], a.positional.size() > 1 ? a.positional[1] : "null", lo, true, model);
    print_warnings(model.warnings());
    if (!st)
        return report("info", st);
    if (a.has("json"))
        printf("%s\n", model.info_json().c_str());
    else
        fputs(model.info_text(a.positional[0]).c_str(), stdout);
    return kOk;
}

}  // namespace cli
}  // namespace nnfold
