// libFuzzer entry point for one target (NNFOLD_FUZZ_TARGET, set per binary in CMakeLists.txt).
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return nnfold::fuzz::NNFOLD_FUZZ_TARGET(data, size);
}
