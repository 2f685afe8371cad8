// Single-precision GEMM, C[M][N] (row-major, row stride ldc) = A[M][K] x B[K][N], register-blocked
// in the GotoBLAS/XNNPACK way:
//
//   micro-kernel   f32_gemm_4x8__{wasmsimd,scalar}: one MR x NR = 4 x 8 tile of C held in eight
//                  f32x4 accumulators (the scalar twin: 32 floats), over kc steps of k. Per k it
//                  loads 8 B values (two vectors), broadcasts 4 A values and does 8 multiply-adds.
//   packed A       panels of MR rows: panel p holds A[p*MR + r][k] at p*K*MR + k*MR + r (rows past
//                  M are zero). Weights are packed once, in create_pipeline.
//   packed B       panels of NR columns: panel j holds B[k][j*NR + c] at j*kc*NR + k*NR + c (columns
//                  past N are zero). Packed per call from a strided matrix or by im2col straight
//                  from the (padded) input planes, or given already packed (Winograd, constant
//                  operands).
//   driver         f32_gemm: blocks N (nc) and K (kc) so the packed B block stays in L2 while each
//                  A panel slice (kc x MR) stays in L1, and handles edge tiles through a local tile.
//
// Summation order: every C element is init + sum over k in increasing k, one multiply-add at a
// time (K blocks store and reload the running sum). The SIMD kernel and its scalar twin therefore
// agree bit for bit, and convolution by im2col+GEMM sums in the reference layer's order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

constexpr int kGemmMR = 4;
constexpr int kGemmNR = 8;

// What happens around the K loop of a C tile.
struct GemmEpilogue {
    // Initial value of a C element when not accumulating: bias[row] (bias_per_column false) or
    // bias[column], or 0 when bias is null.
    const float* bias = nullptr;
    bool bias_per_column = false;
    // Applied once, when the last K block is stored: C = act(alpha * sum) (alpha only if `scale`).
    bool scale = false;
    float alpha = 1.f;
    ActParams act;
    // A residual Add fused into the store (runtime/fuse_store.cpp): when residual is set, each
    // finished element becomes post_act(C + residual[row * ldr + column]) right after the tile is
    // stored (f32_add_act_inplace on the tile, while it is in L1).
    // Rows from residual_rows on have no residual row: they become post_act(C + 0.f) (the zero
    // channels of a padded shortcut, runtime/fuse_store.h), the bits of adding the padding's zeros.
    const float* residual = nullptr;
    size_t ldr = 0;
    int residual_rows = INT32_MAX;
    ActParams post_act;
};

// Flags of one micro-kernel call.
enum : unsigned {
    kGemmAccumulate = 1,  // start from the values in C (later K blocks; Gemm's prefilled beta*C)
    kGemmFinal = 2,       // last K block: apply scale and activation before storing
};

// Per-call arguments of a full MR x NR tile. row_bias points at MR values and col_bias at NR
// values (either may be null; the driver pads edge tiles).
// residual (final tiles only): the tile's first residual row (NR values, rows ldr apart), added to
// the first residual_rows rows after the activation, +0.f to the others, then ReLU when relu_after;
// the bits of storing the tile and running f32_add_act_inplace on its rows (the driver passes it
// for a post activation of none or ReLU and adds any other after the store), without reloading
// the tile: a thin layer (BlazeFace's 24 -> 24 1x1 at 128x128) spent a third of its time there.
struct GemmTile {
    const float* row_bias = nullptr;
    const float* col_bias = nullptr;
    unsigned flags = 0;
    const GemmEpilogue* ep = nullptr;
    const float* residual = nullptr;
    size_t ldr = 0;
    int residual_rows = 0;
    bool relu_after = false;
};

// The micro-kernels: a (kc x MR, packed), b (kc x NR, packed), a full MR x NR tile of c.
#define NNFOLD_GEMM_KERNELS(X)                                                                                   \
    X(void, f32_gemm_4x8, (size_t kc, const float* a, const float* b, float* c, size_t ldc, const GemmTile& t), \
      (kc, a, b, c, ldc, t))
