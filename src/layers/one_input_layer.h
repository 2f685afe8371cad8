// Bases for the one-blob layers whose output shape is a pure function of the input shape.
// out_shape() is the one rule; infer_shape and forward both call it, so shape inference and
// forward refuse the same inputs with the same message.
#pragma once

#include <string>
#include <vector>

#include "layers/param_table.h"

namespace nnfold {

class OneInputLayer : public Layer {
public:
    OneInputLayer() { one_blob_only = true; }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch(type + " takes one input, got " + std::to_string(bottoms.size()));
        tops.resize(1);
        return out_shape(bottoms[0], tops[0]);
    }

protected:
    virtual Status out_shape(const Shape& in, Shape& out) const = 0;
};

// A layer that only relabels the axes (Squeeze, ExpandDims): the top shares the bottom's data.
class ReshapeViewLayer : public OneInputLayer {
public:
    Status forward(const Mat& bottom, Mat& top, const Option&) const override {
        Shape s;
        NF_RETURN_IF_ERROR(out_shape(bottom.shape(), s));
        return bottom.reshape(s, top);
    }
    using Layer::forward;
};

// Squeeze's and ExpandDims's params: per-extent flags 0 w, 1 h, 11 d, 2 c (default 0) and
// 3 axes (int array; when given, the flags are ignored), at most 4 axes. Each type's param table
// names them with its own prefix (squeeze_w, expand_w).
class AxisFlagsLayer : public ReshapeViewLayer {
public:
    int flag_w = 0, flag_h = 0, flag_d = 0, flag_c = 0;
    std::vector<int> axes;

protected:
    Status check_axes_count() const {
        if (axes.size() > 4)
            return invalid_model(type + " axes (param 3) lists " + std::to_string(axes.size()) + " axes, at most 4");
        return Status::ok();
    }
};

}  // namespace nnfold
