// The optimizer's differential fuzzer: a random small valid graph (graph_gen.h) with seeded random
// weights runs on seeded random inputs before and after optimize(), with the scalar reference
// layers, and must give the same outputs (and kept blobs) within the optimizer's budget
// (docs/numbers.md: err = max|a-b| / max(max|ref|, 1e-6) <= 1e-4). The result must also be a
// fixed point: optimizing it again rewrites nothing and writes the same files, and writing it,
// reading that back and writing again gives the same .param and .bin bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace nnfold {
namespace fuzz {

struct OptFuzzResult {
    // IllConditioned: passed every check, but an output's difference over tolerance is within
    // the rounding noise of that output (see optfuzz.cpp): counted, not a failure.
    enum Kind { Ok, Skipped, Failed, IllConditioned } kind = Ok;
    std::string what;        // for Skipped / Failed: what happened
    std::string param;       // the graph (.param text)
    std::string keep;        // kept blob names, comma separated
    int layers_before = 0, layers_after = 0;
    int rewrites = 0;
    double max_err = 0;
    std::map<std::string, int> pass_rewrites;  // rewrites per pass name
};

// Checks the graph generate_graph(seed) gives. Skipped: the generator made a graph the reference
// runtime refuses (a generator limitation, counted separately).
OptFuzzResult check_optimizer_on_graph(uint32_t seed, double tolerance = 1e-4);

// The same check on a given .param text (weights from `weight_seed`), for regression tests.
OptFuzzResult check_optimizer_on_param(const std::string& param, const std::string& keep_csv, uint32_t weight_seed,
                                       double tolerance = 1e-4);

}  // namespace fuzz
}  // namespace nnfold
