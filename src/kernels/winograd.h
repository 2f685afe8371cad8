// Winograd F(m x m, 3x3) for 3x3 stride-1 convolutions (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015), in two sizes:
//
//   Y = A^T [ (G g G^T) . (B^T d B) ] A       per a x a input tile d -> m x m output tile Y
//
// F(4,3): a = 6, interpolation points 0, +-1, +-2, infinity; 36 multiplies per 16 outputs (2.25
//   per output instead of 9):
//   B^T = [ 4  0 -5  0  1  0 ]    G = [  1/4     0     0  ]    A^T = [ 1  1  1  1  1  0 ]
//         [ 0 -4 -4  1  1  0 ]        [ -1/6  -1/6  -1/6 ]          [ 0  1 -1  2 -2  0 ]
//         [ 0  4 -4 -1  1  0 ]        [ -1/6   1/6  -1/6 ]          [ 0  1  1  4  4  0 ]
//         [ 0 -2 -1  2  1  0 ]        [ 1/24  1/12   1/6 ]          [ 0  1 -1  8 -8  1 ]
//         [ 0  2 -1 -2  1  0 ]        [ 1/24 -1/12   1/6 ]
//         [ 0  4  0 -5  0  1 ]        [  0      0     1  ]
// F(6,3): a = 8, points 0, +-1, +-1/2, +-2, infinity (ncnn's winograd63, src/layer/x86/
//   convolution_3x3_winograd.h); 64 multiplies per 36 outputs (1.78 per output), larger
//   transforms and a U 64/9 the size of the weights, and rounding a few times larger:
//   B^T = [ 1   0   -21/4   0     21/4   0    -1  0 ]   G = [   1      0      0    ]
//         [ 0   1    1    -17/4  -17/4   1     1  0 ]       [ -2/9   -2/9   -2/9   ]
//         [ 0  -1    1     17/4  -17/4  -1     1  0 ]       [ -2/9    2/9   -2/9   ]
//         [ 0  1/2  1/4   -5/2   -5/4    2     1  0 ]       [ 1/90   1/45   2/45   ]
//         [ 0 -1/2  1/4    5/2   -5/4   -2     1  0 ]       [ 1/90  -1/45   2/45   ]
//         [ 0   2    4    -5/2    -5    1/2    1  0 ]       [ 1/45   1/90   1/180  ]
//         [ 0  -2    4     5/2    -5   -1/2    1  0 ]       [ 1/45  -1/90   1/180  ]
//         [ 0  -1    0     21/4    0   -21/4   0  1 ]       [   0      0      1    ]
//   A^T = [ 1  1  1   1    1   32   32  0 ]
//         [ 0  1 -1   2   -2   16  -16  0 ]
//         [ 0  1  1   4    4    8    8  0 ]
//         [ 0  1 -1   8   -8    4   -4  0 ]
//         [ 0  1  1  16   16    2    2  0 ]
//         [ 0  1 -1  32  -32    1   -1  1 ]
//
// The a*a elementwise products summed over input channels are a*a independent GEMMs (outch x
// inch) x (inch x tiles), run by the GEMM driver with the transformed kernels U packed as A panels
// (once) and the transformed input V written directly in packed B panels. Rounding differs from the
// direct sum (docs/numbers.md budget 1e-3).
//
// Layout of one tile block of nt tiles (tile t of the block covers output rows m*ty.., columns
// m*tx.., numbered row-major over the tile grid from t0), P = a*a positions:
//   U: position p (0..P-1, row-major over the a x a) at u + p * packed_a_floats(outch, inch)
//   V: position p at v + p * packed_b_floats(inch, nt)  (B panels, K = inch, N = nt)
//   M: position p, output channel o, tile t at m + (p * outch + o) * ldm + t  (GEMM output)
#pragma once

#include <cstddef>

#include "kernels/activation.h"
#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

// Which transform: the value is the output tile side m.
enum class Winograd { F43 = 4, F63 = 6 };
inline int winograd_m(Winograd f) { return (int)f; }
// Input tile side a = m + 2 and the number of positions a * a.
inline int winograd_a(Winograd f) { return (int)f + 2; }
inline int winograd_positions(Winograd f) { return winograd_a(f) * winograd_a(f); }

size_t winograd_u_floats(Winograd f, int outch, int inch);
// weights [outch][inch][3][3] -> U (packed A panels per position).
void winograd_transform_kernel(Winograd f, const float* weights, int outch, int inch, float* u);

