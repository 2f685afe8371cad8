// nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--fp16] [--shape NAME=c,h,w]
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "api/model.h"

namespace nnfold {
namespace cli {

static const char* kConvertHelp =
    "usage: nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--fp16] [--shape NAME=c,h,w]\n"
    "\n"
    "Reads a model and writes it back in nnfold's canonical form (no optimization): params in id\n"
    "order with defaults omitted, floats written so ncnn reads them back exactly, shape hints where\n"
    "shapes can be inferred. --fp16 stores tagged weight arrays as fp16.\n";

int cmd_convert(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "fp16"}, {"shape", "seed"}, a))
        return kUsage;
    if (a.has("help")) {
        fputs(kConvertHelp, stdout);
        return kOk;
    }
    if (a.positional.size() != 4) {
        fputs(kConvertHelp, stderr);
        return kUsage;
    }
    std::map<std::string, Shape> shapes;
    Status st = parse_shapes(a.all("shape"), shapes);
    uint32_t seed = 0;
    if (st && a.has("seed"))
        st = parse_seed(a.get("seed"), seed);
    if (!st) {
        report("convert", st);
        return kUsage;
    }
    std::vector<uint8_t> text, bin_in;
    bool has_bin = a.positional[1] != "null";
    st = read_file(a.positional[0], text);
    if (st && has_bin)
        st = read_file(a.positional[1], bin_in);
    if (!st)
        return report("convert", st);
    LoadOptions lo;
    lo.seed = seed;
    lo.shapes = shapes;
    lo.param_name = a.positional[0];
    lo.bin_name = a.positional[1];
    ModelHandle model;
    st = model.load_ncnn(std::string(text.begin(), text.end()), bin_in.data(), bin_in.size(), has_bin, lo);
    if (!st) {
        print_warnings(model.warnings());
        return report("convert", st);
    }
    Warnings warnings = model.warnings();
    std::string param;
    std::vector<uint8_t> bin;
    st = model.to_ncnn(a.has("fp16") ? 1 : 0, param, bin, warnings);
    print_warnings(warnings);
    if (st)
        st = write_file(a.positional[2], param.data(), param.size());
    if (st)
        st = write_file(a.positional[3], bin.data(), bin.size());
    return report("convert", st);
}

}  // namespace cli
}  // namespace nnfold
