// PixelShuffle (ncnn src/layer/pixelshuffle.cpp). Params: 0 upscale_factor r (default 1), 1 mode
// (default 0). No weights. [c, h, w] -> [c / r^2, h * r, w * r]: output channel p at (i*r + sh,
// j*r + sw) reads input channel q at (i, j) with
//   mode 0 (PyTorch pixel_shuffle, ONNX DepthToSpace CRD): q = p * r * r + sh * r + sw
//   mode 1 (TensorFlow depth_to_space, ONNX DCR):          q = (sh * r + sw) * (c / r^2) + p
// 3D inputs only, c a multiple of r^2 (ncnn would drop the extra channels; nnfold refuses).
#include "layers/one_input_layer.h"
#include "layers/space_depth.h"

namespace nnfold {

class PixelShuffle : public OneInputLayer {
public:
    int upscale_factor = 1;
    int mode = 0;

    Status load_param(const ParamDict& pd) override {
        upscale_factor = pd.get_int(0, 1);
        mode = pd.get_int(1, 0);
        if (upscale_factor < 1 || upscale_factor > 46340)
            return invalid_model("PixelShuffle upscale_factor (param 0) must be positive, got " +
                                 std::to_string(upscale_factor));
        if (mode != 0 && mode != 1)
            return invalid_model("PixelShuffle mode (param 1) must be 0 or 1, got " + std::to_string(mode));
        return Status::ok();
    }

    Status out_shape(const Shape& s, Shape& out) const override {
        const int r = upscale_factor;
        if (s.dims != 3)
            return shape_mismatch("PixelShuffle needs a 3D input [c,h,w], got " + s.str());
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
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        Shape o;
        NF_RETURN_IF_ERROR(out_shape(s, o));
        const int r = upscale_factor;
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(o, opt.blob_allocator));
        // the input is only read (to_wide copies deep -> wide)
        space_depth_copy(bottom.data, dst.data, o.c, s.h, s.w, r, mode, true);
        top = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(PixelShuffle,
                {0, "upscale_factor", ParamType::Int, pint(1)},
                {1, "mode", ParamType::Int, pint(0)})

}  // namespace nnfold
