// nnfold verify A.param A.bin|null B.param B.bin|null [--seed N] [--shape NAME=c,h,w] [--json] [--threads N]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/strings.h"
#include "runtime/verify.h"

namespace nnfold {
namespace cli {

static const char* kVerifyHelp =
    "usage: nnfold verify A.param A.bin|null B.param B.bin|null [options]\n"
    "\n"
    "Runs both models on the same seeded random inputs (uniform in [-1, 1], in A's input order)\n"
    "and prints, per output (matched by name, shapes must be equal), the error\n"
    "max|a-b| / max(max|a|, 1e-6), then the first blob both models share (in A's execution order)\n"
    "whose error is over the tolerance, and the layer producing it. Detection outputs are judged\n"
    "by the tensors feeding their head. Exit code 1 when an error is over the tolerance.\n"
    "\n"
    "An int8 model against an fp32 one (one has int8 layers, the other none): without --tolerance\n"
    "its accuracy is reported instead (per-output error, top-1 agreement for a class vector) and\n"
    "only a missing output or a shape that differs fails; with --tolerance it is held to it.\n"
    "\n"
    "options:\n"
    "  --seed N             seed for the inputs and for 'null' random weights (default 0)\n"
    "  --shape NAME=c,h,w   input shape (needed when the models declare none)\n"
    "  --tolerance X        default 1e-4 (the optimizer's budget); int8 against fp32: none\n"
    "  --json               print the result as JSON\n"
    "  --no-simd            use the scalar reference layers\n"
    "  --no-divergence      compare outputs only\n"
    "  --threads N          threads that run the models (default: the machine's cores, at most 8;\n"
    "                       1 runs everything on one thread, without a thread pool)\n";

namespace {

// Whether a model computes in int8 (ncnn2int8's output): an int8 Convolution/ConvolutionDepthWise/
// InnerProduct (int8_scale_term, param 8, non-zero) or a Quantize/Dequantize/Requantize layer.
bool has_int8_layers(const Graph& g) {
    for (auto& l : g.layers) {
        if (l.type == "Quantize" || l.type == "Dequantize" || l.type == "Requantize")
            return true;
        if ((l.type == "Convolution" || l.type == "ConvolutionDepthWise" || l.type == "InnerProduct") &&
            l.params.get_int(8, 0) != 0)
            return true;
    }
    return false;
}

std::string err_str(double e) {
    if (!std::isfinite(e))
        return "inf";
    char buf[32];
    snprintf(buf, sizeof(buf), "%.3g", e);
    return buf;
}

}  // namespace

int cmd_verify(int argc, char** argv) {
    Args a;
    int code = start_command(argc, argv, kVerifyHelp, {"help", "json", "no-simd", "no-divergence"},
                             {"seed", "shape", "tolerance", "threads"},
                             [](const Args& a) { return a.positional.size() == 4; }, a);
    if (code >= 0)
        return code;
    VerifyOptions opt;
    Status st = parse_shapes(a.all("shape"), opt.input_shapes);
    if (st)
        st = seed_option(a, opt.seed);
    if (st && a.has("tolerance")) {
        std::string v = a.get("tolerance");
        char* end = nullptr;
        double t = v.empty() ? NAN : std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(t >= 0.0) || !std::isfinite(t))
            st = invalid_argument("--tolerance expects a non-negative number, got '" + a.get("tolerance") + "'");
        else
            opt.tolerance = t;
    }
    if (!st)
        return usage_error("verify", st);
    code = threads_option("verify", a);
    if (code >= 0)
        return code;
    opt.use_simd = !a.has("no-simd");
    opt.find_divergence = !a.has("no-divergence");

    for (int k : {0, 2})
        if (is_onnx_path(a.positional[k]))
            return report("verify", invalid_argument("verify takes ncnn models; convert " + a.positional[k] +
                                                     " first (nnfold convert IN.onnx OUT.param OUT.bin)"));
    Graph ga, gb;
    Warnings warnings;
    st = load_model(a.positional[0], a.positional[1], opt.seed, ga, warnings);
    if (st)
        st = load_model(a.positional[2], a.positional[3], opt.seed, gb, warnings);
    print_warnings(warnings);
    if (!st)
        return report("verify", st);
    // docs/cli.md (verify): an int8 model against its fp32 original reports its accuracy unless
    // a tolerance is given
    opt.accuracy = !a.has("tolerance") && has_int8_layers(ga) != has_int8_layers(gb);
    VerifyResult r;
    st = verify_models(ga, gb, opt, r);
    if (!st)
        return report("verify", st);

    if (a.has("json")) {
        printf("%s\n", verify_json(r).c_str());
    } else {
        int classes = 0, agree = 0;
        auto line = [&](const char* kind, const BlobDiff& d) {
            std::string top1;
            if (d.top1_a >= 0) {
                classes++;
                agree += d.top1_a == d.top1_b;
                top1 = d.top1_a == d.top1_b ? ", top-1 same (class " + std::to_string(d.top1_a) + ")"
                                            : ", top-1 differs (A class " + std::to_string(d.top1_a) + ", B class " +
                                                  std::to_string(d.top1_b) + ")";
            }
            printf("%s %s %s: err %s%s%s%s\n", kind, quote(d.name).c_str(),
                   (d.shape_a.known() ? d.shape_a.str() : std::string("[?]")).c_str(), err_str(d.err).c_str(),
                   top1.c_str(), d.note.empty() ? "" : " - ", d.note.c_str());
        };
        for (auto& d : r.outputs)
            line("output", d);
        for (auto& d : r.head_inputs)
            line("head input", d);
        if (opt.accuracy) {
            printf("first divergence: not searched (int8 against fp32)\n");
            std::string t = classes ? "; top-1 agrees on " + std::to_string(agree) + " of " + std::to_string(classes) +
                                          " class output(s)"
                                    : std::string();
            printf("%s: int8 against fp32, no --tolerance: max err %s%s\n", r.passed ? "ACCURACY" : "FAIL",
                   err_str(r.max_err).c_str(), t.c_str());
            return r.passed ? kOk : kBadInput;
        }
        if (!opt.find_divergence)
            printf("first divergence: not searched\n");
        else if (r.diverged)
            printf("first divergence: blob %s from layer %s (%s; %s in B), err %s (%d shared blobs compared)\n",
                   quote(r.diverge_blob).c_str(), quote(r.diverge_layer).c_str(), r.diverge_type.c_str(),
                   quote(r.diverge_layer_b).c_str(), err_str(r.diverge_err).c_str(), r.blobs_compared);
        else
            printf("first divergence: none (%d shared blobs compared)\n", r.blobs_compared);
        printf("%s: max err %s %s tolerance %s\n", r.passed ? "PASS" : "FAIL", err_str(r.max_err).c_str(),
               r.passed ? "<=" : ">", err_str(r.tolerance).c_str());
    }
    return r.passed ? kOk : kBadInput;
}

}  // namespace cli
}  // namespace nnfold
