// nnfold optimize IN.param IN.bin|null OUT.param OUT.bin [flag] [cutstart cutend] [options]
// (ncnnoptimize's argument form, plus named options).
#include <algorithm>
#include <cstdio>

#include "analysis/analysis.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "io/ncnn_io.h"
#include "passes/cut.h"
#include "passes/optimizer.h"

namespace nnfold {
namespace cli {

static const char* kOptimizeHelp =
    "usage: nnfold optimize IN.param IN.bin|null OUT.param OUT.bin [flag [cutstart [cutend]]] [options]\n"
    "\n"
    "Fuses and removes layers the way ncnnoptimize does, checking every condition the algebra\n"
    "needs, and repeats its passes until nothing changes. Outputs agree with the input model\n"
    "within 1e-4 (check with nnfold verify). One line per rewrite is printed to stderr.\n"
    "\n"
    "  IN.bin 'null'        nnfold's seeded random weights (--seed)\n"
    "  flag                 0 fp32 storage (default); 1 or 65536 fp16 storage of weight arrays\n"
    "  cutstart [cutend]    keep only the layers from cutstart to cutend (layer names, both\n"
    "                       included; '-' for the model's first / last layer); blobs entering the\n"
    "                       range become inputs. The cut happens before optimizing.\n"
    "\n"
    "options:\n"
    "  --fp16               fp16 storage (same as flag 1)\n"
    "  --passes=a,b         run only these passes (still in pipeline order)\n"
    "  --list-passes        print the passes in pipeline order and exit\n"
    "  --keep=b1,b2         blobs no rewrite may remove or change\n"
    "  --explain            also print each candidate a pass refused, with the reason\n"
    "  --report=FILE        write the report JSON (passes, rewrites, skipped, before/after)\n"
    "  --shape NAME=c,h,w   input shape (needed when the model declares none)\n"
    "  --seed N             seed for random weights (default 0)\n";

int cmd_optimize(int argc, char** argv) {
    Args a;
    // IN.param IN.bin OUT.param OUT.bin [flag [cutstart [cutend]]]; --list-passes alone
    int code = start_command(argc, argv, kOptimizeHelp, {"help", "fp16", "explain", "list-passes"},
                             {"passes", "keep", "report", "shape", "seed"}, [](const Args& a) {
                                 return a.has("list-passes") || (a.positional.size() >= 4 && a.positional.size() <= 7);
                             }, a);
    if (code >= 0)
        return code;
    if (a.has("list-passes")) {
        for (auto& n : optimizer_pass_names())
            printf("%s\n", n.c_str());
        return kOk;
    }
    const auto& pos = a.positional;
    bool fp16 = a.has("fp16");
    if (pos.size() >= 5) {
        const std::string& f = pos[4];
        if (f == "1" || f == "65536")
            fp16 = true;
        else if (f != "0") {
            fprintf(stderr, "nnfold optimize: flag must be 0 (fp32), 1 or 65536 (fp16), got '%s'\n", f.c_str());
            return kUsage;
        }
    }
    // ncnnoptimize takes cutstart alone too (then the model runs to its end)
    std::string cutstart, cutend;
    if (pos.size() >= 6)
        cutstart = pos[5] == "-" ? "" : pos[5];
    if (pos.size() == 7)
        cutend = pos[6] == "-" ? "" : pos[6];
    OptimizeOptions opt;
    opt.passes = split_commas(a.all("passes"));
    // pass names are this command's vocabulary: a wrong one is a usage error
    std::vector<std::string> valid = optimizer_pass_names();
    for (auto& n : opt.passes)
        if (std::find(valid.begin(), valid.end(), n) == valid.end()) {
            std::string list;
            for (auto& v : valid)
                list += (list.empty() ? "" : ", ") + v;
            fprintf(stderr, "nnfold optimize: unknown pass '%s'; valid passes: %s\n", n.c_str(), list.c_str());
            return kUsage;
        }
    opt.keep = split_commas(a.all("keep"));
    opt.explain = a.has("explain");
    uint32_t seed = 0;
    Status st = parse_shapes(a.all("shape"), opt.input_shapes);
    if (st)
        st = seed_option(a, seed);
    if (!st)
        return usage_error("optimize", st);

    if (is_onnx_path(pos[0]))
        return report("optimize", invalid_argument("optimize takes ncnn models; for an .onnx model use nnfold convert " +
                                                   pos[0] + " OUT.param OUT.bin --optimize (it also writes OUT.io.json)"));
    Graph g;
    Warnings warnings;
    st = load_model(pos[0], pos[1], seed, g, warnings);
    if (st && (!cutstart.empty() || !cutend.empty()))
        st = cut_graph(g, cutstart, cutend, opt.input_shapes, warnings);
    if (!st) {
        print_warnings(warnings);
        return report("optimize", st);
    }
    OptimizeReport rep;
    st = optimize(g, opt, rep, warnings);
    if (!st) {
        print_warnings(warnings);
        return report("optimize", st);
    }
    for (auto& line : report_lines(rep))
        fprintf(stderr, "%s\n", line.c_str());

    std::string param;
    std::vector<uint8_t> bin;
    BinWriteOptions bo;
    bo.fp16 = fp16;
    st = write_param(g, param, warnings);
    if (st)
        st = write_bin(g, bin, bo, warnings);
    print_warnings(warnings);
    if (st)
        st = write_file(pos[2], param.data(), param.size());
    if (st)
        st = write_file(pos[3], bin.data(), bin.size());
    if (st && a.has("report")) {
        std::string j = report_json(rep) + "\n";
        st = write_file(a.get("report"), j.data(), j.size());
    }
    if (!st)
        return report("optimize", st);
    std::string mem = rep.after.memory_known ? std::to_string(rep.before.memory_bytes) + " -> " +
                                                   std::to_string(rep.after.memory_bytes) + " bytes"
                                             : std::string("unknown");
    fprintf(stderr, "optimized: %d rewrites; layers %d -> %d; weights %llu -> %llu bytes (.bin %zu bytes%s); memory %s\n",
            rep.rewrite_count(), rep.before.layers, rep.after.layers, (unsigned long long)rep.before.weights_bytes,
            (unsigned long long)rep.after.weights_bytes, bin.size(), fp16 ? ", fp16" : "", mem.c_str());
    return kOk;
}

}  // namespace cli
}  // namespace nnfold
