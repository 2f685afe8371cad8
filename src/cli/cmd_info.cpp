// nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "api/model.h"

namespace nnfold {
namespace cli {

static const char* kInfoHelp =
    "usage: nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]\n"
    "\n"
    "Shows layers by type, inputs and outputs with inferred shapes, weight sizes and the\n"
    "estimated peak memory (live tensors + weights). With a .bin, its storage is checked too.\n";

int cmd_info(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "json"}, {"shape"}, a))
        return kUsage;
    if (a.has("help")) {
        fputs(kInfoHelp, stdout);
        return kOk;
    }
    if (a.positional.empty() || a.positional.size() > 2) {
        fputs(kInfoHelp, stderr);
        return kUsage;
    }
    std::map<std::string, Shape> shapes;
    Status st = parse_shapes(a.all("shape"), shapes);
    if (!st) {
        report("info", st);
        return kUsage;
    }
    std::vector<uint8_t> text, bin;
    st = read_file(a.positional[0], text);
    bool has_bin = a.positional.size() > 1 && a.positional[1] != "null";
    if (st && has_bin)
        st = read_file(a.positional[1], bin);
    if (!st)
        return report("info", st);
    // Structure only without a .bin: sizes come from the layers' weight specs (no random weights
    // are drawn just to describe the model).
    LoadOptions lo;
    lo.shapes = shapes;
    lo.param_name = a.positional[0];
    lo.bin_name = has_bin ? a.positional[1] : "";
    ModelHandle model;
    st = model.load_structure(std::string(text.begin(), text.end()), has_bin ? bin.data() : nullptr, bin.size(),
                              has_bin, lo);
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
