// int8 arithmetic as ncnn computes it for the models ncnn2int8 writes (scalar; pure functions).
//
// ncnn (src/layer/convolution.cpp, convolutiondepthwise.cpp, innerproduct.cpp forward_int8,
// src/layer/quantize.cpp, requantize.cpp, src/layer/x86/x86_usability.h float2int8) computes an
// int8 layer in three steps:
//   1. quantize the fp32 input: code = float2int8(x * bottom_scale), unless the input already
//      is int8 (the output of an int8 layer with int8_scale_term > 100);
//   2. sum code x weight code in int32 (exact, so any summation order gives the same sum);
//   3. v = sum * scale_in + bias, with scale_in = 1 / (bottom_scale * weight_scale) computed in
//      float (0 when the weight scale is 0); v = activation(v); then either the float v is the
//      output (dequantize) or float2int8(v * top_scale) is (requantize, int8_scale_term > 100).
// Steps 1 and 2 are here (the quantize kernel in kernels/int8_quant.h, depthwise in
// kernels/int8_dw.h); step 3 needs the layer's activation and is in layers/int8_layers.h.
// float2int8 rounds half away from zero (C round()) and clamps to [-127, 127]. This is not the
// round-half-to-even of wasm's f32x4.nearest or of x86's default cvtps: SIMD twins must add
// +-0.5 and truncate, as ncnn's float2int8_sse does.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

// ncnn's float2int8: round half away from zero, clamp to [-127, 127]. NaN gives 0 (ncnn's scalar
// form casts NaN to int, which C++ leaves undefined).
inline int8_t float2int8(float v) {
    float r = std::round(v);
    if (r > 127.f)
        return 127;
    if (r < -127.f)
        return -127;
    if (r != r)
        return 0;
    return (int8_t)(int)r;
}

// scale_in of ncnn's dequantize step: 1 / (bottom_scale * weight_scale) in float, 0 for a zero
// weight scale (a channel whose weights are all zero).
inline float int8_scale_in(float bottom_scale, float weight_scale) {
    return weight_scale == 0.f ? 0.f : 1.f / (bottom_scale * weight_scale);
}

// The 12-bit reciprocal ncnn's x86 build takes instead of 1 / x in one place (ConvolutionDepthWise
// with a multiple of 8 channels: _mm_rcp_ps of bottom_scale * weight_scale), bit for bit as the
// CPU of ncnn's oracle computes it (kernels/int8_rcp_table.h), so every build gives ncnn's codes.
// Inputs outside the table's range (zero, subnormal, huge, inf, NaN) give 1 / x.
float x86_rcp(float x);


// Grouped int8 convolution sums (ncnn's forward_int8 loops; Convolution is group 1, a depthwise
// layer is group == channels == num_output). `src` holds the padded input planes
// [inch][padded_h][padded_w]; `weight` is [group][outch/group][inch/group][kernel_h][kernel_w];
// `ofs` are the kernel tap offsets in the padded plane (kernel_offsets). sums is
// [outch][out_h][out_w].
struct Int8ConvShape {
    int inch = 0, outch = 0, group = 1;
    int padded_w = 0, padded_h = 0;
    int out_w = 0, out_h = 0;
    int stride_w = 1, stride_h = 1;
    int maxk = 1;
};
// `cols` is int8_conv_cols_bytes(s) bytes of scratch (the im2col matrix of one group). Only output
// channels [p_begin, p_end) are computed (p_end < 0: up to outch), so that threads can take
// ranges of channels, each with its own `cols`.
void int8_conv_sums(const Int8ConvShape& s, const int8_t* src, const int8_t* weight, const int* ofs, int8_t* cols,
                    int32_t* sums, int p_begin = 0, int p_end = -1);
inline bool int8_conv_direct(const Int8ConvShape& s, const int* ofs) {
    return s.maxk == 1 && s.stride_w == 1 && s.stride_h == 1 && ofs[0] == 0 && s.out_w == s.padded_w &&
           s.out_h == s.padded_h;
}
inline size_t int8_conv_cols_bytes(const Int8ConvShape& s) {
    return (size_t)(s.inch / s.group) * s.maxk * s.out_w * s.out_h;
}


// ---- The fast int8 kernels (SIMD-128 in kernels/wasm/int8_wasmsimd.cpp, scalar twins in int8.cpp).
// Integer sums are exact, and the store below computes the same float operations in the same order
// in both twins, so a SIMD kernel and its twin give the same bits (and ncnn's codes).

