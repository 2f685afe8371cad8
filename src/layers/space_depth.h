// The one index map behind PixelShuffle (depth to space) and Reorg (space to depth), which are
// inverses of each other. A "deep" blob [C * r * r, h, w] and a "wide" blob [C, h * r, w * r]
// correspond pixel for pixel: wide channel k at (i * r + sh, j * r + sw) is deep channel
//   mode 0 (PyTorch pixel_shuffle / darknet reorg, ONNX CRD):  (k * r + sh) * r + sw
//   mode 1 (TensorFlow depth_to_space / space_to_depth, DCR):  (sh * r + sw) * C + k
// at (i, j). Only copies, so any loop order gives the same bits.
#pragma once

#include <cstddef>
#include <string>

#include "layers/one_input_layer.h"
#include "layers/param_table.h"

namespace nnfold {

inline int space_depth_channel(int k, int sh, int sw, int r, int C, int mode) {
    return mode == 0 ? (k * r + sh) * r + sw : (sh * r + sw) * C + k;
}

// Copies deep -> wide (to_wide, PixelShuffle) or wide -> deep (Reorg). h, w: the deep plane.
inline void space_depth_copy(float* deep, float* wide, int C, int h, int w, int r, int mode, bool to_wide) {
    const size_t deep_plane = (size_t)w * h, wide_w = (size_t)w * r, wide_plane = deep_plane * r * r;
    for (int k = 0; k < C; k++)
        for (int sh = 0; sh < r; sh++)
            for (int sw = 0; sw < r; sw++) {
                float* dp = deep + (size_t)space_depth_channel(k, sh, sw, r, C, mode) * deep_plane;
                float* wp = wide + (size_t)k * wide_plane + (size_t)sh * wide_w + sw;
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++) {
                        float& d = dp[(size_t)i * w + j];
                        float& s = wp[(size_t)i * r * wide_w + (size_t)j * r];
                        if (to_wide)
                            s = d;
                        else
                            d = s;
                    }
            }
}

// What PixelShuffle and Reorg share: param 0 the factor (default 1; ncnn names it upscale_factor
// and stride) and 1 mode (default 0), both read by L's param table and checked alike; a 3D input;
// a forward that is one space_depth_copy into a new blob of out_shape's shape (deep -> wide
// when `to_wide`, PixelShuffle; else wide -> deep, Reorg). L gives its table and out_shape.
template <class L>
class SpaceDepthLayer : public OneInputLayer {
public:
    int factor = 1;
    int mode = 0;

    explicit SpaceDepthLayer(bool to_wide) : to_wide_(to_wide) {}

    Status load_param(const ParamDict& pd) override {
        L::param_table().read(pd, static_cast<L&>(*this));
        const std::string factor_name = L::param_table().specs()[0].name;
        if (factor < 1 || factor > 46340)
            return invalid_model(type + " " + factor_name + " (param 0) must be positive, got " + std::to_string(factor));
        if (mode != 0 && mode != 1)
            return invalid_model(type + " mode (param 1) must be 0 or 1, got " + std::to_string(mode));
        return Status::ok();
    }
    // The input is only read.
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        Shape o;
        NF_RETURN_IF_ERROR(out_shape(s, o));
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(o, opt.blob_allocator));
        if (to_wide_)
            space_depth_copy(bottom.data, dst.data, o.c, s.h, s.w, factor, mode, true);
        else
            space_depth_copy(dst.data, bottom.data, s.c, o.h, o.w, factor, mode, false);
        top = dst;
        return Status::ok();
    }
    using Layer::forward;

protected:
    Status check_3d(const Shape& s) const {
        if (s.dims != 3)
            return shape_mismatch(type + " needs a 3D input [c,h,w], got " + s.str());
        return Status::ok();
    }

private:
    bool to_wide_;
};

}  // namespace nnfold
