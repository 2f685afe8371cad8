// nnfold run MODEL.param [MODEL.bin|null] | MODEL.onnx [--input NAME=file.f32] [--shape NAME=c,h,w] [--seed N]
//            [--output NAME] [--output-dir DIR] [--reference] [--runs N] [--warmup W] [--threads N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "cli/cli_common.h"
#include "cli/cpu_clock.h"
#include "cli/commands.h"
#include "cli/reports.h"
#include "api/model.h"
#include "core/json.h"
#include "core/parallel.h"
#include "core/strings.h"

namespace nnfold {
namespace cli {

// An input file as float32 bytes: .f32 as is; .i32 (little-endian int32) and .u8 (bool/uint8)
// converted to the float32 values the graph holds (docs/shapes-and-files.md). Integers beyond +-2^24,
// which float32 cannot hold exactly, are invalid_argument. `values` is the file's element count.
static Status read_input_file(const std::string& path, std::vector<uint8_t>& bytes, uint64_t& values) {
    NF_RETURN_IF_ERROR(read_file(path, bytes));
    auto ends = [&](const char* ext) {
        size_t n = std::strlen(ext);
        return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
    };
    const size_t es = ends(".u8") ? 1 : 4;
    if (bytes.size() % es != 0)
        return invalid_argument(path + " has " + std::to_string(bytes.size()) + " bytes, not a whole number of " +
                                std::to_string(es) + "-byte values");
    values = bytes.size() / es;
    if (!ends(".i32") && !ends(".u8"))
        return Status::ok();
    std::vector<float> f(values);
    for (uint64_t k = 0; k < values; k++) {
        if (es == 1) {
            f[k] = (float)bytes[k];
            continue;
        }
        int32_t v;
        std::memcpy(&v, bytes.data() + k * 4, 4);
        if (v > (1 << 24) || v < -(1 << 24))
            return invalid_argument(path + ": value " + std::to_string(v) + " at " + std::to_string(k) +
                                    " is beyond +-2^24, which float32 cannot hold exactly inside the graph");
        f[k] = (float)v;
    }
    bytes.resize(values * 4);
    std::memcpy(bytes.data(), f.data(), bytes.size());
    return Status::ok();
}

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
    "                          (FILE.i32: int32 values within +-2^24; FILE.u8: bytes, e.g. a bool mask)\n"
    "  --shape NAME=c,h,w      input shape (needed when the model declares none); for .onnx\n"
    "                          models the full ONNX shape, e.g. --shape input=1,3,224,224\n"
    "  --seed N                seed for random weights and inputs (default 0)\n"
    "  --output NAME           blob to extract (repeatable; default: the model's outputs)\n"
    "  --output-dir DIR        write DIR/<escaped blob name>.f32 per output and DIR/summary.json\n"
    "                          (integer outputs .i32, boolean outputs .u8)\n"
    "  --reference             use the scalar reference layers instead of the optimized ones\n"
    "                          (--no-simd is an older name for it)\n"
    "  --runs N                run N times after the warm-up and report the median time (default 1)\n"
    "  --warmup W              untimed runs before the timed ones (default 0, or 3 with --runs > 1:\n"
    "                          wasm engines optimize hot code after it has run for a while)\n"
    "  --threads N             threads that run the model (default: the machine's cores, at most\n"
    "                          8; 1 runs everything on one thread, without a thread pool)\n"
    "Prints the summary JSON (per output: shape, min, max, mean, first values) to stdout; with\n"
    "--runs or --warmup also runs: {count, warmup, median_ms, min_ms, max_ms, median_cpu_ms}.\n"
    "The summary's \"threads\" is the thread count the run used.\n";

int cmd_run(int argc, char** argv) {
    Args a;
    int code = start_command(argc, argv, kRunHelp, {"help", "no-simd", "reference"},
                             {"input", "shape", "seed", "output", "output-dir", "runs", "warmup", "threads"},
                             [](const Args& a) { return !a.positional.empty() && a.positional.size() <= 2; }, a);
    if (code >= 0)
        return code;
    uint32_t seed = 0;
    Status st = seed_option(a, seed);
    if (!st)
        return usage_error("run", st);
    int runs = 1, warmup = 0;
    for (auto [opt, lo, out] : {std::make_tuple("runs", 1L, &runs), std::make_tuple("warmup", 0L, &warmup)}) {
        code = int_option("run", a, opt, lo, 100000, *out);
        if (code >= 0)
            return code;
    }
    if (runs > 1 && !a.has("warmup"))
        warmup = 3;
    code = threads_option("run", a);
    if (code >= 0)
        return code;
    LoadOptions lo;
    st = parse_model_shapes(a.positional[0], a.all("shape"), lo);
    if (!st)
        return usage_error("run", st);
    lo.seed = seed;
    lo.use_simd = !a.has("no-simd") && !a.has("reference");  // false: the reference layers
    ModelHandle model;
    st = load_cli_model(a.positional[0], a.positional.size() > 1 ? a.positional[1] : "null", lo, false, model);
    print_warnings(model.warnings());
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
        // by the names the user sees: the original (ONNX) names of a mapped model (whose blob
        // names are accepted too), blob names otherwise
        IoInfo io;
        bool is_input = false;
        for (auto& x : model.inputs())
            if (!is_input && (x.name == name || (x.mapped && x.blob == name))) {
                io = x;
                is_input = true;
            }
        if (!is_input)
            return report("run", invalid_argument("the model has no input named " + quote(name)));
        std::vector<uint8_t> bytes;
        Mat m;
        if (io.mapped) {
            // the original shape and layout, dense
            uint64_t n = 1;
            for (int64_t d : io.dims)
                n *= (uint64_t)d;
            uint64_t values = 0;
            st = read_input_file(path, bytes, values);
            if (!st)
                return report("run", st);
            if (values != n)
                return report("run", invalid_argument(path + " holds " + std::to_string(values) + " values; input " +
                                                      quote(io.name) + " needs " + std::to_string(n)));
            st = m.create(io.shape.known() ? io.shape : Shape::d1((int)n));
        } else {
            Shape s = model.input_shape(name);
            if (!s.known())
                return report("run", invalid_argument("input " + quote(name) +
                                                      " declares no shape; give one with --shape " + name + "=c,h,w"));
            uint64_t values = 0;
            st = read_input_file(path, bytes, values);
            if (!st)
                return report("run", st);
            if (values != s.total())
                return report("run", invalid_argument(path + " holds " + std::to_string(values) + " values; input " +
                                                      quote(name) + " of shape " + s.str() + " needs " +
                                                      std::to_string(s.total())));
            st = m.create(s);
        }
        if (!st)
            return report("run", st);
        std::memcpy(m.data, bytes.data(), bytes.size());
        inputs[io.name] = m;
    }
    // inputs not given: one seeded stream, in the model's input order
    st = model.fill_missing_inputs(seed, inputs);
    if (!st)
        return report("run", st);

