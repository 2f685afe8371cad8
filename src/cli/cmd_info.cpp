// nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]
// nnfold info MODEL.onnx [--json] [--shape NAME=d0,d1,...]
#include <cstdio>

#include "api/model.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/reports.h"

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
    // an .onnx file carries its weights: no .bin after it
    int code = start_command(argc, argv, kInfoHelp, {"help", "json"}, {"shape"}, [](const Args& a) {
        return !a.positional.empty() && a.positional.size() <= (is_onnx_path(a.positional[0]) ? 1u : 2u);
    }, a);
    if (code >= 0)
        return code;
    LoadOptions lo;
    Status st = parse_model_shapes(a.positional[0], a.all("shape"), lo);
    if (!st)
        return usage_error("info", st);
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
        fputs(info_text(model, a.positional[0]).c_str(), stdout);
    return kOk;
}

}  // namespace cli
}  // namespace nnfold
