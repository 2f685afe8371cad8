// Gemm: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/param_table.h"

namespace nnfold {

class Gemm : public Layer {
public:
    NF_PARAM_TABLE(Gemm,
                   NF_PARAM(0, alpha),
                   NF_PARAM(1, beta),
                   NF_PARAM(2, transA),
                   NF_PARAM(3, transB),
                   NF_PARAM(4, constantA),
                   NF_PARAM(5, constantB),
                   NF_PARAM(6, constantC),
                   NF_PARAM(7, constantM),
                   NF_PARAM(8, constantN),
                   NF_PARAM(9, constantK),
                   NF_PARAM(10, constant_broadcast_type_C),
                   NF_PARAM(11, output_N1M),
                   NF_PARAM(12, output_elempack),
                   NF_PARAM(13, output_elemtype),
                   NF_PARAM(14, output_transpose),
                   NF_PARAM(18, int8_scale_term),
                   {20, "constant_TILE_M", ParamType::Int, pint(0)},
                   {21, "constant_TILE_N", ParamType::Int, pint(0)},
                   {22, "constant_TILE_K", ParamType::Int, pint(0)})
    Status load_param(const ParamDict& pd) override;
    Status weight_specs(std::vector<WeightSpec>& specs) const override;
    Status load_model(const std::vector<WeightArray>& weights) override;
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
    int expected_tops() const override { return 1; }
    int expected_bottoms() const override;

    float alpha = 1.f, beta = 1.f;
    int transA = 0, transB = 0;
    int constantA = 0, constantB = 0, constantC = 0;
    int constantM = 0, constantN = 0, constantK = 0;
    int constant_broadcast_type_C = 0;
    int output_N1M = 0;
    int output_elempack = 0, output_elemtype = 0;
    int output_transpose = 0;
    int int8_scale_term = 0;

    // Constant operands in ncnn's layout: A_data [M][K] (transA 0) or [K][M] (transA 1); B_data
    // [K][N] (transB 0) or [N][K] (transB 1); C_data by constant_broadcast_type_C: 0 [1], 1 [M],
    // 2 [M][1], 3 [M][N], 4 [N].
    std::vector<float> A_data, B_data, C_data;

    // A matrix operand: `rows` rows of `cols` floats, row i at data + i * row_stride.
    struct MatView {
        const float* data = nullptr;
        int rows = 0, cols = 0;
        size_t row_stride = 0;
    };
    // Everything forward needs, resolved from the input shapes (and data pointers when given).
    struct Plan {
        MatView A0, B0;  // before transposition
        int M = 0, N = 0, K = 0;
        const float* C = nullptr;
        bool has_C = false;
        int broadcast_type_C = 0;  // 0 scalar, 1 [M], 2 [M,1], 3 [M,N], 4 [N]
        Shape out;
    };
    // `mats` may be null (shape inference): then only sizes are filled.
    Status plan(const std::vector<Shape>& shapes, const std::vector<Mat>* mats, Plan& p) const;
    // The forward preamble of the reference and the optimized Gemm: planar inputs, their plan, and
    // the one top created.
    Status forward_plan(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt, Plan& p) const;
};

}  // namespace nnfold
