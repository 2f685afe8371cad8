// Reorg (ncnn src/layer/reorg.cpp; darknet's reorg, the inverse of PixelShuffle). Params:
// 0 stride s (default 1), 1 mode (default 0). No weights. [c, h, w] -> [c * s^2, h / s, w / s]:
// input channel q at (i*s + sh, j*s + sw) goes to output channel p at (i, j) with
//   mode 0 (darknet):                                    p = q * s * s + sh * s + sw
//   mode 1 (TensorFlow space_to_depth, ONNX SpaceToDepth): p = (sh * s + sw) * c + q
// 3D inputs only, h and w multiples of s (ncnn would drop the remainder; nnfold refuses).
#include "layers/one_input_layer.h"
#include "layers/space_depth.h"

namespace nnfold {

class Reorg : public OneInputLayer {
public:
    int stride = 1;
    int mode = 0;

    Status load_param(const ParamDict& pd) override {
        stride = pd.get_int(0, 1);
        mode = pd.get_int(1, 0);
        if (stride < 1 || stride > 46340)
            return invalid_model("Reorg stride (param 0) must be positive, got " + std::to_string(stride));
        if (mode != 0 && mode != 1)
            return invalid_model("Reorg mode (param 1) must be 0 or 1, got " + std::to_string(mode));
        return Status::ok();
    }

    Status out_shape(const Shape& s, Shape& out) const override {
        const int st = stride;
        if (s.dims != 3)
            return shape_mismatch("Reorg needs a 3D input [c,h,w], got " + s.str());
        if (s.w % st != 0 || s.h % st != 0)
            return shape_mismatch("Reorg stride " + std::to_string(st) + " does not divide the height and width of input " +
                                  s.str());
        if ((int64_t)s.c * st * st > INT32_MAX)
            return shape_mismatch("Reorg output of input " + s.str() + " is too large");
        out = Shape::d3(s.w / st, s.h / st, s.c * st * st);
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        Shape o;
        NF_RETURN_IF_ERROR(out_shape(s, o));
        const int st = stride;
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(o, opt.blob_allocator));
        // the input is only read (wide -> deep)
        space_depth_copy(dst.data, bottom.data, s.c, o.h, o.w, st, mode, false);
        top = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Reorg,
                {0, "stride", ParamType::Int, pint(1)},
                {1, "mode", ParamType::Int, pint(0)})

}  // namespace nnfold