// Input planes: channel q at src + q * in_plane, rows of in_w floats, covering at least
// (tiles_h * m + 2) x (tiles_w * m + 2). Transforms tiles [t0, t0 + nt) into V.
// Only channels [q_begin, q_end) are transformed (q_end < 0: up to inch), into their places of the
// V of all inch channels: threads split a block's input transform by channel (each V value is one
// tile's transform of one channel, so the split cannot change it).
struct WinogradInput {
    const float* src = nullptr;
    int in_w = 0;
    size_t in_plane = 0;
    int inch = 0;
    int tiles_w = 0;
    int q_begin = 0, q_end = -1;
    int channel_end() const { return q_end < 0 ? inch : q_end; }
};
// Zeroes the padding columns (tiles nt .. round_up(nt, 8)) of V's last panels (P positions) for
// channels [q_begin, q_end) of inch.
void winograd_zero_panel_tail(int positions, int inch, int nt, float* v, int q_begin, int q_end);

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

#define NNFOLD_WINOGRAD_INPUT_KERNELS(X)                                                                        \
    X(void, winograd43_transform_input, (const WinogradInput& in, int t0, int nt, float* v), (in, t0, nt, v), 4) \
    X(void, winograd63_transform_input, (const WinogradInput& in, int t0, int nt, float* v), (in, t0, nt, v), 6)
NNFOLD_WINOGRAD_INPUT_KERNELS(NF_KERNEL_DECLARE)

#define NNFOLD_WINOGRAD_OUTPUT_KERNELS(X)                                                                     \
    X(void, winograd43_transform_output, (const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt), \
      (m, ldm, out, t0, nt), 4)                                                                                 \
    X(void, winograd63_transform_output, (const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt), \
      (m, ldm, out, t0, nt), 6)
NNFOLD_WINOGRAD_OUTPUT_KERNELS(NF_KERNEL_DECLARE)

// Tiles per block for a layer of ntiles tiles (a multiple of 8, at most ntiles rounded up to 8).
// The block's GEMMs run position by position, each reading that position's U panels (outch x inch)
// once per block and its V slice (inch x tiles) from cache. Small layers: the whole block (V and M
// of every position) about 512 KB, so the transforms and the GEMMs share L2. Layers whose U passes
// 2 MB: blocks as wide as a 128 KB V slice allows, since U is streamed from memory once per block
// (8-tile blocks made a 512 x 512 layer re-read its 37 MB U for every 8 tiles).
int winograd_tile_block(Winograd f, int inch, int outch, int ntiles);

// How a layer of ntiles tiles (blocks of at most tb, winograd_tile_block) runs on `parts` threads
// (parallel_part_count): false = by tiles (each part its own range of whole 8-tile panels, run as
// blocks with its own V and M), true = block after block, each block's input transform split by
// input channel and its GEMMs + output transform by output channel (winograd_block_outputs).
// By tiles when every part gets at least two blocks; else by channel when that evens the parts'
// work by 10% or more (a block split by channel costs two pool wake-ups instead of one) or there
// are fewer blocks than parts. Few tiles (resnet18's 512-channel layers at 7x7 have 4, one block)
// would leave threads idle split by tiles, and with a large U every thread would stream all of
// it; split by channel each reads only its output channels' part. The choice depends on the
// thread count but never changes a result.
bool winograd_split_by_channel(int ntiles, int tb, int outch, int parts);

// Floats of the workspace winograd_conv_block needs for blocks of up to nt tiles (V and M).
size_t winograd_block_floats(Winograd f, int inch, int outch, int nt);

// The P GEMMs over U and the output transform of output channels [o0, o1) (o0 a multiple of
// kGemmMR) for tiles [t0, t0 + nt) whose V (every input channel, P * packed_b_floats(inch, nt)
// floats) is ready. `m` holds P * (o1 - o0) * nt floats: the slice's own M, so threads that split a
// block by output channel write disjoint memory. Each output is the same sums (input channels in
// increasing order) and the same transform whatever the slice.
void winograd_block_outputs(Winograd f, const float* u, int inch, const float* v, const WinogradOutput& out, int t0,
                            int nt, int o0, int o1, float* m);

// One block of a convolution: input transform of tiles [t0, t0 + nt), the P GEMMs over U, the
// output transform. `ws` holds winograd_block_floats(f, in.inch, out.outch, nt) floats. Each output
// is one tile's transform of per-position sums over input channels in increasing order, so the
// result does not depend on how the tiles are split into blocks.
void winograd_conv_block(Winograd f, const float* u, const WinogradInput& in, const WinogradOutput& out, int t0,
                         int nt, float* ws);

}  // namespace kernels
}  // namespace nnfold
