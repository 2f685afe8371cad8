// Noop (ncnn src/layer/noop.cpp): passes bottom i through unchanged as top i. ncnn runs it in
// place, and Net::forward_layer stores bottom i into top i for each top only, so a Noop with more
// bottoms than tops (`Noop output 2 1 a b output`, converted detectors' output marker) makes its
// top the first bottom; the other bottoms are computed and dropped (docs/format.md).
#include "layers/layer.h"

namespace nnfold {

class Noop : public Layer {
public:
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (tops.size() > bottoms.size())
            return shape_mismatch("Noop needs at least as many bottoms as tops");
        for (size_t i = 0; i < tops.size(); i++)
            tops[i] = bottoms[i];
        return Status::ok();
    }
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option&) const override {
        for (size_t i = 0; i < tops.size() && i < bottoms.size(); i++)
            tops[i] = bottoms[i];
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Noop)

}  // namespace nnfold
