// nnfold randomize MODEL.param OUT.bin [--seed N]
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "api/model.h"

namespace nnfold {
namespace cli {

static const char* kRandomizeHelp =
    "usage: nnfold randomize MODEL.param OUT.bin [--seed N]\n"
    "\n"
    "Writes nnfold's seeded random weights (docs/numbers.md) for a structure-only .param:\n"
    "weights uniform in +-sqrt(3/fan_in), small biases, BatchNorm variance in [0.5, 1.5].\n"
    "The same seed gives the same bytes in the native CLI, the npm package and the page.\n";

int cmd_randomize(int argc, char** argv) {
    Args a;
    int code = start_command(argc, argv, kRandomizeHelp, {"help"}, {"seed"},
                             [](const Args& a) { return a.positional.size() == 2; }, a);
    if (code >= 0)
        return code;
    uint32_t seed = 0;
    Status st = seed_option(a, seed);
    if (!st)
        return usage_error("randomize", st);
    std::vector<uint8_t> text;
    st = read_file(a.positional[0], text);
    if (!st)
        return report("randomize", st);
    LoadOptions lo;
    lo.seed = seed;
    lo.param_name = a.positional[0];
    ModelHandle model;
    st = model.load_ncnn(std::string(text.begin(), text.end()), nullptr, 0, false, lo);
    print_warnings(model.warnings());
    if (!st)
        return report("randomize", st);
    // only the .bin is written; warnings about the .param (shape hints) do not concern it
    std::string param;
    std::vector<uint8_t> bin;
    Warnings ignored;
    st = model.to_ncnn(0, param, bin, ignored);
    if (st)
        st = write_file(a.positional[1], bin.data(), bin.size());
    return report("randomize", st);
}

}  // namespace cli
}  // namespace nnfold
