// BinaryOp: declared in a header for a SIMD subclass (src/layers/wasm/) and for passes that need
// ncnn's broadcasting rule or the scalar ops (constant folding).
#pragma once

#include "layers/param_table.h"

namespace nnfold {

class BinaryOp : public Layer {
public:
    BinaryOp() {
        one_blob_only = false;
        support_inplace = false;
    }

    // ncnn's op_type numbers (src/layer/binaryop.h). r* ops swap the operands: rsub = b - a.
    enum {
        kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kMax = 4, kMin = 5, kPow = 6,
        kRSub = 7, kRDiv = 8, kRPow = 9, kAtan2 = 10, kRAtan2 = 11, kCount = 12
    };
    int op_type = kAdd;
    int with_scalar = 0;  // 1: one input, the second operand is the param b
    float b = 0.f;

    NF_PARAM_TABLE(BinaryOp,
                   NF_PARAM(0, op_type),
                   NF_PARAM(1, with_scalar),
                   NF_PARAM(2, b))

    Status load_param(const ParamDict& pd) override;
    int expected_bottoms() const override { return with_scalar ? 1 : 2; }
    int expected_tops() const override { return 1; }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    using Layer::forward;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
    Status forward_inplace(Mat& m, const Option& opt) const override;

    // The two operands after ncnn's rank expansion: extents (w, h, d, c) of A and B, each equal
    // to the output's extent or 1 (broadcast along that axis).
    struct Broadcast {
        Shape out;
        int a[4] = {1, 1, 1, 1};
        int b[4] = {1, 1, 1, 1};
    };
    // ncnn's broadcasting rule (see binaryop.cpp); a shape error when the shapes do not broadcast.
    static Status broadcast(const Shape& a, const Shape& b, Broadcast& bc);
    // The scalar op, as ncnn computes it in float.
    static float apply(int op_type, float x, float y);
    // "add", "rsub", ...
    static const char* op_name(int op_type);
};

}  // namespace nnfold
