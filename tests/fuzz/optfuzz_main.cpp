// build/optfuzz: runs the optimizer's differential fuzzer (optfuzz.h) on N random graphs.
//
//   build/optfuzz --graphs 100000 --seed 1 [--show SEED] [--max-failures 20] [--tolerance 1e-4]
//
// Graph k uses seed S + k. Prints each failure (seed, what, the .param) and a summary line
// "optfuzz: N graphs, F failed, K skipped (generator), R rewrites, max err E"; exit 1 on failures.
// --show SEED prints that graph's .param and its check. --write-seeds DIR writes the fuzz
// targets' seed corpora (tests/fuzz/corpus/).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include <filesystem>
#include <fstream>

#include "graph_gen.h"
#include "io/ncnn_io.h"
#include "optfuzz.h"
#include "runtime/random.h"
#include "targets.h"

using namespace nnfold;
using namespace nnfold::fuzz;

namespace {

void write_file(const std::filesystem::path& p, const std::string& a, const std::vector<uint8_t>& b = {}) {
    std::ofstream f(p, std::ios::binary);
    f.write(a.data(), (std::streamsize)a.size());
    f.write((const char*)b.data(), (std::streamsize)b.size());
}

// Seed corpora for the fuzz targets (tests/fuzz/corpus/<target>/): generated graphs as .param
// (param, optimize) and as .param + NUL + .bin (bin, alternating fp32 and fp16 storage), and the
// built-in .param's .bin in each storage ncnn reads (fp32, fp16, int8, codebook).
int write_seeds(const std::string& dir, int n) {
    namespace fs = std::filesystem;
    for (const char* t : {"param", "optimize", "bin"})
        fs::create_directories(fs::path(dir) / t);
    for (int k = 1; k <= n; k++) {
        GeneratedGraph gg = generate_graph((uint32_t)k, 6 + k % 8);
        std::string name = "gen" + std::to_string(k);
        write_file(fs::path(dir) / "param" / (name + ".param"), gg.param);
        write_file(fs::path(dir) / "optimize" / (name + ".param"), gg.param);
        Graph g;
        Warnings w;
        if (!read_param(gg.param, g, w) || !randomize_weights(g, (uint32_t)k))
            continue;
        std::vector<uint8_t> bin;
        BinWriteOptions bo;
        bo.fp16 = k % 2 == 0;
        if (!write_bin(g, bin, bo, w) || bin.size() > 16384)
            continue;
        write_file(fs::path(dir) / "bin" / (name + ".parambin"), gg.param + std::string(1, '\0'), bin);
    }
    for (const char* storage : {"f32", "f16", "int8", "codebook"}) {
        Graph g;
        Warnings w;
        if (!read_param(kDefaultBinParam, g, w) || !randomize_weights(g, 7))
            return 1;
        for (auto& l : g.layers)
            for (auto& wa : l.weights) {
                if (!wa.tagged())
                    continue;
                if (!strcmp(storage, "int8")) {
                    wa.storage = WeightStorage::Int8;
                    wa.tag = kTagInt8;
                    wa.i8.assign(wa.data.size(), 0);
                    for (size_t i = 0; i < wa.i8.size(); i++)
                        wa.i8[i] = (int8_t)(i * 37 - 100);
                    wa.data.clear();
                } else if (!strcmp(storage, "codebook")) {
                    wa.storage = WeightStorage::Codebook;
                    wa.tag = 0x00C0DEB0;
                    wa.codebook.resize(256);
                    for (int i = 0; i < 256; i++)
                        wa.codebook[i] = (float)(i - 128) / 64.f;
                    wa.indices.resize(wa.data.size());
                    for (size_t i = 0; i < wa.indices.size(); i++)
                        wa.indices[i] = (uint8_t)(i * 29);
                }
            }
        std::vector<uint8_t> bin;
        BinWriteOptions bo;
        bo.fp16 = !strcmp(storage, "f16");
        if (!write_bin(g, bin, bo, w))
            return 1;
        write_file(fs::path(dir) / "bin" / (std::string("default_") + storage + ".bin"), "", bin);
    }
    return 0;
}

}  // namespace

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
        else if (a == "--write-seeds") {
            std::string dir = next();
            return write_seeds(dir, 40);
        } else if (a == "-v" || a == "--verbose")
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
               r.kind == OptFuzzResult::Ok ? "ok" : r.kind == OptFuzzResult::Skipped ? "skipped"
               : r.kind == OptFuzzResult::IllConditioned ? "ill-conditioned" : "FAILED",
               r.what.c_str());
        return r.kind == OptFuzzResult::Failed ? 1 : 0;
    }
    auto t0 = std::chrono::steady_clock::now();
    long long failed = 0, skipped = 0, illcond = 0, rewrites = 0, changed = 0;
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
        } else if (r.kind == OptFuzzResult::IllConditioned) {
            illcond++;
            if (verbose)
                printf("ill-conditioned seed %u: %s\n", s, r.what.c_str());
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
    printf("optfuzz: %lld graphs (seeds %u..%u), %lld failed, %lld skipped (generator), %lld ill-conditioned, %lld optimized "
           "(%lld rewrites), max err %.3g, %.1f s\n",
           graphs, seed, seed + (uint32_t)(graphs - 1), failed, skipped, illcond, changed, rewrites, max_err, secs);
    return failed ? 1 : 0;
}
