#!/usr/bin/env bash
# `npm run build`: the three WebAssembly flavours of the Embind module (SIMD, baseline, SIMD +
# threads; the threaded one linked twice, for browsers and for Node) and the CLI (only those
# targets, -j2), then dist/ (JS API, types, glue + wasm pairs, the threaded flavour's Worker
# scripts). Build trees: build-wasm-simd/, build-wasm-base/, build-wasm-simd-threads/ (the same
# trees tests/run_all.sh uses, so a full test run reuses them).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
JOBS=${JOBS:-2}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
for flavour in simd base simd-threads; do
  simd=ON; threads=OFF
  [ "$flavour" = base ] && simd=OFF
  [ "$flavour" = simd-threads ] && threads=ON
  dir="build-wasm-$flavour"
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$dir" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DNNFOLD_SIMD=$simd -DNNFOLD_THREADS=$threads \
      -DCMAKE_CROSSCOMPILING_EMULATOR="/usr/bin/node;--no-experimental-fetch" >/dev/null
  fi
  # the Embind module (the API) and the CLI for Node (bin/nnfold.mjs)
  targets=(nnfold_js nnfold_cli)
  # and the threaded module for Node (CommonJS glue + Worker)
  [ "$flavour" = simd-threads ] && targets+=(nnfold_js_node)
  # the kernel micro-benchmark that `npm run bench` runs (tests/bench/bench.mjs)
  [ "$flavour" = simd ] && targets+=(nnfold_kernel_bench)
  cmake --build "$dir" -j"$JOBS" --target "${targets[@]}"
done
node wasm/assemble.mjs
