// Pooling: declared in a header for the SIMD subclass (src/layers/wasm/).
#pragma once

#include "layers/conv_common.h"
#include "layers/param_table.h"

namespace nnfold {

class Pooling : public Layer {
public:
    Pooling() { one_blob_only = true; }

    NF_PARAM_TABLE(Pooling,
                   NF_PARAM(0, pooling_type),
                   NF_PARAM(1, kernel_w),
                   NF_PARAM(2, stride_w),
                   NF_PARAM(3, pad_left),
                   NF_PARAM(4, global_pooling),
                   NF_PARAM(5, pad_mode),
                   NF_PARAM(6, avgpool_count_include_pad),
                   NF_PARAM(7, adaptive_pooling),
                   NF_PARAM(8, out_w),
                   NF_PARAM_FROM(11, kernel_h, 1),
                   NF_PARAM_FROM(12, stride_h, 2),
                   NF_PARAM_FROM(13, pad_top, 3),
                   NF_PARAM_FROM(14, pad_right, 3),
                   NF_PARAM_FROM(15, pad_bottom, 13),
                   NF_PARAM_FROM(18, out_h, 8))
    Status load_param(const ParamDict& pd) override;
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    using Layer::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override;

    enum { kMax = 0, kAvg = 1 };
    int pooling_type = kMax;
    int kernel_w = 0, kernel_h = 0;
    int stride_w = 1, stride_h = 1;
    int pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
    int global_pooling = 0;
    int pad_mode = 0;  // 0 full (ceil), 1 valid, 2 SAME_UPPER, 3 SAME_LOWER
    int avgpool_count_include_pad = 0;
    int adaptive_pooling = 0;
    int out_w = 0, out_h = 0;

    // The sliding-window case (not global, not adaptive) for an input of w x h.
    struct Geometry {
        Pads border;          // constant border added (-FLT_MAX for max, 0 for avg)
        int padded_w = 0, padded_h = 0;
        int out_w = 0, out_h = 0;
        // Average pooling without count_include_pad averages over the window part inside
        // [first_x, end_x) x [first_y, end_y) of the padded plane (ncnn's rule: the pad params and
        // the full-mode tail; SAME-mode borders count as data).
        int first_x = 0, end_x = 0, first_y = 0, end_y = 0;
    };
    Status geometry(const Shape& in, Geometry& g) const;

protected:
    Status output_shape(const Shape& in, Shape& out) const;
};

}  // namespace nnfold
