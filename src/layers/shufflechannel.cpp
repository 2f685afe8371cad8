// ShuffleChannel (ncnn src/layer/shufflechannel.cpp). Params: 0 group (default 1), 1 reverse
// (default 0). No weights. ShuffleNet's channel shuffle: the channels, seen as a [group][c/group]
// matrix, are transposed: output channel j * group + i = input channel i * (c/group) + j.
// reverse swaps the roles (the matrix is read as [c/group][group]), undoing a shuffle.
// Channels are the outermost axis (3D and 4D); a 1D/2D input has one channel, so only group 1
// (a plain copy) fits it. c must be a multiple of group (ncnn refuses otherwise too).
#include <cstring>

#include "layers/param_table.h"

namespace nnfold {

class ShuffleChannel : public Layer {
public:
    ShuffleChannel() { one_blob_only = true; }
    int group = 1;
    int reverse = 0;

    NF_PARAM_TABLE(ShuffleChannel, NF_PARAM(0, group), NF_PARAM(1, reverse))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (group < 1)
            return invalid_model("ShuffleChannel group (param 0) must be positive, got " + std::to_string(group));
        if (reverse != 0 && reverse != 1)
            return invalid_model("ShuffleChannel reverse (param 1) must be 0 or 1, got " + std::to_string(reverse));
        return Status::ok();
    }

    Status check(const Shape& s) const {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("ShuffleChannel needs a 1D-4D input, got " + s.str());
        const int c = s.dims >= 3 ? s.c : 1;
        if (c % group != 0)
            return shape_mismatch("ShuffleChannel group " + std::to_string(group) + " does not divide the " +
                                  std::to_string(c) + " channels of input " + s.str());
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        return check(bottoms[0]);
    }

    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        NF_RETURN_IF_ERROR(check(s));
        const int c = s.dims >= 3 ? s.c : 1;
        const int rows = reverse ? c / group : group;  // the [rows][cols] channel matrix read
        const int cols = c / rows;
        const size_t plane = (size_t)s.w * s.h * s.d;
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(s, opt.blob_allocator));
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                std::memcpy(dst.data + (size_t)(j * rows + i) * plane, bottom.data + (size_t)(i * cols + j) * plane,
                            plane * sizeof(float));
        top = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(ShuffleChannel)

}  // namespace nnfold