NNFOLD_GEMM_KERNELS(NF_KERNEL_DECLARE)

// Floats of a packed A for M x K (M rounded up to MR).
inline size_t packed_a_floats(int M, int K) { return (size_t)((M + kGemmMR - 1) / kGemmMR) * kGemmMR * (size_t)K; }
// Floats of a packed B for K x N (N rounded up to NR).
inline size_t packed_b_floats(int K, int N) { return (size_t)((N + kGemmNR - 1) / kGemmNR) * kGemmNR * (size_t)K; }

// Packs A[i][k] = a[i * rs + k * cs] (i < M, k < K) into MR-row panels (dst: packed_a_floats).
void f32_pack_a(int M, int K, const float* a, size_t rs, size_t cs, float* dst);
// Packs B[k][j] = b[k * rs + j * cs] for k in [0, K), j in [0, N) into NR-column panels of K rows
// (dst: packed_b_floats(K, N)).
void f32_pack_b(int K, int N, const float* b, size_t rs, size_t cs, float* dst);

// im2col: B[k][n] of a convolution over `channels` planes of in_w x in_h (already padded; plane
// q at src + q * in_plane), k = (q, ki, kj) row-major over the kernel, n = (oy, ox) over out_w
// columns: B[k][n] = src[q * in_plane + (oy * stride_h + ki * dilation_h) * in_w + ox * stride_w +
// kj * dilation_w].
struct Im2col {
    const float* src = nullptr;
    int in_w = 0;
    size_t in_plane = 0;
    int kernel_w = 1, kernel_h = 1, dilation_w = 1, dilation_h = 1, stride_w = 1, stride_h = 1;
    int out_w = 1;
};

// Where the driver takes B from.
struct GemmB {
    enum Kind { Strided, Im2colSource, Packed } kind = Strided;
    const float* data = nullptr;  // Strided: B[k][n] = data[k * rs + n * cs]; Packed: K x N panels
    size_t rs = 0, cs = 1;
    Im2col im2col;                // Im2colSource
};

// Workspace floats f32_gemm needs for these sizes when run in `parts` parts (0 for a packed B).
size_t f32_gemm_workspace_floats(int N, int K, GemmB::Kind kind, int parts = 1);

// How many parts (threads, core/parallel.h) a GEMM of this size is worth: 1 for small products
// or a single-threaded process. Size the workspace with the same value passed to f32_gemm.
int f32_gemm_parts(int M, int N, int K);

// C = epilogue(A x B) for M x N x K with A packed (f32_pack_a layout, K columns). `accumulate`
// starts every element from C's current value instead of the bias. `workspace` holds at least
// f32_gemm_workspace_floats(N, K, kind, parts) floats.
//
// parts > 1 runs it on up to that many threads (core/parallel.h): C is cut into a grid of parts to
// 4 x parts rectangles that the threads claim in turn, columns in whole NR panels first (each
// rectangle packs its own B columns into its thread's workspace slice), rows in whole MR panels
// when there are too few column panels. Every element is still summed over k in increasing order
// within one rectangle, so the result is the same bits for any `parts`.
void f32_gemm(int M, int N, int K, const float* a_packed, const GemmB& b, float* c, size_t ldc,
              const GemmEpilogue& ep, bool accumulate, float* workspace, int parts = 1);

// f32_gemv_packed over output rows split across threads (in whole MR panels; rows are independent).
void f32_gemv_packed_parallel(int M, int K, const float* a_packed, const float* x, const float* bias,
                              const ActParams& act, float* y);

// GEMV over a packed A (one column of B): y[i] = act(bias[i] + sum_k A[i][k] x[k]), the sum in
// increasing k (the reference's order). MR rows per step.
#define NNFOLD_GEMV_KERNELS(X)                                                                                \
    X(void, f32_gemv_packed,                                                                                  \
      (int M, int K, const float* a_packed, const float* x, const float* bias, const ActParams& act, float* y), \
      (M, K, a_packed, x, bias, act, y))
NNFOLD_GEMV_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
