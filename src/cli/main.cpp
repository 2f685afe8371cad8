// The `nnfold` command: a thin dispatcher over the library (docs/cli.md). The same
// program runs natively and, built for Node, as the npm package's bin (bin/nnfold.mjs).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/parallel.h"
#include "version.h"

using namespace nnfold::cli;

namespace {

struct Command {
    const char* name;
    int (*fn)(int, char**);
    const char* summary;
};

const Command kCommands[] = {
    {"run", cmd_run, "run a model on given or random inputs"},
    {"info", cmd_info, "layers, inferred shapes, weight sizes, estimated memory"},
    {"randomize", cmd_randomize, "write seeded random weights for a structure-only .param"},
    {"convert", cmd_convert, "read a model and write it back in canonical form (optionally fp16)"},
    {"optimize", cmd_optimize, "fuse and remove layers (ncnnoptimize's passes, exact), to a fixed point"},
    {"verify", cmd_verify, "run two models on the same random inputs and compare their outputs"},
    {"quantize", cmd_quantize, "int8 quantization calibrated on pictures or tensors (ncnn2table + ncnn2int8)"},
    {"bench", cmd_bench, "time models (min/max/avg of N runs after a warm-up, as benchncnn), slowest layers"},
};

void usage(FILE* f) {
    fprintf(f, "usage: nnfold <command> [args]   (nnfold <command> --help for details)\n\ncommands:\n");
    for (auto& c : kCommands)
        fprintf(f, "  %-10s %s\n", c.name, c.summary);
    fprintf(f, "\nexit codes: 0 success, 1 bad input or failed check, 2 usage error, 3 internal error\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return kUsage;
    }
    std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        usage(stdout);
        return kOk;
    }
    if (cmd == "--version") {
        printf("nnfold %s\n", NNFOLD_VERSION);
        return kOk;
    }
    for (auto& c : kCommands) {
        if (cmd == c.name) {
            int rc;
            try {
                rc = c.fn(argc, argv);
            } catch (const std::exception& e) {
                fprintf(stderr, "nnfold %s: internal error: %s\n", c.name, e.what());
                rc = kInternal;
            } catch (...) {
                fprintf(stderr, "nnfold %s: internal error\n", c.name);
                rc = kInternal;
            }
            // join the thread pool's workers (--threads) before the process ends: a wasm build's
            // pthreads would otherwise keep Node alive
            nnfold::shutdown_threads();
            return rc;
        }
    }
    fprintf(stderr, "nnfold: unknown command '%s'\n\n", cmd.c_str());
    usage(stderr);
    return kUsage;
}
