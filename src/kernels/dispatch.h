// How every kernel family declares its kernels, XNNPACK's way: one enumerator list per family.
//
// A family header defines NNFOLD_<FAMILY>_KERNELS(X) with one row per kernel,
//   X(return type, name, (parameters), (arguments), extra columns...)
// and expands it with NF_KERNEL_DECLARE, which turns each row into
//   name__scalar     the scalar twin (src/kernels/<family>.cpp), declared in every build;
//   name__wasmsimd   the SIMD-128 kernel (src/kernels/wasm/), declared when NNFOLD_SIMD;
//   name             the build's kernel, chosen at compile time (SIMD when NNFOLD_SIMD, else the
//                    twin), which the layers call.
// The same lists feed the twin tests (tests/cpp/kernels: each SIMD kernel against its scalar
// twin, NF_KERNEL_SIMD_OR_NULL) and the benchmark rows (tests/bench/kernel_bench.cpp), so a kernel
// added to a list is declared, tested and benchmarked together. Extra columns carry what a
// generic test or benchmark needs to know about a row (a window's size and stride, ...).
#pragma once

#if NNFOLD_SIMD
#define NF_KERNEL_SIMD_DECLARE(ret, name, params) ret name##__wasmsimd params;
#define NF_KERNEL_IMPL(name) name##__wasmsimd
#define NF_KERNEL_SIMD_OR_NULL(name) name##__wasmsimd
#else
#define NF_KERNEL_SIMD_DECLARE(ret, name, params)
#define NF_KERNEL_IMPL(name) name##__scalar
#define NF_KERNEL_SIMD_OR_NULL(name) nullptr
#endif

#define NF_KERNEL_DECLARE(ret, name, params, args, ...) \
    ret name##__scalar params;                          \
    NF_KERNEL_SIMD_DECLARE(ret, name, params)           \
    inline ret name params { return NF_KERNEL_IMPL(name) args; }
