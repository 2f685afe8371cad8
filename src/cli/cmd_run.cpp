// nnfold run MODEL.param [MODEL.bin|null] [--input NAME=file.f32] [--shape NAME=c,h,w] [--seed N]
//            [--output NAME] [--output-dir DIR] [--no-simd]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "api/model.h"
#include "core/strings.h"

namespace nnfold {
namespace cli {

static const char* kRunHelp =
    "usage: nnfold run MODEL.param [MODEL.bin|null] [options]\n"
    "\n"
    "Runs a model once. Without a .bin (or with 'null') the weights are nnfold's seeded random\n"
    "weights. Inputs not given with --input get seeded random values in [-1, 1] (one stream, in\n"
    "the model's input order).\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.f32   raw little-endian float32 input, outermost-first, dense\n"
    "  --shape NAME=c,h,w      input shape (needed when the model declares none)\n"
    "  --seed N                seed for random weights and inputs (default 0)\n"
    "  --output NAME           blob to extract (repeatable; default: the model's outputs)\n"
    "  --output-dir DIR        write DIR/<escaped blob name>.f32 per output and DIR/summary.json\n"
    "  --no-simd               use the scalar reference layers\n"
    "Prints the summary JSON (per output: shape, min, max, mean, first values) to stdout.\n";

int cmd_run(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "no-simd"}, {"input", "shape", "seed", "output", "output-dir"}, a))
        return kUsage;
    if (a.has("help")) {
        fputs(kRunHelp, stdout);
        return kOk;
    }
    if (a.positional.empty() || a.positional.size() > 2) {
        fputs(kRunHelp, stderr);
        return kUsage;
    }
    uint32_t seed = 0;
    if (a.has("seed")) {
        Status st = parse_seed(a.get("seed"), seed);
        if (!st) {
            report("run", st);
            return kUsage;
        }
    }
    std::map<std::string, Shape> shapes;
    {
        Status st = parse_shapes(a.all("shape"), shapes);
        if (!st) {
            report("run", st);
            return kUsage;
        }
    }
    std::vector<uint8_t> param_bytes, bin_bytes;
    Status st = read_file(a.positional[0], param_bytes);
    bool has_bin = a.positional.size() > 1 && a.positional[1] != "null";
    if (st && has_bin)
        st = read_file(a.positional[1], bin_bytes);
    if (!st)
        return report("run", st);
    LoadOptions lo;
    lo.seed = seed;
    lo.shapes = shapes;
    lo.param_name = a.positional[0];
    lo.bin_name = has_bin ? a.positional[1] : "";
    lo.use_simd = !a.has("no-simd");
    ModelHandle model;
    st = model.load_ncnn(std::string(param_bytes.begin(), param_bytes.end()), bin_bytes.data(), bin_bytes.size(),
                         has_bin, lo);
    print_warnings(model.warnings());
    if (!st)
        return report("run", st);
    param_bytes = std::vector<uint8_t>();
    bin_bytes = std::vector<uint8_t>();

    std::map<std::string, Mat> inputs;
    for (auto& spec : a.all("input")) {
        size_t eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) {
            fprintf(stderr, "nnfold run: --input expects NAME=FILE.f32, got '%s'\n", spec.c_str());
            return kUsage;
        }
        std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
        bool is_input = false;
        for (auto& io : model.inputs())
            is_input = is_input || io.name == name;
        if (!is_input)
            return report("run", invalid_argument("the model has no input named " + quote(name)));
        Shape s = model.input_shape(name);
        if (!s.known())
            return report("run", invalid_argument("input " + quote(name) +
                                                  " declares no shape; give one with --shape " + name + "=c,h,w"));
        std::vector<uint8_t> bytes;
        st = read_file(path, bytes);
        if (!st)
            return report("run", st);
        if (bytes.size() != s.total() * 4)
            return report("run", invalid_argument(path + " has " + std::to_string(bytes.size()) + " bytes; input " +
                                                  quote(name) + " of shape " + s.str() + " needs " +
                                                  std::to_string(s.total() * 4)));
        Mat m;
        st = m.create(s);
        if (!st)
            return report("run", st);
        std::memcpy(m.data, bytes.data(), bytes.size());
        inputs[name] = m;
    }
    // inputs not given: one seeded stream, in the model's input order
    st = model.fill_missing_inputs(seed, inputs);
    if (!st)
        return report("run", st);

    std::map<std::string, Mat> outputs;
    RunStats stats;
    st = model.run(inputs, a.all("output"), outputs, &stats);
    if (!st)
        return report("run", st);

    std::string dir = a.get("output-dir");
    if (!dir.empty()) {
        st = make_dirs(dir);
        if (!st)
            return report("run", st);
    }
    std::vector<std::string> order = a.all("output");
    if (order.empty())
        for (auto& io : model.outputs())
            order.push_back(io.name);
    std::map<std::string, std::string> files;
    if (!dir.empty()) {
        for (auto& name : order) {
            const Mat& m = outputs[name];
            std::string file = escape_file_name(name) + ".f32";
            files[name] = file;
            st = write_file(dir + "/" + file, m.data, m.total_floats() * 4);
            if (!st)
                return report("run", st);
        }
    }
    std::string text = run_summary_json(order, outputs, files, stats, model.uses_simd());
    if (!dir.empty()) {
        st = write_file(dir + "/summary.json", text.data(), text.size());
        if (!st)
            return report("run", st);
    }
    fputs(text.c_str(), stdout);
    return kOk;
}

}  // namespace cli
}  // namespace nnfold
