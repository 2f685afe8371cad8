// nnfold run MODEL.param [MODEL.bin|null] | MODEL.onnx [--input NAME=file.f32] [--shape NAME=c,h,w] [--seed N]
//            [--output NAME] [--output-dir DIR] [--no-simd]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/json.h"
#include "core/strings.h"
#include "io/io_map.h"
#include "runtime/analysis.h"
#include "runtime/net.h"
#include "runtime/random.h"

namespace nnfold {
namespace cli {

static const char* kRunHelp =
    "usage: nnfold run MODEL.param [MODEL.bin|null] [options]\n"
    "       nnfold run MODEL.onnx [options]\n"
    "\n"
    "Runs a model once. Without a .bin (or with 'null') the weights are nnfold's seeded random\n"
    "weights. Inputs not given with --input get seeded random values in [-1, 1] (one stream, in\n"
    "the model's input order). An .onnx model, or a .param with the MODEL.io.json that convert\n"
    "writes beside it, takes and gives tensors under the ONNX names, shapes and layouts.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.f32   raw little-endian float32 input, outermost-first, dense\n"
    "  --shape NAME=c,h,w      input shape (needed when the model declares none); for .onnx\n"
    "                          models the full ONNX shape, e.g. --shape input=1,3,224,224\n"
    "  --seed N                seed for random weights and inputs (default 0)\n"
    "  --output NAME           blob to extract (repeatable; default: the model's outputs)\n"
    "  --output-dir DIR        write DIR/<escaped blob name>.f32 per output and DIR/summary.json\n"
    "  --no-simd               use the scalar reference layers\n"
    "Prints the summary JSON (per output: shape, min, max, mean, first values) to stdout.\n";

namespace {

// Summary entry for one output (values dense, outermost-first in `shape`).
json output_summary(const std::string& name, const json& shape, const float* data, size_t n) {
    double mn = INFINITY, mx = -INFINITY, sum = 0;
    size_t nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        float v = data[i];
        if (!std::isfinite(v)) {
            nonfinite++;
            continue;
        }
        mn = std::min(mn, (double)v);
        mx = std::max(mx, (double)v);
        sum += v;
    }
    json o;
    o["name"] = name;
    o["shape"] = shape;
    o["min"] = n > nonfinite ? json(mn) : json(nullptr);
    o["max"] = n > nonfinite ? json(mx) : json(nullptr);
    o["mean"] = n > nonfinite ? json(sum / (double)(n - nonfinite)) : json(nullptr);
    o["nonfinite"] = nonfinite;
    json first = json::array();
    for (size_t i = 0; i < n && i < 8; i++)
        first.push_back(std::isfinite(data[i]) ? json(data[i]) : json(nullptr));
    o["first"] = first;
    return o;
}

}  // namespace

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
    const bool onnx = is_onnx_path(a.positional[0]);
    std::map<std::string, Shape> shapes;
    if (!onnx) {
        Status st = parse_shapes(a.all("shape"), shapes);
        if (!st) {
            report("run", st);
            return kUsage;
        }
    }
    CliModel model;
    Warnings warnings;
    Status st = load_cli_model(a.positional[0], a.positional.size() > 1 ? a.positional[1] : "null", seed,
                               onnx ? a.all("shape") : std::vector<std::string>(), model, warnings);
    print_warnings(warnings);
    if (!st)
        return report("run", st);
    const IoMap io = model.io;
    const bool mapped = !io.empty();

    NetOptions nopt;
    nopt.use_simd = !a.has("no-simd");
    Net net;
    st = net.load(std::move(model.g), nopt);
    if (!st)
        return report("run", st);

