// Flatten (ncnn src/layer/flatten.cpp): any 1D-4D input to 1D of w * h * d * c values, in the
// tensor's own order (c, d, h, w outermost first). No params, no weights. The data is shared, not
// copied (nnfold tensors are dense, without ncnn's per-channel padding).
#include "layers/layer.h"

namespace nnfold {

class Flatten : public Layer {
public:
    Flatten() { one_blob_only = true; }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("Flatten takes one input, got " + std::to_string(bottoms.size()));
        const Shape& s = bottoms[0];
        if (s.dims < 1 || s.dims > 4 || !s.valid() || s.total() > (uint64_t)INT32_MAX)
            return shape_mismatch("Flatten cannot flatten input " + s.str() + " into one axis");
        tops.assign(1, Shape::d1((int)s.total()));
        return Status::ok();
    }

    Status forward(const Mat& bottom, Mat& top, const Option&) const override {
        std::vector<Shape> out;
        NF_RETURN_IF_ERROR(infer_shape({bottom.shape()}, out));
        return bottom.reshape(out[0], top);
    }
};

NF_DEFINE_LAYER(Flatten)

}  // namespace nnfold
