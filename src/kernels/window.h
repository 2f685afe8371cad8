// Geometry of a sliding window over an unpadded plane with virtual padding, shared by the window
// kernels (depthwise convolution, pooling) and their scalar twins. Internal to src/kernels/.
//
// The kernels never copy the input into a padded buffer. A window row that falls outside the plane
// vertically reads `pad_row` (in_w copies of the pad value); columns are split into an interior,
// where every tap of every lane is inside the row (vector loads straight from the input), and the
// left/right edges, computed per pixel with the pad value for taps outside the row.
#pragma once

#include <algorithm>
#include <cstddef>

namespace nnfold {
namespace kernels {

struct WindowGeometry {
    const float* src = nullptr;      // unpadded plane, in_h rows of in_w
    int in_w = 0, in_h = 0;
    int pad_left = 0, pad_top = 0;   // virtual border (right/bottom follow from the output size)
    float pad_value = 0.f;
    const float* pad_row = nullptr;  // in_w values equal to pad_value (for rows outside the plane)
    int out_w = 0, out_h = 0;
    int kernel_w = 1, kernel_h = 1, stride_w = 1, stride_h = 1, dilation_w = 1, dilation_h = 1;

    // Input row for window row i of output row y (pad_row outside the plane).
    const float* row(int y, int i) const {
        const int iy = y * stride_h + i * dilation_h - pad_top;
        return iy >= 0 && iy < in_h ? src + (size_t)iy * in_w : pad_row;
    }
    // Output columns [x_lo, x_hi) whose taps all lie inside the row.
    void interior(int& x_lo, int& x_hi) const {
        const int extent = (kernel_w - 1) * dilation_w + 1;
        x_lo = (pad_left + stride_w - 1) / stride_w;
        const int last = in_w - extent + pad_left;  // largest x * stride_w inside
        x_hi = last < 0 ? 0 : last / stride_w + 1;
        x_lo = std::min(x_lo, out_w);
        x_hi = std::max(std::min(x_hi, out_w), x_lo);
    }
    // Input value for tap column j of output column x on input row r (pad value outside).
    float at(const float* r, int x, int j) const {
        const int ix = x * stride_w + j * dilation_w - pad_left;
        return ix >= 0 && ix < in_w ? r[ix] : pad_value;
    }
};

}  // namespace kernels
}  // namespace nnfold
