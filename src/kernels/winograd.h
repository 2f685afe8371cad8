// Winograd F(4x4, 3x3) for 3x3 stride-1 convolutions (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015; interpolation points 0, +-1, +-2, infinity):
//
//   Y = A^T [ (G g G^T) . (B^T d B) ] A       per 6x6 input tile d -> 4x4 output tile Y
//
//   B^T = [ 4  0 -5  0  1  0 ]    G = [  1/4     0     0  ]    A^T = [ 1  1  1  1  1  0 ]
//         [ 0 -4 -4  1  1  0 ]        [ -1/6  -1/6  -1/6 ]          [ 0  1 -1  2 -2  0 ]
//         [ 0  4 -4 -1  1  0 ]        [ -1/6   1/6  -1/6 ]          [ 0  1  1  4  4  0 ]
//         [ 0 -2 -1  2  1  0 ]        [ 1/24  1/12   1/6 ]          [ 0  1 -1  8 -8  1 ]
//         [ 0  2 -1 -2  1  0 ]        [ 1/24 -1/12   1/6 ]
//         [ 0  4  0 -5  0  1 ]        [  0      0     1  ]
//
// 36 multiplies per 16 outputs instead of 144: the 36 elementwise products summed over input
// channels are 36 independent GEMMs (outch x inch) x (inch x tiles), run by the GEMM driver with
// the transformed kernels U packed as A panels (once) and the transformed input V written
// directly in packed B panels. Rounding differs from the direct sum (CONVENTIONS budget 1e-3).
//
// Layout of one tile block of nt tiles (tile t of the block covers output rows 4*ty.., columns
// 4*tx.., numbered row-major over the tile grid from t0):
//   U: position p (0..35, row-major over the 6x6) at u + p * packed_a_floats(outch, inch)
//   V: position p at v + p * packed_b_floats(inch, nt)  (B panels, K = inch, N = nt)
//   M: position p, output channel o, tile t at m + (p * outch + o) * ldm + t  (GEMM output)
#pragma once

#include <cstddef>

#include "kernels/activation.h"
#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

size_t winograd43_u_floats(int outch, int inch);
// weights [outch][inch][3][3] -> U (packed A panels per position).
void winograd43_transform_kernel(const float* weights, int outch, int inch, float* u);

// Input planes: channel q at src + q * in_plane, rows of in_w floats, covering at least
// (tiles_h * 4 + 2) x (tiles_w * 4 + 2). Transforms tiles [t0, t0 + nt) into V.
struct WinogradInput {
    const float* src = nullptr;
    int in_w = 0;
    size_t in_plane = 0;
    int inch = 0;
    int tiles_w = 0;
};
// Zeroes the padding columns (tiles nt .. round_up(nt, 8)) of V's last panels.
void winograd43_zero_panel_tail(int inch, int nt, float* v);
#define NNFOLD_WINOGRAD_INPUT_KERNELS(X) \
    X(void, winograd43_transform_input, (const WinogradInput& in, int t0, int nt, float* v), (in, t0, nt, v))
NNFOLD_WINOGRAD_INPUT_KERNELS(NF_KERNEL_DECLARE)

// M of tiles [t0, t0 + nt) -> output planes (channel o at dst + o * out_w * out_h), adding bias[o]
// (bias may be null) and applying the activation; pixels outside out_w x out_h are dropped.
struct WinogradOutput {
    float* dst = nullptr;
    int out_w = 0, out_h = 0;
    int outch = 0;
    int tiles_w = 0;
    const float* bias = nullptr;
    ActParams act;
};
#define NNFOLD_WINOGRAD_OUTPUT_KERNELS(X)                                                                  \
    X(void, winograd43_transform_output, (const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt), \
      (m, ldm, out, t0, nt))
NNFOLD_WINOGRAD_OUTPUT_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
