// PixelShuffle (ncnn src/layer/pixelshuffle.cpp). Params: 0 upscale_factor r (default 1), 1 mode
// (default 0). No weights. [c, h, w] -> [c / r^2, h * r, w * r]: output channel p at (i*r + sh,
// j*r + sw) reads input channel q at (i, j) with
//   mode 0 (PyTorch pixel_shuffle, ONNX DepthToSpace CRD): q = p * r * r + sh * r + sw
//   mode 1 (TensorFlow depth_to_space, ONNX DCR):          q = (sh * r + sw) * (c / r^2) + p
// 3D inputs only, c a multiple of r^2 (ncnn would drop the extra channels; nnfold refuses).
#include "layers/space_depth.h"

namespace nnfold {

class PixelShuffle : public SpaceDepthLayer<PixelShuffle> {
public:
    PixelShuffle() : SpaceDepthLayer(true) {}

    NF_PARAM_TABLE(PixelShuffle, {0, "upscale_factor", &PixelShuffle::factor}, NF_PARAM(1, mode))

    Status out_shape(const Shape& s, Shape& out) const override {
        const int r = factor;
        NF_RETURN_IF_ERROR(check_3d(s));
        if (s.c % (r * r) != 0)
            return shape_mismatch("PixelShuffle upscale_factor " + std::to_string(r) + ": the " + std::to_string(s.c) +
                                  " channels of input " + s.str() + " are not a multiple of " + std::to_string(r * r));
        if ((int64_t)s.w * r > INT32_MAX || (int64_t)s.h * r > INT32_MAX)
            return shape_mismatch("PixelShuffle output of input " + s.str() + " is too large");
        out = Shape::d3(s.w * r, s.h * r, s.c / (r * r));
        if (!out.valid())
            return shape_mismatch("PixelShuffle output of input " + s.str() + " is too large");
        return Status::ok();
    }
};

NF_DEFINE_LAYER(PixelShuffle)

}  // namespace nnfold
