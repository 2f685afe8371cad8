// fuzz_replay TARGET PATH...: runs every file under each PATH (a file or a folder, recursively)
// through the target's function (targets.h), as libFuzzer would, with any compiler. A broken
// invariant aborts; a crash is a crash. Prints "fuzz_replay TARGET: N inputs" when all pass.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "targets.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_replay param|bin|optimize|onnx|int8|picture PATH...\n");
        return 2;
    }
    nnfold::fuzz::TargetFn fn = nnfold::fuzz::find_target(argv[1]);
    if (!fn) {
        fprintf(stderr, "fuzz_replay: unknown target '%s'\n", argv[1]);
        return 2;
    }
    std::vector<fs::path> files;
    for (int i = 2; i < argc; i++) {
        std::error_code ec;
        if (fs::is_directory(argv[i], ec)) {
            for (auto& e : fs::recursive_directory_iterator(argv[i]))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else if (fs::is_regular_file(argv[i], ec)) {
            files.push_back(argv[i]);
        }
    }
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        fn(bytes.data(), bytes.size());
    }
    printf("fuzz_replay %s: %zu inputs\n", argv[1], files.size());
    return 0;
}
