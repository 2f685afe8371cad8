// Reorg (ncnn src/layer/reorg.cpp; darknet's reorg, the inverse of PixelShuffle). Params:
// 0 stride s (default 1), 1 mode (default 0). No weights. [c, h, w] -> [c * s^2, h / s, w / s]:
// input channel q at (i*s + sh, j*s + sw) goes to output channel p at (i, j) with
//   mode 0 (darknet):                                    p = q * s * s + sh * s + sw
//   mode 1 (TensorFlow space_to_depth, ONNX SpaceToDepth): p = (sh * s + sw) * c + q
// 3D inputs only, h and w multiples of s (ncnn would drop the remainder; nnfold refuses).
#include "layers/space_depth.h"

namespace nnfold {

class Reorg : public SpaceDepthLayer<Reorg> {
public:
    Reorg() : SpaceDepthLayer(false) {}

    NF_PARAM_TABLE(Reorg, {0, "stride", &Reorg::factor}, NF_PARAM(1, mode))

    Status out_shape(const Shape& s, Shape& out) const override {
        const int st = factor;
        NF_RETURN_IF_ERROR(check_3d(s));
        if (s.w % st != 0 || s.h % st != 0)
            return shape_mismatch("Reorg stride " + std::to_string(st) + " does not divide the height and width of input " +
                                  s.str());
        if ((int64_t)s.c * st * st > INT32_MAX)
            return shape_mismatch("Reorg output of input " + s.str() + " is too large");
        out = Shape::d3(s.w / st, s.h / st, s.c * st * st);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Reorg)

}  // namespace nnfold
