#!/usr/bin/env bash
# Time-boxed libFuzzer runs (clang, ASan + UBSan) of the fuzz targets in tests/fuzz/targets.h.
#
#   tests/fuzz/run.sh [param|bin|optimize|onnx|int8|picture|all] [seconds per target, default 60]
#   RUNS=1000000 tests/fuzz/run.sh param      # stop after N executions instead of a time
#   MERGE=1 tests/fuzz/run.sh param 600        # afterwards, merge new coverage into the committed
#                                              # corpus tests/fuzz/corpus/<target>/ (kept small)
#
# Builds build-fuzz/ (clang, -fsanitize=fuzzer-no-link,address,undefined), then runs one process per
# target (no -jobs/-workers: the machine is shared) over a scratch corpus build-fuzz/corpus/<target>
# seeded from tests/fuzz/corpus/<target>/ and, for param and bin, tests/data/malformed/ and
# tests/data/hostile/. Inputs are capped at 64 KB (-max_len). A crash or a broken invariant leaves its
# input in build-fuzz/artifacts/<target>/ and is copied to tests/fuzz/findings/<target>/, which the
# default test run replays for ever after (tests/fuzz/fuzz_test.cpp): commit it with the fix.
# Prints, per target, executions and coverage at start and end ("cov" = edges, "ft" = features).
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:-all}
secs=${2:-60}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)

CC=clang CXX=clang++ cmake -S . -B build-fuzz "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNNFOLD_FUZZ=ON -DNNFOLD_SANITIZE=ON -DNNFOLD_BUILD_TESTS=OFF -DNNFOLD_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
targets=(param bin optimize onnx int8 picture)
[ "$target" != all ] && targets=("$target")
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build build-fuzz -j"${JOBS:-2}" --target "${build_targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t
  art=build-fuzz/artifacts/$t
  mkdir -p "$work" "$art" "tests/fuzz/findings/$t"
  # findings of earlier runs were copied to tests/fuzz/findings/ when they were found
  rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*
  seeds=("tests/fuzz/corpus/$t")
  if [ "$t" = param ] || [ "$t" = bin ]; then
    for d in tests/data/malformed tests/data/hostile; do [ -d "$d" ] && seeds+=("$d"); done
  fi
  limit=(-max_total_time="$secs")
  [ -n "${RUNS:-}" ] && limit=(-runs="$RUNS")
  log=build-fuzz/$t.log
  if [ -n "${RUNS:-}" ]; then echo "=== fuzz_$t: $RUNS runs"; else echo "=== fuzz_$t: $secs s"; fi
  set +e
  "./build-fuzz/fuzz_$t" "${limit[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="$art/" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  set -e
  start=$(grep -m1 -E "INITED" "$log" | grep -oE "cov: [0-9]+ ft: [0-9]+" || true)
  end=$(grep -E "(DONE|pulse|NEW|REDUCE)" "$log" | tail -1 | grep -oE "cov: [0-9]+ ft: [0-9]+" || true)
  execs=$(grep -m1 "stat::number_of_executed_units" "$log" | awk '{print $2}' || true)
  echo "fuzz_$t: ${execs:-?} execs, coverage ${start:-?} -> ${end:-?}, exit $rc (log $log)"
  for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
    [ -e "$f" ] || continue
    cp -n "$f" "tests/fuzz/findings/$t/"
    echo "  finding: $f (copied to tests/fuzz/findings/$t/)"
    status=1
  done
  [ $rc -ne 0 ] && { tail -40 "$log"; status=1; }
  if [ -n "${MERGE:-}" ]; then
    mkdir -p "build-fuzz/merged/$t"
    "./build-fuzz/fuzz_$t" -merge=1 -max_len=65536 "tests/fuzz/corpus/$t" "$work" >/dev/null 2>&1 || true
    echo "  corpus tests/fuzz/corpus/$t: $(ls "tests/fuzz/corpus/$t" | wc -l) files, $(du -sb "tests/fuzz/corpus/$t" | cut -f1) bytes"
  fi
done
exit $status