    std::map<std::string, Mat> outputs;
    RunStats stats;
    std::vector<double> times, cpu_times;
    for (int i = 0; i < warmup + runs; i++) {
        const double cpu0 = cpu_time_ms();
        st = model.run(inputs, a.all("output"), outputs, &stats);
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
    std::vector<std::string> order = a.all("output");
    if (order.empty())
        for (auto& io : model.outputs())
            order.push_back(io.name);
    // index-valued and boolean outputs (ONNX int64/int32/bool: TopK, ArgMax, masks) are written
    // in the type their extension names (docs/shapes-and-files.md): .i32 little-endian int32, .u8
    std::map<std::string, std::string> dtypes;
    for (auto& io : model.outputs())
        dtypes[io.name] = io.dtype;
    std::map<std::string, std::string> files;
    if (!dir.empty()) {
        for (auto& name : order) {
            const Mat& m = outputs[name];
            const std::string dt = dtypes.count(name) ? dtypes[name] : "float32";
            const size_t n = m.total_floats();
            std::string file = escape_file_name(name);
            if (dt == "int32" || dt == "int64") {
                std::vector<int32_t> v(n);
                for (size_t k = 0; k < n; k++)
                    v[k] = (int32_t)std::lrint(m.data[k]);  // integers below 2^24 inside the graph
                file += ".i32";
                st = write_file(dir + "/" + file, v.data(), n * 4);
            } else if (dt == "bool") {
                std::vector<uint8_t> v(n);
                for (size_t k = 0; k < n; k++)
                    v[k] = m.data[k] != 0.f ? 1 : 0;
                file += ".u8";
                st = write_file(dir + "/" + file, v.data(), n);
            } else {
                file += ".f32";
                st = write_file(dir + "/" + file, m.data, n * 4);
            }
            files[name] = file;
            if (!st)
                return report("run", st);
        }
    }
    // mapped outputs print their original shape (any rank)
    std::map<std::string, std::vector<int64_t>> dims;
    for (auto& name : order)
        if (model.io_map().find_output(name) && outputs.count(name))
            dims[name] = model.presented_dims(name, outputs[name]);
    std::string text = run_summary_json(order, outputs, files, stats, model.uses_simd(), dims, num_threads());
    {
        json summary = json::parse(text);
        for (auto& o : summary["outputs"]) {
            auto it = dtypes.find(o["name"].get<std::string>());
            o["dtype"] = it != dtypes.end() ? it->second : std::string("float32");
        }
        text = dump_json(summary, 2) + "\n";
    }
    if (runs > 1 || warmup > 0) {
        json summary = json::parse(text);
        json r;
        r["count"] = times.size();
        r["warmup"] = warmup;
        r["median_ms"] = median_of(times);
        r["min_ms"] = *std::min_element(times.begin(), times.end());
        r["max_ms"] = *std::max_element(times.begin(), times.end());
        // CPU time of the running thread per run: the same as wall time on an idle machine,
        // unaffected by other processes holding the core on a busy one
        if (cpu_times.size() == times.size())
            r["median_cpu_ms"] = median_of(cpu_times);
        summary["runs"] = r;
        text = dump_json(summary, 2) + "\n";
    }
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