// The store every int8 kernel ends with: ncnn's dequantize (float out) or requantize (int8 codes
// out) of the int32 sums of output row (channel) m:
//   v = fused_bias ? fma((float)sum, scale_in[m], bias[m]) : (float)sum * scale_in[m] + bias[m]
//   v = act(v)                        types 0..3 only (none, relu, leaky relu, clip: exact in both
//                                     twins; layers run the reference store for the others)
//   out = q ? float2int8(v * top_scale) : v
// fused_bias is ncnn's x86 epilogue on an FMA CPU (one rounding). SIMD-128 has no FMA: the SIMD
// twin computes sum * scale + bias in f64 (the product of two floats is exact there, the sum rounds
// once) and rounds that to float; the two roundings agree with one except when the f64 result is
// exactly halfway between two floats, which the kernel detects and recomputes with std::fma. In
// i8_gemm, whose sums are bounded by K * 128 * 128 (A and B hold int8 values), a row whose f64 sum
// is exact for every such sum (kernels/wasm/int8_simd.h fma_exact_f64) skips that check, and a
// zero bias takes the plain product (the same bits, int8_wasmsimd.cpp Store4). Codes out, a row
// with a bounded sum, act none / relu / clip and a positive top scale takes the code from
// (float)sum * (scale * top) + bias * top in f32 where that is provably the same code (int8_wasmsimd.cpp
// direct_for), and the forms above for a vector where it is not.
struct Int8Out {
    const float* scale_in = nullptr;  // per row
    const float* bias = nullptr;      // per row, or null (0)
    bool fused_bias = false;
    ActParams act;
    float top_scale = 0.f;
    float* f = nullptr;   // dequantize: row m's outputs at f + m * ld
    int8_t* q = nullptr;  // requantize: row m's codes at q + m * ld
    size_t ld = 0;
    // A bound on |sum| for every sum i8_store is given (0: unknown). Where it is at most 2^24 and
    // fma_exact_f64 holds for a row's scale and bias, the SIMD store takes the exact f64 form
    // (fma4_exact) instead of the halfway-checked emulation, and for codes out the direct form
    // where it applies; the same bits either way. i8_gemm uses its own bound, K * 128 * 128.
    double sum_bound = 0;
};
inline bool int8_store_act_supported(int type) { return type >= 0 && type <= 3; }

// GEMM operands, packed for the kernel (K padded to even Kp with zero codes). i8_gemm walks the
// 4-row blocks of A in its outer loop and the 8-column blocks of B inside it, so one block of A
// (Kp * 8 bytes) stays in L1 while the packed B (a layer packs tiles of a bounded size) is read
// from L2; each output tile's sums and store do not depend on that order.
//   A (weights, packed once): int16, blocks of 4 rows, [M/4][Kp/2][4 rows][2 consecutive k]; rows
//     past M are zeros. A 32-bit load of one (row, k pair) splats to the dot product's pairs.
//   B (codes of the input, packed per run): int8, blocks of 8 columns (output pixels),
//     [N/8][Kp/2][8 columns][2 consecutive k]; columns past N are zeros. Sixteen bytes hold one k
//     pair of 8 columns: widened to two i16x8, each lane pair (k, k+1) of one column meets the
//     row's pair in i32x4.dot_i16x8_s.
inline size_t i8_packed_a_count(int M, int K) { return (size_t)((M + 3) / 4) * 4 * (size_t)((K + 1) / 2 * 2); }
inline size_t i8_packed_b_bytes(int K, int N) { return (size_t)((N + 7) / 8) * 8 * (size_t)((K + 1) / 2 * 2); }
// i8_dot_rows: sums[p] = sum over i < n of x[i] * row p of the weights, for outch rows stored
// row-major ([outch][n], as ncnn stores them) or, `interleaved`, as i8_interleave_rows leaves them.
// Interleaved: each block of 4 rows (rows p .. p + 3, p a multiple of 4, p + 4 <= outch) keeps its
// 4 * n bytes at p * n, ordered as chunks of 16 columns, each chunk the 16 codes of row 0, then row
// 1, 2, 3 (64 bytes), then the columns past the last whole chunk (n % 16 of them), row 0's, then
// row 1's, 2's, 3's; the last outch % 4 rows stay row-major. The 4 rows are then read as one
// stream: InnerProduct's weights come from memory (a large layer is evicted between runs), and four
// short row streams at once defeated the prefetcher (mobilenet_v2's fc7, 1280 -> 1000: 0.30 ms
// row-major, 0.15 ms interleaved, wasm SIMD with the weights out of cache).
void i8_interleave_rows(int8_t* weight, int n, int outch);
// A[i][k] = a[i * K + k] (weight rows as ncnn stores them; int16 rows: Winograd's U).
void i8_pack_a(int M, int K, const int8_t* a, int16_t* dst);
void i8_pack_a(int M, int K, const int16_t* a, int16_t* dst);
// B[k][n] = src[kofs[k] + pixel(col0 + n)], pixel(c) = (c / out_w) * row_step + (c % out_w) *
// col_step: im2col of a padded plane set (kofs[k] = channel * plane + tap offset, row_step =
// stride_h * padded_w, col_step = stride_w), or plain planes (kofs[k] = k * plane, out_w = N,
// col_step 1). col0 lets a layer pack one tile of columns [col0, col0 + N) at a time (i8_pack_b
// below, a kernel with a SIMD twin) and run the GEMM on it while it is in cache.
struct Int8BSource {
    const int8_t* src = nullptr;
    const size_t* kofs = nullptr;  // K offsets
    int out_w = 1;
    size_t row_step = 0, col_step = 1;
    int col0 = 0;
};

