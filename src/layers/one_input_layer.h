// Bases for the one-blob layers whose output shape is a pure function of the input shape.
// out_shape() is the one rule; infer_shape and forward both call it, so shape inference and
// forward refuse the same inputs with the same message.
#pragma once

#include <string>
#include <vector>

#include "layers/layer.h"

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
// 3 axes (int array; when given, the flags are ignored), at most 4 axes.
struct AxisFlags {
    int w = 0, h = 0, d = 0, c = 0;
    std::vector<int> axes;
    Status load(const ParamDict& pd, const std::string& type) {
        w = pd.get_int(0, 0);
        h = pd.get_int(1, 0);
        d = pd.get_int(11, 0);
        c = pd.get_int(2, 0);
        axes = pd.get_ints(3);
        if (axes.size() > 4)
            return invalid_model(type + " axes (param 3) lists " + std::to_string(axes.size()) + " axes, at most 4");
        return Status::ok();
    }
};

}  // namespace nnfold
