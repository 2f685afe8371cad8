// build/optfuzz: runs the optimizer's differential fuzzer (optfuzz.h) on N random graphs.
//
//   build/optfuzz --graphs 100000 --seed 1 [--show SEED] [--max-failures 20] [--tolerance 1e-4]
//
// Graph k uses seed S + k. Prints each failure (seed, what, the .param) and a summary line
// "optfuzz: N graphs, F failed, K skipped (generator), R rewrites, max err E"; exit 1 on failures.
// --show SEED prints that graph's .param and its check.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "graph_gen.h"
#include "optfuzz.h"

using namespace nnfold::fuzz;

int main(int argc, char** argv) {
    long long graphs = 1000;
    uint32_t seed = 1;
    long long show = -1;
    int max_failures = 20;
    double tol = 1e-4;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> const char* {
            if (i + 1 >= argc) {
                fprintf(stderr, "optfuzz: %s needs a value\n", a.c_str());
                exit(2);
            }
            return argv[++i];
        };
        if (a == "--graphs")
            graphs = atoll(next());
        else if (a == "--seed")
            seed = (uint32_t)strtoul(next(), nullptr, 10);
        else if (a == "--show")
            show = atoll(next());
        else if (a == "--max-failures")
            max_failures = atoi(next());
        else if (a == "--tolerance")
            tol = atof(next());
        else if (a == "-v" || a == "--verbose")
            verbose = true;
        else {
            fprintf(stderr, "usage: optfuzz [--graphs N] [--seed S] [--show SEED] [--max-failures N] [--tolerance T] [-v]\n");
            return 2;
        }
    }
    if (show >= 0) {
        OptFuzzResult r = check_optimizer_on_graph((uint32_t)show, tol);
        printf("%skeep: %s\nlayers %d -> %d, %d rewrites, err %g\n%s: %s\n", r.param.c_str(), r.keep.c_str(),
               r.layers_before, r.layers_after, r.rewrites, r.max_err,
               r.kind == OptFuzzResult::Ok ? "ok" : r.kind == OptFuzzResult::Skipped ? "skipped" : "FAILED",
               r.what.c_str());
        return r.kind == OptFuzzResult::Failed ? 1 : 0;
    }
    auto t0 = std::chrono::steady_clock::now();
    long long failed = 0, skipped = 0, rewrites = 0, changed = 0;
    double max_err = 0;
    std::map<std::string, long long> per_pass;
    for (long long k = 0; k < graphs; k++) {
        uint32_t s = seed + (uint32_t)k;
        OptFuzzResult r = check_optimizer_on_graph(s, tol);
        if (r.kind == OptFuzzResult::Failed) {
            failed++;
            printf("FAILED seed %u: %s\n%skeep: %s\n\n", s, r.what.c_str(), r.param.c_str(), r.keep.c_str());
            fflush(stdout);
            if (failed >= max_failures) {
                printf("optfuzz: stopping after %d failures\n", max_failures);
                graphs = k + 1;
                break;
            }
        } else if (r.kind == OptFuzzResult::Skipped) {
            skipped++;
            if (verbose)
                printf("skipped seed %u: %s\n%s\n", s, r.what.c_str(), r.param.c_str());
        } else {
            rewrites += r.rewrites;
            for (auto& kv : r.pass_rewrites)
                per_pass[kv.first] += kv.second;
            if (r.rewrites)
                changed++;
            if (r.max_err > max_err)
                max_err = r.max_err;
        }
        if (verbose && (k + 1) % 10000 == 0) {
            printf("  %lld graphs...\n", k + 1);
            fflush(stdout);
        }
    }
    if (verbose)
        for (auto& kv : per_pass)
            printf("  %-55s %lld\n", kv.first.c_str(), kv.second);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("optfuzz: %lld graphs (seeds %u..%u), %lld failed, %lld skipped (generator), %lld optimized "
           "(%lld rewrites), max err %.3g, %.1f s\n",
           graphs, seed, seed + (uint32_t)(graphs - 1), failed, skipped, changed, rewrites, max_err, secs);
    return failed ? 1 : 0;
}
