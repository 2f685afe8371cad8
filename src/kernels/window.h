// Geometry of a sliding window over an unpadded plane with virtual padding, and the row cache the
// window kernels (depthwise convolution, pooling) and their scalar twins read through. Internal to
// src/kernels/.
//
// The input is never copied into a padded plane. Instead each input row the window reaches is
// copied once into a small ring of padded rows in scratch memory (L1-sized): pad values on the left,
// the row, pad values on the right up to the end of the last whole vector of four outputs. Rows
// above or below the plane are all pad values. Every output pixel - edges and tails included - is
// then computed by the same straight loop over whole vectors, reading only inside the padded row.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace nnfold {
namespace kernels {

struct WindowGeometry {
    const float* src = nullptr;      // unpadded plane, in_h rows of in_w
    int in_w = 0, in_h = 0;
    int pad_left = 0, pad_top = 0;   // virtual border (right/bottom follow from the output size)
    float pad_value = 0.f;
    int out_w = 0, out_h = 0;
    int kernel_w = 1, kernel_h = 1, stride_w = 1, stride_h = 1, dilation_w = 1, dilation_h = 1;

    // Floats of one padded row: up to the last tap of the last lane of the last whole vector of 4.
    size_t padded_row_len() const {
        const size_t xv = ((size_t)out_w + 3) / 4 * 4;
        return (xv - 1) * stride_w + (size_t)(kernel_w - 1) * dilation_w + 1;
    }
    // Input rows one output row's window spans (the ring holds this many, plus `extra`).
    int rows_spanned() const { return (kernel_h - 1) * dilation_h + 1; }
};

// The most rows a ring holds (kernels with taller windows are not supported by the ring).
constexpr int kMaxRingRows = 32;

// Scratch floats of a ring of `slots` padded rows.
inline size_t row_ring_floats(const WindowGeometry& g, int slots) { return (size_t)slots * g.padded_row_len(); }

// A ring of padded input rows in caller-provided scratch (row_ring_floats floats). Rows must be
// requested in non-decreasing order of their first use; `slots` consecutive rows stay valid.
class RowRing {
public:
    RowRing(const WindowGeometry& g, float* scratch, int slots)
        : g_(g), buf_(scratch), len_(g.padded_row_len()), slots_(std::min(slots, kMaxRingRows)) {
        for (int i = 0; i < slots_; i++)
            tag_[i] = kNone;
    }

    // The padded input row iy (may be outside the plane): element x * stride + j * dilation is the
    // tap j of output column x.
    const float* get(int iy) {
        const int slot = ((iy % slots_) + slots_) % slots_;
        float* r = buf_ + (size_t)slot * len_;
        if (tag_[slot] == iy)
            return r;
        tag_[slot] = iy;
        const int sy = iy - g_.pad_top;
        if (sy < 0 || sy >= g_.in_h) {
            std::fill(r, r + len_, g_.pad_value);
            return r;
        }
        const size_t left = std::min((size_t)g_.pad_left, len_);
        std::fill(r, r + left, g_.pad_value);
        const size_t n = std::min((size_t)g_.in_w, len_ - left);
        std::memcpy(r + left, g_.src + (size_t)sy * g_.in_w, n * sizeof(float));
        std::fill(r + left + n, r + len_, g_.pad_value);
        return r;
    }
    // Padded row of window row i for output row y.
    const float* row(int y, int i) { return get(y * g_.stride_h + i * g_.dilation_h); }

private:
    static constexpr int kNone = -0x7fffffff;
    const WindowGeometry& g_;
    float* buf_;
    size_t len_;
    int slots_;
    int tag_[kMaxRingRows];
};

}  // namespace kernels
}  // namespace nnfold
