// nnfold run MODEL.param [MODEL.bin|null] [--input NAME=file.f32] [--shape NAME=c,h,w] [--seed N]
//            [--output NAME] [--output-dir DIR] [--reference] [--runs N] [--warmup W]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/cli_common.h"
#include "cli/cpu_clock.h"
#include "cli/commands.h"
#include "core/json.h"
#include "core/strings.h"
#include "runtime/analysis.h"
#include "runtime/net.h"
#include "runtime/random.h"

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
    "  --reference             use the scalar reference layers instead of the optimized ones\n"
    "                          (--no-simd is an older name for it)\n"
    "  --runs N                run N times after the warm-up and report the median time (default 1)\n"
    "  --warmup W              untimed runs before the timed ones (default 0, or 3 with --runs > 1:\n"
    "                          wasm engines optimize hot code after it has run for a while)\n"
    "  --profile               add per-layer-type times of the last run (profile: {type: ms})\n"
    "Prints the summary JSON (per output: shape, min, max, mean, first values; ms; with --runs\n"
    "also runs: {count, warmup, median_ms, min_ms, max_ms, median_cpu_ms}) to stdout.\n";

int cmd_run(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "no-simd", "reference", "profile"},
                    {"input", "shape", "seed", "output", "output-dir", "runs", "warmup"}, a))
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
    int runs = 1, warmup = 0;
    for (const char* opt : {"runs", "warmup"}) {
        if (!a.has(opt))
            continue;
        const std::string v = a.get(opt);
        char* end = nullptr;
        long n = std::strtol(v.c_str(), &end, 10);
        const long lo = std::strcmp(opt, "runs") == 0 ? 1 : 0;
        if (v.empty() || *end != '\0' || n < lo || n > 100000) {
            fprintf(stderr, "nnfold run: --%s expects an integer from %ld to 100000, got '%s'\n", opt, lo, v.c_str());
            return kUsage;
        }
        (std::strcmp(opt, "runs") == 0 ? runs : warmup) = (int)n;
    }
    if (runs > 1 && !a.has("warmup"))
        warmup = 3;
    std::map<std::string, Shape> shapes;
    {
        Status st = parse_shapes(a.all("shape"), shapes);
        if (!st) {
            report("run", st);
            return kUsage;
        }
    }
    Graph g;
    Warnings warnings;
    Status st = load_model(a.positional[0], a.positional.size() > 1 ? a.positional[1] : "null", seed, g, warnings);
    print_warnings(warnings);
    if (!st)
        return report("run", st);

    NetOptions nopt;
    nopt.use_optimized = !a.has("no-simd") && !a.has("reference");
    Net net;
    st = net.load(std::move(g), nopt);
    if (!st)
        return report("run", st);

    std::map<std::string, Mat> inputs;
    for (auto& spec : a.all("input")) {
        size_t eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) {
            fprintf(stderr, "nnfold run: --input expects NAME=FILE.f32, got '%s'\n", spec.c_str());
            return kUsage;
        }
        std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
        Shape s = shapes.count(name) ? shapes[name] : net.declared_input_shape(name);
        auto names = net.input_names();
        if (std::find(names.begin(), names.end(), name) == names.end())
            return report("run", invalid_argument("the model has no input named " + quote(name)));
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
    Rng rng(seed);
    for (auto& name : net.input_names()) {
        if (inputs.count(name))
            continue;
        Shape s = shapes.count(name) ? shapes[name] : net.declared_input_shape(name);
        if (!s.known())
            return report("run", invalid_argument("input " + quote(name) +
                                                  " declares no shape; give one with --shape " + name + "=c,h,w"));
        Mat m;
        st = m.create(s);
        if (!st)
            return report("run", st);
        fill_uniform(m, rng);
        inputs[name] = m;
    }

    std::map<std::string, Mat> outputs;
    RunStats stats;
    std::vector<double> times, cpu_times;
    for (int i = 0; i < warmup + runs; i++) {
        const double cpu0 = cpu_time_ms();
        st = net.run(inputs, a.all("output"), outputs, &stats);
        if (!st)
            return report("run", st);
        const double cpu1 = cpu_time_ms();
        if (i >= warmup) {
            times.push_back(stats.total_ms);
            if (cpu0 >= 0 && cpu1 >= 0)
                cpu_times.push_back(cpu1 - cpu0);
        }
    }

    std::string dir = a.get("output-dir");
    if (!dir.empty()) {
        st = make_dirs(dir);
        if (!st)
            return report("run", st);
    }
    json summary;
    summary["outputs"] = json::array();
    std::vector<std::string> order = a.all("output");
    if (order.empty())
        order = net.output_names();
    for (auto& name : order) {
        const Mat& m = outputs[name];
        size_t n = m.total_floats();
        double mn = INFINITY, mx = -INFINITY, sum = 0;
        size_t nonfinite = 0;
        for (size_t i = 0; i < n; i++) {
            float v = m.data[i];
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
        o["shape"] = shape_to_json(m.shape());
        o["min"] = n > nonfinite ? json(mn) : json(nullptr);
        o["max"] = n > nonfinite ? json(mx) : json(nullptr);
        o["mean"] = n > nonfinite ? json(sum / (double)(n - nonfinite)) : json(nullptr);
        o["nonfinite"] = nonfinite;
        json first = json::array();
        for (size_t i = 0; i < n && i < 8; i++)
            first.push_back(std::isfinite(m.data[i]) ? json(m.data[i]) : json(nullptr));
        o["first"] = first;
        if (!dir.empty()) {
            std::string file = escape_file_name(name) + ".f32";
            o["file"] = file;
            st = write_file(dir + "/" + file, m.data, n * 4);
            if (!st)
                return report("run", st);
        }
        summary["outputs"].push_back(o);
    }
    summary["peak_bytes"] = stats.peak_bytes;
    summary["ms"] = stats.total_ms;
    if (a.has("profile")) {
        std::map<std::string, double> by_type;
        for (auto& lt : stats.layers)
            by_type[net.graph().layers[lt.layer].type] += lt.ms;
        json prof = json::object();
        for (auto& kv : by_type)
            prof[kv.first] = kv.second;
        summary["profile"] = prof;
    }
    summary["optimized"] = net.uses_optimized();
    summary["simd"] = net.uses_simd();
    if (runs > 1 || warmup > 0) {
        auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            const size_t n = v.size();
            return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        };
        json r;
        r["count"] = times.size();
        r["warmup"] = warmup;
        r["median_ms"] = median(times);
        r["min_ms"] = *std::min_element(times.begin(), times.end());
        r["max_ms"] = *std::max_element(times.begin(), times.end());
        // CPU time of the running thread per run: the same as wall time on an idle machine,
        // unaffected by other processes holding the core on a busy one
        if (cpu_times.size() == times.size())
            r["median_cpu_ms"] = median(cpu_times);
        summary["runs"] = r;
    }
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
