// Per-layer profile of one ncnn model (a benchmark tool, never a test):
//
//   nnfold_layer_profile MODEL.param [MODEL.bin|null] [--runs N] [--warmup W] [--threads N[,M...]] [--top K]
//                        [--min-chunk-cost C] [--spin-us U] [--nap-ms M] [--cold MB]
//
// --min-chunk-cost sets core/parallel.h's split threshold (multiply-adds or bytes per chunk) for
// the whole run, to compare thresholds in one build; --spin-us sets how long an idle pool worker
// spins for the next job before it naps (set_worker_spin_us), and --nap-ms how long it naps
// before it sleeps (set_worker_nap_ms, 0: no naps), likewise. --cold MB writes a buffer
// of MB megabytes (larger than the last-level cache) before every timed run, so that each run
// starts with the weights and blobs out of the caches, as in the benchmark's interleaved rounds,
// where each run follows another runtime's (tests/bench/measure.mjs).
//
// Loads the model (null or no .bin: seeded random weights), runs it W times untimed (default 10:
// V8 runs wasm with its baseline compiler first and tiers hot functions up later) and then N times
// (ModelHandle::profile), and prints the median wall-clock run time, the time per layer type (with
// the number of layers of that type) and the K slowest layers; then N more runs timed by the
// calling thread's CPU time (cli/cpu_clock.h), which other processes sharing the cores do not
// inflate (at one thread; with more, the workers' time is not in it). Used to find where the int8 zoo's time goes
// (quantize, im2col, thin GEMMs, depthwise, ...) on the wasm SIMD build and natively.
//
// With several thread counts (`--threads 1,2`) it profiles the model at each count in turn (same
// model, same inputs, the pool created once at the largest count), prints the report above for each,
// then a scaling table: per layer its min wall time at each count (the min: the machine is shared and
// a slow run says nothing about the split), its speedup from the first count to the last, its share of
// the last count's total, and the time it loses against a perfect split (t_last - t_first * first /
// last), the layers sorted by that loss: the list of layers whose split to improve (issue 15).
// Each report also gives the parallel_for calls that ran on the pool per run (core/parallel.h
// parallel_stats): on a one-layer model, whether that layer splits at all; and, above one thread,
// how long the caller waited for the workers per run and how often the caller or a worker slept
// (on a quiet machine: imbalance and wake-up costs, the parts of the loss no per-layer time shows).
// The timed runs are the CPU-time runs (ModelHandle::run, no per-layer timing in between).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <new>
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
                         "[--runs N] [--warmup W] [--threads N[,M...]] [--top K] [--min-chunk-cost C] [--spin-us U] [--nap-ms M] [--cold MB]\n", msg);
    return 2;
}

// "1,2,4" -> {1, 2, 4}; false on anything else (empty items, numbers below 1).
bool parse_counts(const std::string& s, std::vector<int>& out) {
    out.clear();
    size_t i = 0;
    while (i <= s.size()) {
        const size_t j = std::min(s.find(',', i), s.size());
        const std::string item = s.substr(i, j - i);
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 4)
            return false;
        out.push_back(std::atoi(item.c_str()));
        if (out.back() < 1)
            return false;
        i = j + 1;
    }
    return !out.empty();
}

// --cold: the buffer written before each timed run (empty: runs back to back, caches warm)
std::vector<unsigned char> g_cold;
void evict_caches() {
    for (size_t i = 0; i < g_cold.size(); i += 64)
        g_cold[i]++;
}

// One thread count's profile: the report, and the per-layer min times for the scaling table.
bool profile_at(ModelHandle& m, const std::map<std::string, Mat>& inputs, const char* model, int threads, int runs,
                int warmup, int top, ProfileResult& pr) {
    Status st = set_num_threads(threads);
    if (st.is_ok())
        st = m.profile(inputs, warmup, pr, nullptr);
    if (st.is_ok())
        st = m.profile(inputs, runs, pr, [](int, int) {
            evict_caches();
            return true;
        });
    std::vector<double> cpu;
    std::map<std::string, Mat> outs;
    const ParallelStats ps0 = parallel_stats();
    for (int i = 0; i < runs && st.is_ok(); i++) {
        evict_caches();
        const double t0 = cli::cpu_time_ms();
        st = m.run(inputs, {}, outs);
        cpu.push_back(cli::cpu_time_ms() - t0);
    }
    if (!st.is_ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return false;
    }
    const ParallelStats ps1 = parallel_stats();
    const double jobs_per_run = (double)(ps1.jobs - ps0.jobs) / runs;
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
                "time median %.3f ms, min %.3f ms; %.1f jobs on the pool per run (%zu layers)\n",
                model, runs, threads, r[r.size() / 2], r[0], layers_total, cpu[cpu.size() / 2], cpu[0], jobs_per_run,
                pr.layers.size());
    std::vector<std::pair<std::string, std::pair<double, int>>> types(by_type.begin(), by_type.end());
    std::sort(types.begin(), types.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
    if (threads > 1)
        std::printf("  per run: the caller waited %.3f ms for workers after its own chunks (%.1f of those waits "
                    "slept), workers went to sleep %.1f times between jobs and joined %.1f jobs, %.1f us after "
                    "the job was published on average\n",
                    (double)(ps1.caller_wait_us - ps0.caller_wait_us) / 1000.0 / runs,
                    (double)(ps1.caller_sleeps - ps0.caller_sleeps) / runs,
                    (double)(ps1.worker_sleeps - ps0.worker_sleeps) / runs,
                    (double)(ps1.worker_joins - ps0.worker_joins) / runs,
                    ps1.worker_joins > ps0.worker_joins
                        ? (double)(ps1.worker_join_us - ps0.worker_join_us) / (double)(ps1.worker_joins - ps0.worker_joins)
                        : 0.0);
    std::printf("by type:\n");
    for (auto& t : types)
        std::printf("  %-24s %3d layers %9.3f ms %5.1f%%\n", t.first.c_str(), t.second.second, t.second.first,
                    100.0 * t.second.first / layers_total);
    std::vector<ProfileResult::LayerProfile> ls = pr.layers;
    std::sort(ls.begin(), ls.end(), [](auto& a, auto& b) { return a.ms_mean > b.ms_mean; });
    std::printf("slowest layers:\n");
    for (int i = 0; i < top && i < (int)ls.size(); i++)
        std::printf("  %-32s %-22s %8.3f ms\n", ls[i].name.c_str(), ls[i].type.c_str(), ls[i].ms_mean);
    return true;
}

