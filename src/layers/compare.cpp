// nnfold.Compare (extension layer, docs/extension-layers.md): elementwise comparison giving 1.0 where
// it holds and 0.0 elsewhere (ONNX Equal, Greater, Less, GreaterOrEqual, LessOrEqual; a cast of a
// float to bool is "not equal to 0"). ncnn has no such layer.
// Params: 0 op_type (0 ==, 1 >, 2 <, 3 >=, 4 <=, 5 !=), 1 with_scalar (0), 2 b (float, 0.f).
// Bottoms: a and b (numpy broadcasting, either side), or a alone when with_scalar compares with b.
#include "layers/broadcast.h"
#include "layers/param_table.h"

namespace nnfold {

class Compare : public Layer {
public:
    int op_type = 0;
    int with_scalar = 0;
    float b = 0.f;

    int expected_bottoms() const override { return with_scalar ? 1 : 2; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(Compare,
                   NF_PARAM(0, op_type),
                   NF_PARAM(1, with_scalar),
                   NF_PARAM(2, b))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (op_type < 0 || op_type > 5)
            return invalid_model("op_type (param 0) must be 0..5 (==, >, <, >=, <=, !=), got " + std::to_string(op_type));
        if (with_scalar != 0 && with_scalar != 1)
            return invalid_model("with_scalar (param 1) must be 0 or 1");
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(check_bottom_count(*this, bottoms.size()));
        tops.resize(1);
        if (with_scalar) {
            tops[0] = bottoms[0];
            return Status::ok();
        }
        return broadcast_shape(bottoms, tops[0]);
    }

    static bool compare(int op, float x, float y) {
        switch (op) {
        case 0: return x == y;
        case 1: return x > y;
        case 2: return x < y;
        case 3: return x >= y;
        case 4: return x <= y;
        default: return x != y;
        }
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const int op = op_type;
        if (!with_scalar)
            return broadcast_binary_forward(*this, bottoms, tops, opt,
                                            [op](float x, float y) { return compare(op, x, y) ? 1.f : 0.f; });
        std::vector<Shape> in;
        Shape out;
        NF_RETURN_IF_ERROR(broadcast_forward_setup(*this, bottoms, tops, opt, in, out));
        float* o = tops[0].data;
        const float* a = bottoms[0].data;
        const size_t n = out.total();
        for (size_t i = 0; i < n; i++)
            o[i] = compare(op_type, a[i], b) ? 1.f : 0.f;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Compare)

}  // namespace nnfold
