// Input (ncnn src/layer/input.cpp): declares a network input. Params 0=w 1=h 11=d 2=c; all zero
// means the shape is not declared and must come from the user. Forward is the identity.
#include "layers/param_table.h"

namespace nnfold {

class Input : public Layer {
public:
    Input() {
        one_blob_only = true;
        support_inplace = true;
    }
    int w = 0, h = 0, d = 0, c = 0;

    NF_PARAM_TABLE(Input, NF_PARAM(0, w), NF_PARAM(1, h), NF_PARAM(11, d), NF_PARAM(2, c))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (w < 0 || h < 0 || d < 0 || c < 0)
            return invalid_model("negative input dimension");
        return Status::ok();
    }
    int expected_bottoms() const override { return 0; }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        return same_shape(bottoms, tops);
    }
    Status forward_inplace(Mat&, const Option&) const override { return Status::ok(); }
};

NF_DEFINE_LAYER(Input)

// The shape an Input layer declares (dims 0 when it declares none), following ncnn's Mat rules:
// c set -> 3D (4D with d), else h set -> 2D, else w set -> 1D.
Shape declared_input_shape(const ParamDict& pd) {
    int w = pd.get_int(0, 0), h = pd.get_int(1, 0), d = pd.get_int(11, 0), c = pd.get_int(2, 0);
    if (c > 0 && d > 0)
        return Shape::d4(w > 0 ? w : 1, h > 0 ? h : 1, d, c);
    if (c > 0)
        return Shape::d3(w > 0 ? w : 1, h > 0 ? h : 1, c);
    if (h > 0)
        return Shape::d2(w > 0 ? w : 1, h);
    if (w > 0)
        return Shape::d1(w);
    return Shape();
}

}  // namespace nnfold
