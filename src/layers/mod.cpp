// nnfold.Mod (extension layer, docs/extension-layers.md): ONNX Mod on tensors computed at run time,
// with numpy broadcasting. ncnn's BinaryOp has no remainder (src/layer/binaryop.h lists add ... ratan2).
// Param 0 fmod: 1 = C's fmod (the sign follows the dividend: ONNX fmod = 1, required for floats);
// 0 = the integer remainder whose sign follows the divisor (ONNX fmod = 0, Python's %), computed
// as fmod plus the divisor when the signs differ, which is exact for the integers nnfold holds
// (float32 values below 2^24). A divisor of 0 gives NaN in both forms (the integer form of ONNX
// leaves it undefined; onnxruntime fails), never a crash.
// Bottoms: a, b (numpy broadcasting). Top: the broadcast shape.
#include <cmath>

#include "layers/broadcast.h"
#include "layers/param_table.h"

namespace nnfold {

class Mod : public Layer {
public:
    int fmod = 0;

    int expected_bottoms() const override { return 2; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(Mod, NF_PARAM(0, fmod))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (fmod != 0 && fmod != 1)
            return invalid_model("fmod (param 0) must be 0 or 1, got " + std::to_string(fmod));
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(check_bottom_count(*this, bottoms.size()));
        tops.resize(1);
        return broadcast_shape(bottoms, tops[0]);
    }

    static float remainder(float a, float b, bool c_fmod) {
        if (b == 0.f)
            return NAN;
        float r = std::fmod(a, b);
        if (!c_fmod && r != 0.f && ((r < 0.f) != (b < 0.f)))
            r += b;
        return r;
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const bool c_fmod = fmod == 1;
        return broadcast_binary_forward(*this, bottoms, tops, opt,
                                        [c_fmod](float a, float b) { return remainder(a, b, c_fmod); });
    }
};

NF_DEFINE_LAYER(Mod)

}  // namespace nnfold
