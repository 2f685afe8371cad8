// nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=c,h,w]
// nnfold convert IN.onnx OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=d0,d1,...]
#include <cstdio>

#include "api/model.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/json.h"

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
    "ONNX names, shapes and layouts of its inputs and outputs (nnfold run/info use it; so does a\n"
    "converted .param given with its IN.io.json). For .onnx inputs with symbolic dimensions give\n"
    "--shape NAME=d0,d1,... (the full ONNX shape).\n";

int cmd_convert(int argc, char** argv) {
    Args a;
    // IN.onnx OUT.param OUT.bin, or IN.param IN.bin OUT.param OUT.bin
    auto arity_ok = [](const Args& a) {
        return a.positional.size() == (!a.positional.empty() && is_onnx_path(a.positional[0]) ? 3u : 4u);
    };
    int code = start_command(argc, argv, kConvertHelp, {"help", "fp16", "optimize"}, {"shape", "seed"}, arity_ok, a);
    if (code >= 0)
        return code;
    const bool onnx = is_onnx_path(a.positional[0]);
    LoadOptions lo;
    Status st = parse_model_shapes(a.positional[0], a.all("shape"), lo);
    if (st)
        st = seed_option(a, lo.seed);
    if (!st)
        return usage_error("convert", st);
    ModelHandle model;
    st = load_cli_model(a.positional[0], onnx ? "null" : a.positional[1], lo, false, model);
    if (!st) {
        print_warnings(model.warnings());
        return report("convert", st);
    }
    Warnings warnings = model.warnings();
    if (a.has("optimize")) {
        // the io map's blobs are kept by ModelHandle::optimize
        OptimizeRequest req;
        std::string rep;
        st = model.optimize(req, rep);
        if (!st) {
            print_warnings(warnings);
            return report("convert", st);
        }
        json j = json::parse(rep, nullptr, false);
        if (j.is_object()) {
            int rewrites = 0;
            for (auto& p : j["passes"])
                rewrites += (int)p["rewrites"].size();
            fprintf(stderr, "optimize: %d rewrites; layers %d -> %d\n", rewrites, j["before"].value("layers", 0),
                    j["after"].value("layers", 0));
        }
        warnings = model.warnings();
    }
    const std::string out_param = a.positional[onnx ? 1 : 2], out_bin = a.positional[onnx ? 2 : 3];
    std::string param;
    std::vector<uint8_t> bin;
    st = model.to_ncnn(a.has("fp16") ? 1 : 0, param, bin, warnings);
    print_warnings(warnings);
    if (st)
        st = write_file(out_param, param.data(), param.size());
    if (st)
        st = write_file(out_bin, bin.data(), bin.size());
    const std::string io = model.io_json();
    if (st && !io.empty())
        st = write_file(io_json_path(out_param), io.data(), io.size());
    return report("convert", st);
}

}  // namespace cli
}  // namespace nnfold
