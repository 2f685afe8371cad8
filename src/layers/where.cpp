// nnfold.Where (extension layer, docs/extension-layers.md): ONNX Where, out = cond != 0 ? x : y with
// numpy broadcasting of the three operands. ncnn has no such layer.
// Params: 0 with_x_scalar (0), 1 x (float), 2 with_y_scalar (0), 3 y (float).
// Bottoms: cond, then x unless with_x_scalar, then y unless with_y_scalar.
#include "layers/broadcast.h"
#include "layers/param_table.h"

namespace nnfold {

class Where : public Layer {
public:
    int with_x_scalar = 0, with_y_scalar = 0;
    float x = 0.f, y = 0.f;

    int expected_bottoms() const override { return 1 + (with_x_scalar ? 0 : 1) + (with_y_scalar ? 0 : 1); }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(Where,
                   NF_PARAM(0, with_x_scalar),
                   NF_PARAM(1, x),
                   NF_PARAM(2, with_y_scalar),
                   NF_PARAM(3, y))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if ((with_x_scalar != 0 && with_x_scalar != 1) || (with_y_scalar != 0 && with_y_scalar != 1))
            return invalid_model("with_x_scalar / with_y_scalar (params 0 / 2) must be 0 or 1");
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(check_bottom_count(*this, bottoms.size()));
        tops.resize(1);
        return broadcast_shape(bottoms, tops[0]);
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        std::vector<Shape> in;
        Shape out;
        NF_RETURN_IF_ERROR(broadcast_forward_setup(*this, bottoms, tops, opt, in, out));
        float* o = tops[0].data;
        const float* c = bottoms[0].data;
        const float* xp = with_x_scalar ? nullptr : bottoms[1].data;
        const float* yp = with_y_scalar ? nullptr : bottoms[with_x_scalar ? 1 : 2].data;
        const int yi = with_x_scalar ? 1 : 2;
        for_each_broadcast(out, in, [&](size_t i, const std::vector<int64_t>& off) {
            bool t = c[off[0]] != 0.f;
            if (t)
                o[i] = xp ? xp[off[1]] : x;
            else
                o[i] = yp ? yp[off[yi]] : y;
        });
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Where)

}  // namespace nnfold
