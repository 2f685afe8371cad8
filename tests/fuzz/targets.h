// The fuzz targets' functions (issue 8), one per input format, shared by the libFuzzer binaries
// (libfuzzer_main.cpp, clang) and the replay driver (replay_main.cpp, any compiler) so that CI
// replays every corpus file and past finding through exactly the code libFuzzer ran.
//
// Each returns 0; a broken invariant prints what broke and calls abort() (a crash to libFuzzer
// and to the replay driver alike). Bad input itself is never a failure: an error Status is the
// expected answer. Inputs over kMaxInput bytes are ignored (libFuzzer runs with -max_len too).
//
//   fuzz_param     .param text: read; when it reads, write -> read -> write is a fixed point.
//   fuzz_bin       .param text, a NUL byte, .bin bytes (no NUL: the bytes are a .bin for a small
//                  built-in .param): read both; when they read, write -> read -> write of the .bin
//                  is a fixed point.
//   fuzz_optimize  .param text: read, random weights (small models only), optimize; the result is
//                  valid, writes, reads back, and optimizing it again rewrites nothing.
//   fuzz_onnx      ONNX bytes: import; when it imports, the graph is valid and writes as .param.
//   fuzz_int8      .bin bytes for a built-in int8 .param (every int8_scale_term, an int8 blob
//                  between layers): read and load; bad scales are refused at load with
//                  invalid_model naming the layer, and a model that loads runs.
//   fuzz_picture   PNG/JPEG bytes (src/io/picture.h): decode; refusals are invalid_argument or
//                  resource_limit with a one-line message; a decoded picture has the size it
//                  declares within the limits, and converts to gray and RGB tensors of 0..255.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnfold {
namespace fuzz {

constexpr size_t kMaxInput = 64 * 1024;

int fuzz_param(const uint8_t* data, size_t size);
int fuzz_bin(const uint8_t* data, size_t size);
int fuzz_optimize(const uint8_t* data, size_t size);
int fuzz_onnx(const uint8_t* data, size_t size);
int fuzz_int8(const uint8_t* data, size_t size);
int fuzz_picture(const uint8_t* data, size_t size);

// The .param that fuzz_bin pairs with inputs that hold no NUL byte.
extern const char* const kDefaultBinParam;

// By name ("param", "bin", "optimize", "onnx", "int8", "picture"); nullptr for an unknown name.
using TargetFn = int (*)(const uint8_t*, size_t);
TargetFn find_target(const char* name);

}  // namespace fuzz
}  // namespace nnfold
