// Per-layer profile of one ncnn model (a benchmark tool, never a test):
//
//   nnfold_layer_profile MODEL.param [MODEL.bin|null] [--runs N] [--warmup W] [--threads N] [--top K]
//
// Loads the model (null or no .bin: seeded random weights), runs it W times untimed (default 10:
// V8 runs wasm with its baseline compiler first and tiers hot functions up later) and then N times
// (ModelHandle::profile), and prints the median wall-clock run time, the time per layer type (with
// the number of layers of that type) and the K slowest layers; then N more runs timed by the
// calling thread's CPU time (cli/cpu_clock.h), which other processes sharing the cores do not
// inflate (at one thread; with more, the workers' time is not in it). Used to find where the int8 zoo's time goes
// (quantize, im2col, thin GEMMs, depthwise, ...) on the wasm SIMD build and natively.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/model.h"
#include "cli/cpu_clock.h"
#include "core/parallel.h"

using namespace nnfold;

namespace {

bool read_all(const std::string& path, std::string& out) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return false;
    std::stringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
}

int usage(const char* msg) {
    std::fprintf(stderr, "nnfold_layer_profile: %s\nusage: nnfold_layer_profile MODEL.param [MODEL.bin|null] "
                         "[--runs N] [--warmup W] [--threads N] [--top K]\n", msg);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> pos;
    int runs = 10, warmup = 10, threads = 1, top = 15;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto num = [&](int& v) {
            if (i + 1 >= argc)
                return false;
            v = std::atoi(argv[++i]);
            return v >= 1;
        };
        if (a == "--runs") {
            if (!num(runs))
                return usage("--runs needs a number >= 1");
        } else if (a == "--warmup") {
            if (!num(warmup))
                return usage("--warmup needs a number >= 1");
        } else if (a == "--threads") {
            if (!num(threads))
                return usage("--threads needs a number >= 1");
        } else if (a == "--top") {
            if (!num(top))
                return usage("--top needs a number >= 1");
        } else if (!a.empty() && a[0] == '-') {
            return usage(("unknown option " + a).c_str());
        } else {
            pos.push_back(a);
        }
    }
    if (pos.empty() || pos.size() > 2)
        return usage("one model (.param, optionally its .bin) expected");
    std::string param, bin;
    if (!read_all(pos[0], param))
        return usage(("cannot read " + pos[0]).c_str());
    const bool has_bin = pos.size() == 2 && pos[1] != "null";
    if (has_bin && !read_all(pos[1], bin))
        return usage(("cannot read " + pos[1]).c_str());
    Status st = set_num_threads(threads);
    if (!st.is_ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return 1;
    }
    ModelHandle m;
    LoadOptions lo;
    st = m.load_ncnn(param, reinterpret_cast<const uint8_t*>(bin.data()), bin.size(), has_bin, lo);
    std::vector<std::pair<std::string, Mat>> in;
    if (st.is_ok())
        st = m.random_inputs(0, in);
    ProfileResult pr;
    const std::map<std::string, Mat> inputs(in.begin(), in.end());
    if (st.is_ok())
        st = m.profile(inputs, warmup, pr, nullptr);
    if (st.is_ok())
        st = m.profile(inputs, runs, pr, nullptr);
    if (!st.is_ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return 1;
    }
    std::vector<double> cpu;
    std::map<std::string, Mat> outs;
    for (int i = 0; i < runs && st.is_ok(); i++) {
        const double t0 = cli::cpu_time_ms();
        st = m.run(inputs, {}, outs);
        cpu.push_back(cli::cpu_time_ms() - t0);
    }
    if (!st.is_ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return 1;
    }
    std::sort(cpu.begin(), cpu.end());
    std::vector<double> r = pr.run_ms;
    std::sort(r.begin(), r.end());
    double layers_total = 0;
    std::map<std::string, std::pair<double, int>> by_type;
    for (auto& l : pr.layers) {
        layers_total += l.ms_mean;
        by_type[l.type].first += l.ms_mean;
        by_type[l.type].second++;
    }
    std::printf("%s: %d runs at %d thread(s), median %.3f ms, min %.3f ms (layers %.3f ms); calling thread's CPU "
                "time median %.3f ms, min %.3f ms\n",
                pos[0].c_str(), runs, threads, r[r.size() / 2], r[0], layers_total, cpu[cpu.size() / 2], cpu[0]);
    std::vector<std::pair<std::string, std::pair<double, int>>> types(by_type.begin(), by_type.end());
    std::sort(types.begin(), types.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
    std::printf("by type:\n");
    for (auto& t : types)
        std::printf("  %-24s %3d layers %9.3f ms %5.1f%%\n", t.first.c_str(), t.second.second, t.second.first,
                    100.0 * t.second.first / layers_total);
    std::vector<ProfileResult::LayerProfile> ls = pr.layers;
    std::sort(ls.begin(), ls.end(), [](auto& a, auto& b) { return a.ms_mean > b.ms_mean; });
    std::printf("slowest layers:\n");
    for (int i = 0; i < top && i < (int)ls.size(); i++)
        std::printf("  %-32s %-22s %8.3f ms\n", ls[i].name.c_str(), ls[i].type.c_str(), ls[i].ms_mean);
    shutdown_threads();
    return 0;
}