// The columns' output positions while i8_pack_b walks its blocks: (y, x) = output row and column
// of the next block's first column, from col0 once per call (one division there instead of one
// per column; a block of the stem convolution packs 27 k in about 14 shuffles).
struct Int8BCursor {
    int y = 0, x = 0;
    explicit Int8BCursor(const Int8BSource& b) : y(b.col0 / b.out_w), x(b.col0 % b.out_w) {}
};
// The pixel offsets in b.src of the next block's columns (up to 8 of the N - nb * 8 left; the rest
// 0), advancing cur past them; returns how many exist (both twins of i8_pack_b). `run`: all 8
// exist and pix[j] = pix[0] + j * col_step for every j. Checking pix[7] suffices: a column past a
// row's end adds row_step - out_w * col_step to every later offset, so pix[7] = pix[0] + 7 *
// col_step holds only with no row change before it or with that difference 0 (rows that follow
// each other: plain planes); either way every offset is on the line.
inline int i8_block_pixels(int N, const Int8BSource& b, int nb, Int8BCursor& cur, size_t pix[8], bool& run) {
    const int valid = N - nb * 8 < 8 ? N - nb * 8 : 8;
    for (int j = 0; j < 8; j++) {
        pix[j] = 0;
        if (j < valid) {
            pix[j] = (size_t)cur.y * b.row_step + (size_t)cur.x * b.col_step;
            if (++cur.x == b.out_w) {
                cur.x = 0;
                cur.y++;
            }
        }
    }
    run = valid == 8 && pix[7] == pix[0] + 7 * b.col_step;
    return valid;
}

// ---- int8 Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions: Y = A^T [U . V] A per 4x4 input
// tile d (2x2 outputs), with integer transforms, so that every sum stays exact:
//   B^T = [ 1  0 -1  0 ]   G' = 2 G = [ 2  0  0 ]   A^T = [ 1  1  1  0 ]
//         [ 0  1  1  0 ]              [ 1  1  1 ]         [ 0  1 -1 -1 ]
//         [ 0 -1  1  0 ]              [ 1 -1  1 ]
//         [ 0  1  0 -1 ]              [ 0  0  2 ]
// V = B^T d B (|V| <= 4 * 127, int16), U = G' g G'^T = 4 x the exact G g G^T (|U| <= 9 * 127,
// int16), so A^T [U . V] A is 4 x the direct convolution sum, exactly: the products and sums
// wrap modulo 2^32 in int32 (i32x4.dot_i16x8_s never overflows on these ranges), and wrapping is
// harmless as long as the final 4 x sum fits, which holds for inch <= kI8WinoMaxInch (4 * inch * 9
// * 127 * 127 < 2^31; the layer decides by the weights' sums instead, kernels/int8_wino43.h, which
// also covers a border of code -128). 16 products per 4 outputs instead of 36. The 16 positions'
// products summed over input channels are 16 GEMMs (outch x inch) x (inch x tiles) with int16
// operands (i16_gemm).
constexpr int kI8WinoMaxInch = 3698;
// U of every position p (0..15, row-major over the 4x4) packed as i16_gemm's A (the i8_pack_a
// layout) at u + p * i8_packed_a_count(outch, inch); weights [outch][inch][3][3].
inline size_t i8_wino_u_count(int outch, int inch) { return 16 * i8_packed_a_count(outch, inch); }
void i8_wino_transform_kernel(const int8_t* weights, int outch, int inch, int16_t* u);
// int16 B for i16_gemm: blocks of 8 columns, [N/8][Kp/2][8 columns][2 consecutive k] int16 (zeros
// past N and K).
inline size_t i16_packed_b_count(int K, int N) { return i8_packed_b_bytes(K, N); }
// Input tiles [t0, t0 + nt) of a tile grid tiles_w wide (tile t: padded rows 2 * (t / tiles_w) ..
// + 3, columns 2 * (t % tiles_w) .. + 3; taps outside the padded_w x padded_h planes read as 0)
// transformed into V: position p at v + p * i16_packed_b_count(inch, nt), all of it written
// (padding zeros included).
struct Int8WinoInput {
    const int8_t* src = nullptr;  // padded planes [inch][padded_h][padded_w]
    int inch = 0, padded_w = 0, padded_h = 0, tiles_w = 0;
};
// One tile (number tt of the grid) of every channel into column t of a block of nt tiles (both
// twins of i8_wino_input; the SIMD one for tiles at the planes' edges).
void i8_wino_input_tile(const Int8WinoInput& in, int tt, int t, int nt, int16_t* v);

