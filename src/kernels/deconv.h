// Transposed convolution pieces:
//   f32_col2im_add: scatters the GEMM result col[(k)][pixel] = sum over input channels of
//     W[o][c][k] x[c][pixel] (one output channel, maxk rows) onto the output plane:
//     out[(i * stride_h + ki * dilation_h) * out_w + j * stride_w + kj * dilation_w] += col[k][(i, j)]
//     for taps k = (ki, kj) in row-major order, input pixels in row-major order;
//   f32_deconvdw_plane: the depthwise case directly, one channel: for each tap (row-major), for
//     each input pixel, out[...] += x * w (stride-1 rows vectorized).
// Both add onto an output the caller initialized with the bias; the activation comes after
// (f32_act_inplace). Each output sums its terms tap by tap, not in the reference's input-pixel
// order: a reordering (CONVENTIONS budget 1e-4).
#pragma once

#include <cstddef>

#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

struct DeconvWindow {
    int in_w = 0;  // input columns
    int kernel_w = 1, kernel_h = 1, stride_w = 1, stride_h = 1, dilation_w = 1, dilation_h = 1;
    int out_w = 0;  // full output row length
};

// col: maxk rows of npix values (row stride ldcol) for input pixels [pix0, pix0 + npix).
void f32_col2im_add(const float* col, size_t ldcol, int pix0, int npix, const DeconvWindow& w, float* out);

// src: in_h rows of in_w; kernel: kernel_h x kernel_w taps.
#define NNFOLD_DECONVDW_KERNELS(X)                                                                         \
    X(void, f32_deconvdw_plane, (const float* src, int in_h, const float* kernel, const DeconvWindow& w, float* out), \
      (src, in_h, kernel, w, out))
NNFOLD_DECONVDW_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
