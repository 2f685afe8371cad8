// nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--fp16] [--shape NAME=c,h,w]
// nnfold convert IN.onnx OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=d0,d1,...]
#include <algorithm>
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "io/ncnn_io.h"
#include "runtime/analysis.h"

// The optimizer (task P, src/passes/optimizer.h) is developed in parallel; --optimize uses it in
// every tree that has it.
#if __has_include("passes/optimizer.h")
#include "passes/optimizer.h"
#define NNFOLD_HAVE_OPTIMIZER 1
#else
#define NNFOLD_HAVE_OPTIMIZER 0
#endif

namespace nnfold {
namespace cli {

static const char* kConvertHelp =
    "usage: nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=c,h,w]\n"
    "       nnfold convert IN.onnx OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=d0,d1,...]\n"
    "\n"
    "Reads a model and writes it back in nnfold's canonical form (no optimization): params in id\n"
    "order with defaults omitted, floats written so ncnn reads them back exactly, shape hints where\n"
    "shapes can be inferred. --fp16 stores tagged weight arrays as fp16. --optimize runs the\n"
    "optimizer (nnfold optimize's passes) first; blobs named in the io map are kept.\n"
    "An .onnx model is imported into ncnn layers; OUT.io.json is written beside OUT.param with the\n"
    "ONNX names, shapes and layouts of its inputs and outputs (nnfold run/info use it). For .onnx\n"
    "inputs with symbolic dimensions give --shape NAME=d0,d1,... (the full ONNX shape).\n";

int cmd_convert(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "fp16", "optimize"}, {"shape", "seed"}, a))
        return kUsage;
    if (a.has("help")) {
        fputs(kConvertHelp, stdout);
        return kOk;
    }
    const bool onnx = !a.positional.empty() && is_onnx_path(a.positional[0]);
    if (a.positional.size() != (onnx ? 3u : 4u)) {
        fputs(kConvertHelp, stderr);
        return kUsage;
    }
    std::map<std::string, Shape> shapes;
    Status st = onnx ? Status::ok() : parse_shapes(a.all("shape"), shapes);
    uint32_t seed = 0;
    if (st && a.has("seed"))
        st = parse_seed(a.get("seed"), seed);
    if (!st) {
        report("convert", st);
        return kUsage;
    }
    CliModel model;
    Warnings warnings;
    st = load_cli_model(a.positional[0], onnx ? "null" : a.positional[1], seed,
                        onnx ? a.all("shape") : std::vector<std::string>(), model, warnings);
    if (!st) {
        print_warnings(warnings);
        return report("convert", st);
    }
    Graph& g = model.g;
    if (a.has("optimize")) {
#if NNFOLD_HAVE_OPTIMIZER
        OptimizeOptions oo;
        // outputs the io map names must survive even when another layer also reads them
        for (auto& e : model.io.outputs)
            if (std::find(oo.keep.begin(), oo.keep.end(), e.blob) == oo.keep.end())
                oo.keep.push_back(e.blob);
        OptimizeReport rep;
        st = optimize(g, oo, rep, warnings);
        if (!st) {
            print_warnings(warnings);
            return report("convert", st);
        }
        for (auto& line : report_lines(rep))
            fprintf(stderr, "optimize: %s\n", line.c_str());
#else
        print_warnings(warnings);
        return report("convert", unsupported("--optimize: this build has no optimizer"));
#endif
    }
    const std::string out_param = a.positional[onnx ? 1 : 2], out_bin = a.positional[onnx ? 2 : 3];
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
        st = write_file(out_param, param.data(), param.size());
    if (st)
        st = write_file(out_bin, bin.data(), bin.size());
    if (st && !model.io.empty()) {
        std::string text = model.io.to_json();
        st = write_file(io_json_path(out_param), text.data(), text.size());
    }
    return report("convert", st);
}

}  // namespace cli
}  // namespace nnfold
