// int8 Winograd F(4x4, 3x3) for 3x3 stride-1 convolutions (SIMD-128 form in
// kernels/wasm/int8_wino43_wasmsimd.cpp, scalar twins in kernels/int8_wino43.cpp): 36 int16 products
// per 16 outputs, against F(2x2, 3x3)'s 16 per 4 (kernels/int8.h) and the direct 9 per output.
//
// Transforms (integer, as ncnn's src/layer/x86/convolution_3x3_winograd_int8.h
// conv3x3s1_winograd43_*: G scaled by 24 except its last row, scaled by 6, which A^T's last
// column makes up for with a 4):
//   B^T = [ 4  0 -5  0  1  0 ]   G' = [  6  0  0 ]   A'^T = [ 1  1  1  1  1  0 ]
//         [ 0 -4 -4  1  1  0 ]        [ -4 -4 -4 ]          [ 0  1 -1  2 -2  0 ]
//         [ 0  4 -4 -1  1  0 ]        [ -4  4 -4 ]          [ 0  1  1  4  4  0 ]
//         [ 0 -2 -1  2  1  0 ]        [  1  2  4 ]          [ 0  1 -1  8 -8  4 ]
//         [ 0  2 -1 -2  1  0 ]        [  1 -2  4 ]
//         [ 0  4  0 -5  0  1 ]        [  0  0  6 ]
// With G the textbook F(4,3) matrix, G' = D 24 G and A'^T = A^T D^-1 for D = diag(1,1,1,1,1,1/4),
// so A'^T [(G' g G'^T) . V] A' = A^T [576 G g G^T . V] A = 576 x the direct sum S, in integers.
// Ranges (any int8 code c, |c| <= 128; ncnn's codes are within 127, but a border may hold
// (int8)pad_value):
//   V = B^T d B: B^T's rows have absolute sums <= 10, so |V| <= 100 * 128 = 12800 (int16);
//   U = G' g G'^T: G''s rows have absolute sums <= 12, so |U| <= 144 * 128 = 18432 (int16);
//   U * V + U * V (one i32x4.dot_i16x8_s lane) <= 2 * 18432 * 12800 < 2^31: no overflow there.
// Exactness: every later step (the sums over input channels, A'^T . A') is a ring operation, so
// in wrapping int32 the result Y is 576 S modulo 2^32. 576 = 64 * 9 and 9 is odd, so with
// inv9 = 9^-1 mod 2^32 (0x38E38E39), Y * inv9 = 64 S modulo 2^32; when 64 S fits int32, that is
// S in [-2^25, 2^25), the arithmetic shift (Y * inv9) >> 6 is S exactly. Outside that range the
// low 32 bits of 64 S cannot tell S from S +- 2^26, so the bound is the true one.
// |S| <= 128 * sum |w| over the output channel's 9 * inch weights, hence F(4,3) is exact for a
// layer when every output channel has sum |w| <= kI8Wino43MaxAbsSum = (2^25 - 1) / 128 (262143:
// 229 input channels at +-127 everywhere; real per-channel-scaled weights allow many more).
// The same argument for F(2,3) (result 4 S, the twin's >> 2): S in [-2^29, 2^29), sum |w| <=
// kI8Wino23MaxAbsSum = (2^29 - 1) / 128.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/dispatch.h"
#include "kernels/int8.h"

namespace nnfold {
namespace kernels {

constexpr int64_t kI8Wino43MaxAbsSum = ((int64_t)1 << 25) / 128 - 1;
constexpr int64_t kI8Wino23MaxAbsSum = ((int64_t)1 << 29) / 128 - 1;
// The largest sum |w| over one output channel's 9 * inch weights ([outch][inch][3][3]).
int64_t i8_max_abs_weight_sum(const int8_t* weights, int outch, int inch);

// U of every position p (0..35, row-major over the 6x6) packed as i16_gemm's A (the i8_pack_a
// layout) at u + p * i8_packed_a_count(outch, inch).
inline size_t i8_wino43_u_count(int outch, int inch) { return 36 * i8_packed_a_count(outch, inch); }
void i8_wino43_transform_kernel(const int8_t* weights, int outch, int inch, int16_t* u);

// Input tiles [t0, t0 + nt) of a grid tiles_w wide (tile t: padded rows 4 * (t / tiles_w) .. + 5,
// columns 4 * (t % tiles_w) .. + 5; taps outside the padded planes read as 0) transformed into V:
// position p at v + p * i16_packed_b_count(inch, nt), all of it written (padding zeros included).
// The tile (number tt of the grid) into column t of a block of nt, every channel (both twins).
void i8_wino43_input_tile(const Int8WinoInput& in, int tt, int t, int nt, int16_t* v);
// Output transform of tiles [t0, t0 + nt) whose 36 positions' sums are at m + (p * outch + o) * nt
// + (t - t0): the exact sums of channel o's output pixel (y, x) at out.sums + o * out.ld + (y - 4 *
// (t0 / tiles_w)) * out_w + x, for the pixels inside out_w x out_h. One tile of channel o (both twins):
void i8_wino43_output_tile(const int32_t* m, int tt, int t, int nt, int o, int y0, const Int8WinoOutput& out);

#define NNFOLD_INT8_WINO43_KERNELS(X)                                                                          \
    X(void, i8_wino43_input, (const Int8WinoInput& in, int t0, int nt, int16_t* v), (in, t0, nt, v))           \
    X(void, i8_wino43_output, (const int32_t* m, int t0, int nt, const Int8WinoOutput& out), (m, t0, nt, out))
NNFOLD_INT8_WINO43_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
