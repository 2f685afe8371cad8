#!/usr/bin/env bash
# All tests, in phases, each timed: native build + unit tests, sanitizer build on small inputs,
# wasm builds (SIMD and baseline) with unit tests under Node, the threaded (SIMD + pthreads)
# module, then the JavaScript tests (once more on the threaded flavour).
# Heavy models run only in the release builds; sanitizers get the small ones.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
JOBS=${JOBS:-2}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)

phase_start=0
phase() { phase_name="$1"; phase_start=$(date +%s); echo "=== $1"; }
phase_end() { echo "=== $phase_name: $(( $(date +%s) - phase_start ))s"; }

phase "native release build + unit tests"
cmake -S . -B build "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$JOBS"
ctest --test-dir build --output-on-failure -j"$JOBS"
phase_end

# Replays every fuzz corpus file and past finding (tests/fuzz/corpus, tests/fuzz/findings) and runs a
# few hundred graphs of the optimizer's differential fuzzer (test_fuzz, also part of ctest above and
# of the ASan phase below); the long libFuzzer runs are tests/fuzz/run.sh, not CI.
phase "fuzz corpora replay + optimizer differential fuzzer (native)"
./build/tests/test_fuzz --gtest_brief=1
./build/optfuzz --graphs 2000 --seed 900000
phase_end

# NNFOLD_SIMD=ON here: the SIMD-128 kernels run natively through SIMDe, so they are checked under
# the sanitizers too (the release build above runs their scalar twins).
phase "native ASan+UBSan build (SIMD kernels via SIMDe) + unit tests"
# -O1 and line tables only (-g1): the sanitizer build is the slowest to compile on 2 cores
cmake -S . -B build-asan "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1" \
  -DNNFOLD_SANITIZE=ON -DNNFOLD_SIMD=ON -DNNFOLD_BUILD_BENCH=OFF >/dev/null
# only the test binaries: the CLI, optfuzz and fuzz_replay executables are run from the release build
cmake --build build-asan -j"$JOBS" --target nnfold_tests
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$JOBS"
phase_end

for flavour in simd base; do
  phase "wasm $flavour build + unit tests in Node"
  simd=OFF; [ "$flavour" = simd ] && simd=ON
  emcmake cmake -S . -B "build-wasm-$flavour" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DNNFOLD_SIMD=$simd \
    -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" >/dev/null
  if [ "$flavour" = simd ]; then
    # every unit test binary (nnfold_tests), the module, the CLI and the kernel micro-benchmark
    # (tests/js/bench.test.mjs runs it); not the optimizer and layer-profile benchmarks, which no
    # test runs (about 30 s of links; the native build compiles them)
    cmake --build "build-wasm-$flavour" -j"$JOBS" --target nnfold_tests nnfold_js nnfold_cli nnfold_kernel_bench
    ctest --test-dir "build-wasm-$flavour" --output-on-failure -j"$JOBS"
  else
    # The baseline flavour differs from the SIMD one only in the kernels (scalar twins, already
    # unit-tested natively in the release build): here its module, its CLI and the kernel-level
    # test binaries; the JavaScript tests below then run the whole API on this module and compare
    # its CLI's outputs byte for byte with the native build on every zoo model.
    cmake --build "build-wasm-$flavour" -j"$JOBS" --target nnfold_js nnfold_cli test_kernels test_fastlayers test_zoo
    ctest --test-dir "build-wasm-$flavour" --output-on-failure -j"$JOBS" -R '^test_(kernels|fastlayers|zoo)(_[0-9]+of[0-9]+)?$'
  fi
  phase_end
done

# SIMD + threads: the two links of the Embind module (browser ES module + Worker script, and the
# CommonJS Node build), the threaded CLI for the npm bin and test_threads; its kernels are the SIMD
# flavour's, unit-tested above. The JavaScript tests below compare its outputs bit for bit with the
# SIMD module.
phase "wasm simd-threads build (browser and Node modules, CLI) + the thread pool's unit tests on Workers"
emcmake cmake -S . -B build-wasm-simd-threads "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DNNFOLD_SIMD=ON -DNNFOLD_THREADS=ON \
  -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" >/dev/null
cmake --build build-wasm-simd-threads -j"$JOBS" --target nnfold_js nnfold_js_node nnfold_cli test_threads
# test_threads on real pthreads (Workers under Node; main() runs in a pthread, tests/CMakeLists.txt):
# the pool, the split kernels and layers. Its zoo and ONNX-corpus model checks (same bits at 1, 2
# and 3 threads) run natively above and, on this flavour's module, in the JavaScript tests below.
node --no-experimental-fetch build-wasm-simd-threads/tests/test_threads.js --gtest_brief=1 \
  --gtest_filter='-ZooThreads*:OnnxCorpusThreads*'
phase_end

phase "npm package: assemble dist/ from the wasm builds"
node wasm/assemble.mjs
phase_end

if [ -d tests/js ] && ls tests/js/*.test.mjs >/dev/null 2>&1; then
  phase "JavaScript tests (node --test)"
  # two files at a time (Node's default on 2 cores is one): every file uses its own temp dirs
  node --test --test-concurrency=2 tests/js/
  phase_end
  # The API, typed I/O, error, hostile-input, leak and quantize tests once more on SIMD + threads (3 threads
  # on 2 cores: more threads than cores still gives the same results). tests/js/helpers.mjs reads
  # NNFOLD_TEST_THREADS.
  phase "JavaScript API tests on the threaded flavour (NNFOLD_TEST_THREADS=3)"
  NNFOLD_TEST_THREADS=3 node --test --test-concurrency=2 tests/js/api.test.mjs tests/js/typed_io.test.mjs \
    tests/js/errors.test.mjs tests/js/hostile.test.mjs tests/js/leak.test.mjs tests/js/quantize.test.mjs
  phase_end
fi

phase "web page: build web/dist"
node web/build.mjs
phase_end

# The packed tarball installed into a fresh app, built with Vite (build + dev server), webpack 5,
# Rollup and esbuild with their defaults, each run in one headless Chromium (tests/bundlers/;
# after web/dist is built: it shares the page tests' harness, which checks for it).
if [ -d tests/bundlers ] && ls tests/bundlers/*.test.mjs >/dev/null 2>&1; then
  phase "npm package in real bundlers (Vite, webpack, Rollup, esbuild) + headless Chromium"
  node --test tests/bundlers/
  phase_end
fi

if [ -d tests/e2e ] && ls tests/e2e/*.test.mjs >/dev/null 2>&1; then
  phase "page end-to-end tests in headless Chromium (node --test)"
  # two files at a time: each has its own server, proxies and browser on free ports, its own
  # screenshot names and temp dirs, and no timing is asserted (the waits allow minutes)
  node --test --test-concurrency=2 tests/e2e/
  phase_end
fi
