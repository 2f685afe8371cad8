// nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--fp16] [--shape NAME=c,h,w]
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "io/ncnn_io.h"
#include "runtime/analysis.h"

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
    Graph g;
    Warnings warnings;
    st = load_model(a.positional[0], a.positional[1], seed, g, warnings);
    if (!st) {
        print_warnings(warnings);
        return report("convert", st);
    }
    Status shape_st = annotate_shapes(g, shapes);
    if (!shape_st)
        warnings.add("shape hints not written: " + shape_st.message());
    std::string param;
    std::vector<uint8_t> bin;
    BinWriteOptions bo;
    bo.fp16 = a.has("fp16");
    st = write_param(g, param, warnings);
    if (st)
        st = write_bin(g, bin, bo, warnings);
    print_warnings(warnings);
    if (st)
        st = write_file(a.positional[2], param.data(), param.size());
    if (st)
        st = write_file(a.positional[3], bin.data(), bin.size());
    return report("convert", st);
}

}  // namespace cli
}  // namespace nnfold
