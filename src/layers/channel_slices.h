// ncnn's "one parameter per channel" axis, shared by the layers that hold one value per channel
// (BatchNorm, Scale, PReLU): ncnn treats a 1D blob [w] as w channels of one value, a 2D blob [h,w]
// as h channels of one row, and a 3D/4D blob [c,(d,)h,w] as c channels of d*h*w values (ncnn
// src/layer/batchnorm.cpp, scale.cpp, prelu.cpp: the dims == 1 / dims == 2 / dims == 3 || 4 branches).
// With nnfold's dense layout channel k is the contiguous range [k * size, (k + 1) * size).
#pragma once

#include <cstddef>

#include "core/shape.h"

namespace nnfold {

struct ChannelSlices {
    size_t count = 0;  // number of channels
    size_t size = 0;   // values per channel
};

inline ChannelSlices channel_slices(const Shape& s) {
    ChannelSlices r;
    switch (s.dims) {
    case 1: r.count = (size_t)s.w; r.size = 1; break;
    case 2: r.count = (size_t)s.h; r.size = (size_t)s.w; break;
    case 3:
    case 4: r.count = (size_t)s.c; r.size = (size_t)s.w * s.h * s.d; break;
    default: break;
    }
    return r;
}

// "each element" / "each row" / "each channel": how a per-channel count is read for a shape, for
// error messages.
inline const char* channel_axis_name(const Shape& s) {
    return s.dims == 1 ? "w (one value per element of a 1D blob)"
                       : s.dims == 2 ? "h (one value per row of a 2D blob)" : "c (one value per channel)";
}

}  // namespace nnfold
