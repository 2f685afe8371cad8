// Interp (ncnn src/layer/interp.cpp). Params: 0 resize_type (1 nearest, 2 bilinear, 3 bicubic),
// 1 height_scale (1.f), 2 width_scale (1.f), 3 output_height, 4 output_width, 5 dynamic_target_size,
// 6 align_corner, 9 size_expr (string; not supported). No weights.
// Output size: output_width/output_height when both are set, else int(w * width_scale) and
// int(h * height_scale); with dynamic_target_size the second input's w and h. By input dims:
//   1D [w]: w channels of out_h x out_w, each filled with its value -> [w, out_h, out_w];
//   2D [h,w]: only w is resized -> [h, out_w];
//   3D [c,h,w]: -> [c, out_h, out_w]. Same size returns the input.
// Nearest: src = min(int(dst * ws), size - 1) with ws = size / out when output_width is set, else
// 1 / width_scale (ncnn's choice, also under dynamic_target_size). Bilinear/bicubic coefficients as
// ncnn's linear_coeffs/cubic_coeffs (half-pixel centers, or align_corner), bicubic A = -0.75 with
// ncnn's edge folding; rows are resampled along w first, then along h.
// Declared in a header for an optimized subclass (src/layers/wasm/interp_fast.cpp), with the
// resampling taps both use.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "layers/param_table.h"

namespace nnfold {

namespace interp_detail {

// Resampling along one axis as taps: out[i] = sum_t weight[i][t] * in[index[i][t]]. Taps outside
// the input carry weight 0 in ncnn's coefficients (it reads the memory anyway); they are clamped
// here. A non-zero weight outside the input (bicubic on a size-1 axis) is reported by `ok`.
struct Taps {
    int n = 0;  // taps per output
    std::vector<int> index;
    std::vector<float> weight;
};

// The taps of ncnn's linear (resize_type 2) or cubic (3) coefficients for `size` -> `out`; `ok` is
// cleared when a non-zero weight falls outside the input.
Taps make_taps(int resize_type, int size, int out, int align_corner, bool& ok);

// ncnn's nearest source index min(int(f), size - 1), kept inside the input when f is negative,
// NaN or infinite (a zero scale under dynamic_target_size), where ncnn would read out of bounds.
inline int nearest_index(float f, int size) {
    if (!(f >= 0.f))
        return 0;
    if (f >= (float)(size - 1))
        return size - 1;
    return (int)f;
}

inline float apply_taps(const Taps& t, int i, const float* src, size_t stride) {
    const int* ix = &t.index[(size_t)i * t.n];
    const float* wt = &t.weight[(size_t)i * t.n];
    float s = src[ix[0] * stride] * wt[0];
    for (int k = 1; k < t.n; k++)
        s += src[ix[k] * stride] * wt[k];
    return s;
}

}  // namespace interp_detail

class Interp : public Layer {
public:
    int resize_type = 0;
    float height_scale = 1.f, width_scale = 1.f;
    int output_height = 0, output_width = 0;
    int dynamic_target_size = 0;
    int align_corner = 0;
    std::string size_expr;

    NF_PARAM_TABLE(Interp,
                   NF_PARAM(0, resize_type),
                   NF_PARAM(1, height_scale),
                   NF_PARAM(2, width_scale),
                   NF_PARAM(3, output_height),
                   NF_PARAM(4, output_width),
                   NF_PARAM(5, dynamic_target_size),
                   NF_PARAM(6, align_corner),
                   NF_PARAM(9, size_expr))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        one_blob_only = dynamic_target_size != 1 && size_expr.empty();
        if (resize_type < 0 || resize_type > 3)
            return invalid_model("resize_type (param 0) must be 1 (nearest), 2 (bilinear) or 3 (bicubic), got " +
                                 std::to_string(resize_type));
        return Status::ok();
    }

    Status target_size(const std::vector<Shape>& in, int& outw, int& outh) const {
        if (!size_expr.empty())
            return unsupported("Interp with a size expression (param 9) is not supported");
        if (resize_type == 0)
            return unsupported("Interp with resize_type 0 produces no data in ncnn; set 1, 2 or 3");
        if (dynamic_target_size == 1) {
            if (in.size() != 2)
                return shape_mismatch("Interp with dynamic_target_size takes the input and a size reference blob, got " +
                                      std::to_string(in.size()) + " inputs");
            outw = in[1].w;
            outh = in[1].h;
        } else {
            if (in.size() != 1)
                return shape_mismatch("Interp takes one input, got " + std::to_string(in.size()));
            int w = in[0].w, h = in[0].h;
            if (in[0].dims == 1)
                w = h = 1;
            outw = output_width;
            outh = output_height;
            if (outw == 0 || outh == 0) {
                double fw = (double)w * width_scale, fh = (double)h * height_scale;
                if (!(fw < 2147483647.0 && fh < 2147483647.0))  // also false for NaN
                    return shape_mismatch("Interp output size from the scales is too large");
                outw = (int)(w * width_scale);
                outh = (int)(h * height_scale);
            }
        }
        return Status::ok();
    }