    // Inputs by the names the user sees: the original (ONNX) names for mapped models, blob names
    // otherwise (a mapped model also accepts its blob names).
    std::map<std::string, std::string> given;  // blob -> file
    for (auto& spec : a.all("input")) {
        size_t eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) {
            fprintf(stderr, "nnfold run: --input expects NAME=FILE.f32, got '%s'\n", spec.c_str());
            return kUsage;
        }
        std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
        std::string blob = name;
        if (mapped) {
            const IoEntry* e = io.find_input(name);
            if (e)
                blob = e->blob;
        }
        auto names = net.input_names();
        if (std::find(names.begin(), names.end(), blob) == names.end())
            return report("run", invalid_argument("the model has no input named " + quote(name)));
        given[blob] = path;
    }
    std::map<std::string, Mat> inputs;
    Rng rng(seed);
    for (auto& bname : net.input_names()) {
        const IoEntry* e = mapped ? io.find_by_blob(bname) : nullptr;
        Mat m;
        if (e) {
            // original shape and layout; random values drawn in that order
            std::vector<float> vals((size_t)e->numel());
            auto it = given.find(bname);
            if (it != given.end()) {
                std::vector<uint8_t> bytes;
                st = read_file(it->second, bytes);
                if (!st)
                    return report("run", st);
                if (bytes.size() != vals.size() * 4)
                    return report("run", invalid_argument(it->second + " has " + std::to_string(bytes.size()) +
                                                          " bytes; input " + quote(e->name) + " needs " +
                                                          std::to_string(vals.size() * 4)));
                std::memcpy(vals.data(), bytes.data(), bytes.size());
            } else {
                for (auto& v : vals)
                    v = rng.uniform(-1.f, 1.f);
            }
            st = io_to_ncnn(*e, vals.data(), vals.size(), m);
            if (!st)
                return report("run", st);
            inputs[bname] = m;
            continue;
        }
        Shape s = shapes.count(bname) ? shapes[bname] : net.declared_input_shape(bname);
        if (!s.known())
            return report("run", invalid_argument("input " + quote(bname) +
                                                  " declares no shape; give one with --shape " + bname + "=c,h,w"));
        st = m.create(s);
        if (!st)
            return report("run", st);
        auto it = given.find(bname);
        if (it != given.end()) {
            std::vector<uint8_t> bytes;
            st = read_file(it->second, bytes);
            if (!st)
                return report("run", st);
            if (bytes.size() != s.total() * 4)
                return report("run", invalid_argument(it->second + " has " + std::to_string(bytes.size()) +
                                                      " bytes; input " + quote(bname) + " of shape " + s.str() +
                                                      " needs " + std::to_string(s.total() * 4)));
            std::memcpy(m.data, bytes.data(), bytes.size());
        } else {
            fill_uniform(m, rng);
        }
        inputs[bname] = m;
    }

    // Outputs: names as the user sees them -> blobs
    std::vector<std::string> order = a.all("output");
    if (order.empty()) {
        if (mapped)
            for (auto& e : io.outputs)
                order.push_back(e.name);
        else
            order = net.output_names();
    }
    std::vector<std::string> wanted;
    std::vector<const IoEntry*> entries;
    for (auto& name : order) {
        const IoEntry* e = mapped ? io.find_output(name) : nullptr;
        entries.push_back(e);
        wanted.push_back(e ? e->blob : name);
    }
    std::map<std::string, Mat> outputs;
    RunStats stats;
    st = net.run(inputs, wanted, outputs, &stats);
    if (!st)
        return report("run", st);

    std::string dir = a.get("output-dir");
    if (!dir.empty()) {
        st = make_dirs(dir);
        if (!st)
            return report("run", st);
    }
    json summary;
    summary["outputs"] = json::array();
    for (size_t k = 0; k < order.size(); k++) {
        const Mat& m = outputs[wanted[k]];
        std::vector<float> vals;
        json shape;
        if (entries[k]) {
            st = io_from_ncnn(*entries[k], m, vals);
            if (!st)
                return report("run", st);
            shape = entries[k]->shape;
        } else {
            vals.assign(m.data, m.data + m.total_floats());
            shape = shape_to_json(m.shape());
        }
        json o = output_summary(order[k], shape, vals.data(), vals.size());
        if (!dir.empty()) {
            std::string file = escape_file_name(order[k]) + ".f32";
            o["file"] = file;
            st = write_file(dir + "/" + file, vals.data(), vals.size() * 4);
            if (!st)
                return report("run", st);
        }
        summary["outputs"].push_back(o);
    }
    summary["peak_bytes"] = stats.peak_bytes;
    summary["ms"] = stats.total_ms;
    summary["simd"] = net.uses_simd();
    std::string text = dump_json(summary, 2) + "\n";
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