// The scaling table of several counts' profiles (the header comment says what each column is).
void print_scaling(const std::vector<int>& counts, const std::vector<ProfileResult>& prs, int top) {
    const size_t nl = prs[0].layers.size();
    const int first = counts.front(), last = counts.back();
    std::vector<double> totals(counts.size(), 0.0);
    for (size_t c = 0; c < counts.size(); c++)
        for (auto& l : prs[c].layers)
            totals[c] += l.ms_min;
    struct Row {
        size_t i;
        double loss;
    };
    std::vector<Row> rows;
    double loss_total = 0;
    for (size_t i = 0; i < nl; i++) {
        const double loss = prs.back().layers[i].ms_min - prs[0].layers[i].ms_min * first / last;
        rows.push_back({i, loss});
        loss_total += loss;
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.loss > b.loss; });
    std::printf("scaling %d -> %d threads: sum of layer min times", first, last);
    for (size_t c = 0; c < counts.size(); c++)
        std::printf(" %.3f ms at %d", totals[c], counts[c]);
    std::printf(" (%.2fx); %.3f ms lost against a perfect split\n", totals[0] / totals.back(), loss_total);
    std::printf("  %-32s %-22s", "layer", "type");
    for (int n : counts)
        std::printf(" %7s%-2d", "ms@", n);
    std::printf(" %7s %6s %8s\n", "speedup", "share", "lost ms");
    for (int k = 0; k < top && k < (int)rows.size(); k++) {
        const size_t i = rows[(size_t)k].i;
        const auto& l = prs.back().layers[i];
        std::printf("  %-32s %-22s", l.name.c_str(), l.type.c_str());
        for (size_t c = 0; c < counts.size(); c++)
            std::printf(" %9.3f", prs[c].layers[i].ms_min);
        const double t0 = prs[0].layers[i].ms_min, t1 = l.ms_min;
        std::printf(" %6.2fx %5.1f%% %8.3f\n", t1 > 0 ? t0 / t1 : 0.0, 100.0 * t1 / totals.back(), rows[(size_t)k].loss);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> pos;
    int runs = 10, warmup = 10, top = 15;
    std::vector<int> counts{1};
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
            if (i + 1 >= argc || !parse_counts(argv[++i], counts))
                return usage("--threads needs a number >= 1 or a comma-separated list of them");
        } else if (a == "--min-chunk-cost") {
            // core/parallel.h set_min_chunk_cost: A/B the split threshold without a rebuild
            int c = 0;
            if (!num(c))
                return usage("--min-chunk-cost needs a number >= 1");
            set_min_chunk_cost(c);
        } else if (a == "--spin-us") {
            int u = 0;
            if (!num(u))
                return usage("--spin-us needs a number >= 1");
            set_worker_spin_us(u);
        } else if (a == "--nap-ms") {
            // 0 is allowed here (no naps), so not num()
            char* end = nullptr;
            const long ms = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : -1;
            if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || ms < 0)
                return usage("--nap-ms needs a number >= 0");
            i++;
            set_worker_nap_ms(ms);
        } else if (a == "--cold") {
            int mb = 0;
            if (!num(mb) || mb > 4096)
                return usage("--cold needs a size in megabytes from 1 to 4096");
            // in 64 bits: 4096 MB shifted in wasm32's size_t is 0, an empty buffer and no cold runs
            const uint64_t bytes = (uint64_t)mb << 20;
            try {
                if (bytes > g_cold.max_size())
                    throw std::bad_alloc();
                g_cold.assign((size_t)bytes, 0);
            } catch (const std::bad_alloc&) {
                return usage(("--cold: cannot allocate " + std::to_string(mb) + " MB").c_str());
            }
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
    // the pool is created once, never grown: start it at the largest count asked for
    Status st = set_num_threads(*std::max_element(counts.begin(), counts.end()));
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
    if (!st.is_ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return 1;
    }
    const std::map<std::string, Mat> inputs(in.begin(), in.end());
    std::vector<ProfileResult> prs(counts.size());
    for (size_t c = 0; c < counts.size(); c++)
        if (!profile_at(m, inputs, pos[0].c_str(), counts[c], runs, warmup, top, prs[c]))
            return 1;
    if (counts.size() > 1)
        print_scaling(counts, prs, top);
    shutdown_threads();
    return 0;
}