    Status output_shape(const std::vector<Shape>& in, Shape& out, int& outw, int& outh) const {
        NF_RETURN_IF_ERROR(target_size(in, outw, outh));
        const Shape& s = in[0];
        if (s.dims < 1 || s.dims > 3)
            return shape_mismatch("Interp needs a 1D, 2D or 3D input, got " + s.str());
        if (outw <= 0 || (s.dims != 2 && outh <= 0))
            return shape_mismatch("Interp output size " + std::to_string(outh) + "x" + std::to_string(outw) +
                                  " is empty (input " + s.str() + ")");
        if (s.dims == 1)
            out = Shape::d3(outw, outh, s.w);
        else if (s.dims == 2)
            out = Shape::d2(outw, s.h);
        else
            out = Shape::d3(outw, outh, s.c);
        if (resize_type == 3 && !(out == s)) {
            // ncnn's bicubic folding needs at least 2 input samples along every resampled axis
            if (s.w < 2 || (s.dims == 3 && s.h < 2))
                return unsupported("bicubic Interp of input " + s.str() +
                                   " reads outside the input in ncnn (an axis of size 1); use nearest or bilinear");
        }
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        int ow, oh;
        tops.resize(1);
        return output_shape(bottoms, tops[0], ow, oh);
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        using namespace interp_detail;
        const std::vector<Shape> shapes = shapes_of(bottoms);
        Shape os;
        int outw, outh;
        NF_RETURN_IF_ERROR(output_shape(shapes, os, outw, outh));
        const Mat& src = bottoms[0];
        const Shape in = shapes[0];
        Mat& dst = tops[0];
        if (in.dims == 1) {
            NF_RETURN_IF_ERROR(dst.create(os, opt.blob_allocator));
            const size_t plane = (size_t)outw * outh;
            for (int q = 0; q < in.w; q++)
                for (size_t i = 0; i < plane; i++)
                    dst.data[q * plane + i] = src.data[q];
            return Status::ok();
        }
        if (os == in) {
            dst = src;
            return Status::ok();
        }
        NF_RETURN_IF_ERROR(dst.create(os, opt.blob_allocator));
        const int w = in.w, h = in.h;
        const int oh = in.dims == 2 ? h : outh;  // 2D resizes w only
        const int channels = in.dims == 3 ? in.c : 1;
        const size_t iplane = (size_t)w * h, oplane = (size_t)outw * oh;

        if (resize_type == 1) {
            const float ws = output_width ? w / (float)outw : 1.f / width_scale;
            const float hs = output_height ? h / (float)outh : 1.f / height_scale;
            // threads: channels
            parallel_for(channels, parallel_grain((int64_t)oplane), [&](int64_t q0, int64_t q1) {
                for (int64_t q = q0; q < q1; q++) {
                    const float* sp = src.data + q * iplane;
                    float* dp = dst.data + q * oplane;
                    for (int y = 0; y < oh; y++) {
                        int sy = in.dims == 2 ? y : nearest_index(y * hs, h);
                        const float* row = sp + (size_t)sy * w;
                        for (int x = 0; x < outw; x++)
                            *dp++ = row[nearest_index(x * ws, w)];
                    }
                }
            });
            return Status::ok();
        }

        bool ok = true;
        Taps tx = make_taps(resize_type, w, outw, align_corner, ok);
        Taps ty;
        if (in.dims == 3)
            ty = make_taps(resize_type, h, oh, align_corner, ok);
        if (!ok)
            return unsupported("Interp: this resize reads outside the input in ncnn");
        // threads: channels, each thread with its own row buffer
        const size_t rows_floats = (size_t)h * outw;
        const int parts = parallel_part_count(channels, (int64_t)(rows_floats + oplane) * 4);
        std::vector<float> rows_all(rows_floats * parts);
        const int64_t pieces = parallel_piece_count(channels, parts);
        parallel_for_slots(channels, pieces, parts, [&](int slot, int64_t q0, int64_t q1) {
            float* rows = rows_all.data() + rows_floats * slot;
            for (int64_t q = q0; q < q1; q++) {
                const float* sp = src.data + q * iplane;
                float* dp = dst.data + q * oplane;
                // horizontal pass over every input row, then the vertical combination
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < outw; x++)
                        rows[(size_t)y * outw + x] = apply_taps(tx, x, sp + (size_t)y * w, 1);
                if (in.dims == 2) {
                    std::copy(rows, rows + rows_floats, dp);
                    continue;
                }
                for (int y = 0; y < oh; y++)
                    for (int x = 0; x < outw; x++)
                        dp[(size_t)y * outw + x] = apply_taps(ty, y, rows + x, (size_t)outw);
            }
        });
        return Status::ok();
    }
};

}  // namespace nnfold
