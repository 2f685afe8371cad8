// nnfold bench MODEL [MODEL ...] [--runs N] [--warmup W] [--threads N] [--layers K] [--seed N]
//              [--shape NAME=...] [--reference] [--json]
// Times whole models the way ncnn's benchncnn does (min / max / avg of N runs after a warm-up, on
// seeded random inputs), plus the median and the CPU time of the running thread; --layers adds
// the K slowest layers of each model (ModelHandle::profile). One model that fails to load or run is
// reported and the others still run; the exit code is then 1.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "api/model.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/cpu_clock.h"
#include "core/json.h"
#include "core/parallel.h"
#include "core/strings.h"

namespace nnfold {
namespace cli {

static const char* kBenchHelp =
    "usage: nnfold bench MODEL [MODEL ...] [options]\n"
    "\n"
    "Times each model on seeded random inputs, as ncnn's benchncnn does: min, max and average of\n"
    "the timed runs after untimed warm-up runs, plus their median. A MODEL is X.param (nnfold's\n"
    "seeded random weights), X.param followed by its X.bin (or 'null'), or X.onnx.\n"
    "\n"
    "options:\n"
    "  --runs N                timed runs per model (default 8)\n"
    "  --warmup W              untimed runs first (default 3: wasm engines optimize hot code after\n"
    "                          it has run for a while)\n"
    "  --threads N             threads that run the models (default: the machine's cores, at most\n"
    "                          8; 1 runs everything on one thread, without a thread pool)\n"
    "  --layers K              also the K slowest layers of each model (mean ms over the runs)\n"
    "  --shape NAME=c,h,w      input shape (for .onnx the full ONNX shape); applies to every model\n"
    "                          that has an input of that name\n"
    "  --seed N                seed for random weights and inputs (default 0)\n"
    "  --reference             the scalar reference layers instead of the optimized ones\n"
    "  --json                  print one JSON object instead of the table:\n"
    "                          {simd, threads, runs, warmup, models: [{model, min_ms, max_ms,\n"
    "                          mean_ms, median_ms, median_cpu_ms, peak_bytes, simd, layers?} | {model, error}]}\n"
    "Timings are wall-clock milliseconds of ModelHandle::run (median_cpu_ms: CPU time of the\n"
    "calling thread, meaningful on a busy machine at one thread).\n";

namespace {

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::char_traits<char>::length(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

struct ModelSpec {
    std::string model, bin;  // bin: "" for .onnx, "null" for random weights
};

// Pairs each .param with a following .bin or "null"; anything else is a model of its own.
bool split_models(const std::vector<std::string>& pos, std::vector<ModelSpec>& out, std::string& bad) {
    for (size_t i = 0; i < pos.size(); i++) {
        const std::string& p = pos[i];
        if (is_onnx_path(p)) {
            out.push_back({p, ""});
            continue;
        }
        if (ends_with(p, ".bin") || p == "null") {
            bad = p;  // a .bin not after a .param
            return false;
        }
        ModelSpec s{p, "null"};
        if (i + 1 < pos.size() && (ends_with(pos[i + 1], ".bin") || pos[i + 1] == "null"))
            s.bin = pos[++i];
        out.push_back(s);
    }
    return true;
}

// Times one model; fills `r` (the JSON entry) or returns the error.
Status bench_one(const ModelSpec& spec, const LoadOptions& base, const std::vector<std::string>& shape_specs, int runs,
                 int warmup, int layers, json& r) {
    LoadOptions lo = base;
    // --shape applies to the models that have an input of that name
    std::vector<std::string> mine;
    {
        ModelHandle probe;
        LoadOptions plo = base;
        NF_RETURN_IF_ERROR(load_cli_model(spec.model, spec.bin.empty() ? "null" : spec.bin, plo, true, probe));
        for (auto& s : shape_specs) {
            const std::string name = s.substr(0, s.find('='));
            for (auto& io : probe.inputs())
                if (io.name == name || io.blob == name)
                    mine.push_back(s);
        }
    }
    NF_RETURN_IF_ERROR(parse_model_shapes(spec.model, mine, lo));
    ModelHandle model;
    NF_RETURN_IF_ERROR(load_cli_model(spec.model, spec.bin.empty() ? "null" : spec.bin, lo, false, model));
    std::map<std::string, Mat> inputs;
    NF_RETURN_IF_ERROR(model.fill_missing_inputs(base.seed, inputs));
    std::map<std::string, Mat> outputs;
    std::vector<double> times, cpu;
    uint64_t peak = 0;
    for (int i = 0; i < warmup + runs; i++) {
        RunStats stats;
        const double c0 = cpu_time_ms();
        NF_RETURN_IF_ERROR(model.run(inputs, {}, outputs, &stats));
        const double c1 = cpu_time_ms();
        if (i < warmup)
            continue;
        times.push_back(stats.total_ms);
        if (c0 >= 0 && c1 >= 0)
            cpu.push_back(c1 - c0);
        peak = std::max(peak, stats.peak_bytes);
    }
    r["min_ms"] = *std::min_element(times.begin(), times.end());
    r["max_ms"] = *std::max_element(times.begin(), times.end());
    r["mean_ms"] = std::accumulate(times.begin(), times.end(), 0.0) / (double)times.size();
    r["median_ms"] = median_of(times);
    if (cpu.size() == times.size())
        r["median_cpu_ms"] = median_of(cpu);
    r["peak_bytes"] = peak;
    r["simd"] = model.uses_simd();
    if (layers > 0) {
        ProfileResult prof;
        NF_RETURN_IF_ERROR(model.profile(inputs, runs, prof));
        auto ls = prof.layers;
        std::stable_sort(ls.begin(), ls.end(), [](auto& x, auto& y) { return x.ms_mean > y.ms_mean; });
        if ((int)ls.size() > layers)
            ls.resize((size_t)layers);
        json arr = json::array();
        for (auto& l : ls)
            arr.push_back({{"index", l.index}, {"name", l.name}, {"type", l.type}, {"ms_mean", l.ms_mean},
                           {"ms_min", l.ms_min}});
        r["layers"] = arr;
    }
    return Status::ok();
}

std::string label_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    size_t dot = base.find_last_of('.');
    return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

}  // namespace

int cmd_bench(int argc, char** argv) {
    Args a;
    int code = start_command(argc, argv, kBenchHelp, {"help", "json", "reference", "no-simd"},
                             {"runs", "warmup", "threads", "layers", "shape", "seed"},
                             [](const Args& a) { return !a.positional.empty(); }, a);
    if (code >= 0)
        return code;
    int runs = 8, warmup = 3, layers = 0;
    for (auto [opt, lo, out] : {std::make_tuple("runs", 1L, &runs), std::make_tuple("warmup", 0L, &warmup),
                                std::make_tuple("layers", 0L, &layers)}) {
        code = int_option("bench", a, opt, lo, 100000, *out);
        if (code >= 0)
            return code;
    }
    uint32_t seed = 0;
    Status st = seed_option(a, seed);
    if (!st)
        return usage_error("bench", st);
    for (auto& s : a.all("shape"))
        if (s.find('=') == std::string::npos || s.find('=') == 0)
            return usage_error("bench", invalid_argument("--shape expects NAME=dims, got '" + s + "'"));
    std::vector<ModelSpec> models;
    std::string bad;
    if (!split_models(a.positional, models, bad))
        return usage_error("bench", invalid_argument("'" + bad + "' does not follow a .param"));
    code = threads_option("bench", a);
    if (code >= 0)
        return code;

    LoadOptions lo;
    lo.seed = seed;
    lo.use_simd = !a.has("no-simd") && !a.has("reference");
    const bool as_json = a.has("json");
    json out;
    out["simd"] = false;
    out["threads"] = num_threads();
    out["runs"] = runs;
    out["warmup"] = warmup;
    out["models"] = json::array();
    if (!as_json)
        printf("nnfold bench: %d thread%s, %d run%s after %d warm-up\n", num_threads(), num_threads() == 1 ? "" : "s",
               runs, runs == 1 ? "" : "s", warmup);
    int failed = 0;
    for (auto& m : models) {
        json r;
        r["model"] = m.model;
        Status s = guard([&] { return bench_one(m, lo, a.all("shape"), runs, warmup, layers, r); });
        if (!s) {
            failed++;
            r = json{{"model", m.model}, {"error", error_code_name(s.code())}, {"message", s.message()}};
            if (!as_json)
                fprintf(stderr, "nnfold bench: %s: %s\n", m.model.c_str(), s.message().c_str());
        } else {
            if (r.value("simd", false))
                out["simd"] = true;
            if (!as_json) {
                printf("%24s  min = %8.2f  max = %8.2f  avg = %8.2f  median = %8.2f ms\n", label_of(m.model).c_str(),
                       r["min_ms"].get<double>(), r["max_ms"].get<double>(), r["mean_ms"].get<double>(),
                       r["median_ms"].get<double>());
                if (r.contains("layers"))
                    for (auto& l : r["layers"])
                        printf("%24s    %8.3f ms  %-20s %s\n", "", l["ms_mean"].get<double>(),
                               l["type"].get<std::string>().c_str(), l["name"].get<std::string>().c_str());
            }
        }
        out["models"].push_back(r);
    }
    if (as_json)
        printf("%s\n", dump_json(out, 2).c_str());
    return failed ? kBadInput : kOk;
}

}  // namespace cli
}  // namespace nnfold
