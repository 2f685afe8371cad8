// Split (ncnn src/layer/split.cpp): every top shares the bottom's data.
#include "layers/layer.h"

namespace nnfold {

class Split : public Layer {
public:
    int expected_bottoms() const override { return 1; }
    bool takes_int8() const override { return true; }  // tops share the Mat and its int8 flag
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("Split takes one input");
        for (auto& t : tops)
            t = bottoms[0];
        return Status::ok();
    }
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option&) const override {
        for (auto& t : tops)
            t = bottoms[0];
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Split)

}  // namespace nnfold
