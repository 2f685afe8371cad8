// Noop (ncnn src/layer/noop.cpp): passes every bottom through unchanged (tops = bottoms).
#include "layers/layer.h"

namespace nnfold {

class Noop : public Layer {
public:
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != tops.size())
            return shape_mismatch("Noop needs as many tops as bottoms");
        tops = bottoms;
        return Status::ok();
    }
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option&) const override {
        tops = bottoms;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Noop)

}  // namespace nnfold