// Output transform of tiles [t0, t0 + nt) whose 16 positions' sums are at m + (p * outch + o) * nt
// + (t - t0): rows of output pixels (sums, already divided by 4) of channel o at sums + o * ld + (y
// - 2 * (t0 / tiles_w)) * out_w + x, for the pixels inside out_w x out_h.
struct Int8WinoOutput {
    int outch = 0, out_w = 0, out_h = 0, tiles_w = 0;
    int32_t* sums = nullptr;
    size_t ld = 0;
};
// One tile (number tt of the grid, column t of a block of nt) of channel o (both twins of
// i8_wino_output; the SIMD one for tiles at the planes' edges).
void i8_wino_output_tile(const int32_t* m, int tt, int t, int nt, int o, int y0, const Int8WinoOutput& out);

// i16_gemm: c[m * ldc + n] = sum over k of A[m][k] * B[k][n] (A as i8_pack_a packs it, B int16 as
// above), the raw int32 sums (wrapping), no store.
// i8_dequant_each: one sum per output, each with its own scale and bias (InnerProduct: one dot
// product per weight row), out[i] = act(i8_dequant_value(sums[i], scale[i], bias ? bias[i] : 0,
// fused_bias)), activation types 0..6 as act_scalar computes them. i8_store does the same for many
// sums of ONE row (one scale and bias), and choosing its form per row cost ~200 ns per call: called
// once per output, that was 2/3 of mobilenet_v2's int8 fc7 (1280 -> 1000).

#define NNFOLD_INT8_KERNELS(X)                                                                                      \
    X(void, i8_pack_b, (int K, int N, const Int8BSource& b, int8_t* dst), (K, N, b, dst))                         \
    X(void, i8_store, (const Int8Out& o, int m, size_t col, const int32_t* sums, size_t n), (o, m, col, sums, n))   \
    X(void, i8_gemm, (int M, int N, int K, const int16_t* pa, const int8_t* pb, const Int8Out& o),                 \
      (M, N, K, pa, pb, o))                                                                                         \
    X(void, i8_dot_rows, (const int8_t* x, int n, const int8_t* weight, int outch, bool interleaved, int32_t* sums), \
      (x, n, weight, outch, interleaved, sums))                                                                     \
    X(void, i8_wino_input, (const Int8WinoInput& in, int t0, int nt, int16_t* v), (in, t0, nt, v))                 \
    X(void, i8_wino_output, (const int32_t* m, int t0, int nt, const Int8WinoOutput& out), (m, t0, nt, out))       \
    X(void, i16_gemm, (int M, int N, int K, const int16_t* pa, const int16_t* pb, int32_t* c, size_t ldc),         \
      (M, N, K, pa, pb, c, ldc))                                                                                    \
    X(void, i8_dequant_each,                                                                                        \
      (const int32_t* sums, int n, const float* scale, const float* bias, bool fused_bias, const ActParams& act,    \
       float* out),                                                                                                 \
      (sums, n, scale, bias, fused_bias, act, out))
NNFOLD_INT8_KERNELS(NF_KERNEL_DECLARE)

// The scalar form of the store's per-value arithmetic (both twins' reference; the SIMD kernel's
// halfway fallback).
inline float i8_dequant_value(int32_t sum, float scale_in, float bias, bool fused_bias) {
    return fused_bias ? std::fma((float)sum, scale_in, bias) : (float)sum * scale_in + bias;
}

}  // namespace kernels
}  // namespace nnfold
