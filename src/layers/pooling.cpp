// Pooling (ncnn src/layer/pooling.cpp). Params: 0 pooling_type (0 max, 1 avg), 1 kernel_w,
// 11 kernel_h(=kernel_w), 2 stride_w (1), 12 stride_h(=stride_w), 3 pad_left, 14 pad_right(=pad_left),
// 13 pad_top(=pad_left), 15 pad_bottom(=pad_top), 4 global_pooling, 5 pad_mode, 6
// avgpool_count_include_pad, 7 adaptive_pooling, 8 out_w, 18 out_h(=out_w). No weights.
//
// Input [c,h,w] ([h,w] and [w] are one channel). global_pooling -> [c] (max, or mean over h*w).
// adaptive_pooling -> [c, out_h, out_w] with PyTorch's adaptive windows
//   rows [floor(i*h/out_h), ceil((i+1)*h/out_h)), mean = sum / rows / cols.
// Otherwise the input gets a constant border (-FLT_MAX for max, 0 for avg) and a window slides:
//   pad_mode 0 (full, Caffe's ceil mode): pads plus a tail on the right/bottom so the last window
//     fits: tail = stride - (w + pads - kernel) % stride when that remainder is not 0;
//   pad_mode 1 (valid): the pads as given;
//   pad_mode 2/3: SAME_UPPER/SAME_LOWER from kernel and stride (pad params ignored).
// Average pooling divides by the kernel area when avgpool_count_include_pad is 1; otherwise by the
// number of window cells inside the pad params and the full-mode tail. ncnn uses the pad params
// there even in SAME modes, so SAME borders count as data (kept here: ncnn-exact). A 1D input
// takes left/right borders only, as ncnn's copy_make_border does for 1D blobs.
#include "layers/pooling.h"

#include <algorithm>
#include <cfloat>

namespace nnfold {

Status Pooling::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    if (pooling_type != kMax && pooling_type != kAvg)
        return invalid_model("pooling_type (param 0) must be 0 (max) or 1 (avg), got " + std::to_string(pooling_type));
    if (global_pooling)
        return Status::ok();
    if (adaptive_pooling) {
        if (out_w <= 0 || out_h <= 0)
            return invalid_model("adaptive pooling needs out_w/out_h (params 8/18) > 0, got " + std::to_string(out_w) +
                                 "x" + std::to_string(out_h));
        return Status::ok();
    }
    if (pad_mode < 0 || pad_mode > 3)
        return invalid_model("pad_mode (param 5) must be 0..3, got " + std::to_string(pad_mode));
    NF_RETURN_IF_ERROR(check_window(kernel_w, kernel_h, 1, 1, stride_w, stride_h));
    if (pad_left < 0 || pad_right < 0 || pad_top < 0 || pad_bottom < 0)
        return invalid_model("pads (params 3/14/13/15) must be >= 0");
    return Status::ok();
}

Status Pooling::geometry(const Shape& in, Geometry& g) const {
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, "Pooling", p));
    const int w = p.w, h = p.h;
    g = Geometry();
    int wtailpad = 0, htailpad = 0;
    if (pad_mode == 0 || pad_mode == 1) {
        int64_t pw = (int64_t)w + pad_left + pad_right, ph = (int64_t)h + pad_top + pad_bottom;
        if (pw < kernel_w || ph < kernel_h)
            return shape_mismatch("input " + in.str() + " with pads is smaller than the " + std::to_string(kernel_h) +
                                  "x" + std::to_string(kernel_w) + " kernel");
        if (pad_mode == 0) {
            int wtail = (int)((pw - kernel_w) % stride_w);
            int htail = (int)((ph - kernel_h) % stride_h);
            wtailpad = wtail ? stride_w - wtail : 0;
            htailpad = htail ? stride_h - htail : 0;
        }
        g.border = {pad_left, pad_right + wtailpad, pad_top, pad_bottom + htailpad};
    } else {
        g.border = resolve_conv_pads(w, h, kernel_w, kernel_h, stride_w, stride_h, pad_mode == 2 ? -233 : -234,
                                     pad_mode == 2 ? -233 : -234, pad_mode == 2 ? -233 : -234,
                                     pad_mode == 2 ? -233 : -234);
    }
    if (in.dims == 1)
        g.border.top = g.border.bottom = 0;  // ncnn pads a 1D blob along w only
    int64_t pw = (int64_t)w + g.border.left + g.border.right, ph = (int64_t)h + g.border.top + g.border.bottom;
    if (pw > INT32_MAX || ph > INT32_MAX)
        return shape_mismatch("padded input is too large");
    g.padded_w = (int)pw;
    g.padded_h = (int)ph;
    g.out_w = conv_out_size(g.padded_w, kernel_w, stride_w);
    g.out_h = conv_out_size(g.padded_h, kernel_h, stride_h);
    if (g.out_w <= 0 || g.out_h <= 0)
        return shape_mismatch("input " + in.str() + " (padded " + std::to_string(g.padded_h) + "x" +
                              std::to_string(g.padded_w) + ") is smaller than the " + std::to_string(kernel_h) + "x" +
                              std::to_string(kernel_w) + " kernel");
    g.first_x = pad_left;
    g.end_x = g.padded_w - pad_right - wtailpad;
    g.first_y = pad_top;
    g.end_y = g.padded_h - pad_bottom - htailpad;
    return Status::ok();
}

Status Pooling::output_shape(const Shape& in, Shape& out) const {
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, "Pooling", p));
    if (global_pooling) {
        out = Shape::d1(p.c);
        return Status::ok();
    }
    if (adaptive_pooling) {
        out = Shape::d3(out_w, out_h, p.c);
        return Status::ok();
    }
    Geometry g;
    NF_RETURN_IF_ERROR(geometry(in, g));
    out = Shape::d3(g.out_w, g.out_h, p.c);
    return Status::ok();
}

Status Pooling::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    if (bottoms.size() != 1)
        return shape_mismatch("Pooling takes one input, got " + std::to_string(bottoms.size()));
    tops.resize(1);
    return output_shape(bottoms[0], tops[0]);
}

Status Pooling::forward(const Mat& bottom, Mat& top, const Option& opt) const {
    const Shape in = bottom.shape();
    Shape os;
    NF_RETURN_IF_ERROR(output_shape(in, os));
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, "Pooling", p));
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int w = p.w, h = p.h, channels = p.c;
    const size_t plane = (size_t)w * h;

    if (global_pooling) {
        for (int q = 0; q < channels; q++) {
            const float* ptr = bottom.data + q * plane;
            if (pooling_type == kMax) {
                float mx = ptr[0];
                for (size_t i = 0; i < plane; i++)
                    mx = std::max(mx, ptr[i]);
                top.data[q] = mx;
            } else {
                float sum = 0.f;
                for (size_t i = 0; i < plane; i++)
                    sum += ptr[i];
                top.data[q] = sum / (float)plane;
            }
        }
        return Status::ok();
    }

    if (adaptive_pooling) {
        for (int q = 0; q < channels; q++) {
            const float* ptr = bottom.data + q * plane;
            float* out = top.channel(q);
            for (int i = 0; i < out_h; i++) {
                const int ih0 = (int)((int64_t)h * i / out_h);
                const int ih1 = (int)(((int64_t)h * (i + 1) + out_h - 1) / out_h);
                for (int j = 0; j < out_w; j++) {
                    const int iw0 = (int)((int64_t)w * j / out_w);
                    const int iw1 = (int)(((int64_t)w * (j + 1) + out_w - 1) / out_w);
                    if (pooling_type == kMax) {
                        float mx = ptr[(size_t)ih0 * w + iw0];
                        for (int y = ih0; y < ih1; y++)
                            for (int x = iw0; x < iw1; x++)
                                mx = std::max(mx, ptr[(size_t)y * w + x]);
                        out[j] = mx;
                    } else {
                        float sum = 0.f;
                        for (int y = ih0; y < ih1; y++)
                            for (int x = iw0; x < iw1; x++)
                                sum += ptr[(size_t)y * w + x];
                        out[j] = sum / (ih1 - ih0) / (iw1 - iw0);
                    }
                }
                out += out_w;
            }
        }
        return Status::ok();
    }

    Geometry g;
    NF_RETURN_IF_ERROR(geometry(in, g));
    Mat src = bottom;
    if (g.border.any())
        NF_RETURN_IF_ERROR(
            make_border(bottom, src, g.border, pooling_type == kMax ? -FLT_MAX : 0.f, opt.workspace_allocator));
    const int pw = g.padded_w;
    const size_t pplane = (size_t)g.padded_w * g.padded_h;
    const int maxk = kernel_w * kernel_h;
    const std::vector<int> ofs = kernel_offsets(kernel_w, kernel_h, 1, 1, pw);
    for (int q = 0; q < channels; q++) {
        const float* m = src.data + q * pplane;
        float* out = top.channel(q);
        for (int i = 0; i < g.out_h; i++) {
            for (int j = 0; j < g.out_w; j++) {
                const int sy0 = i * stride_h, sx0 = j * stride_w;
                const float* sp = m + (size_t)sy0 * pw + sx0;
                if (pooling_type == kMax) {
                    float mx = sp[0];
                    for (int k = 0; k < maxk; k++)
                        mx = std::max(mx, sp[ofs[k]]);
                    out[j] = mx;
                } else if (avgpool_count_include_pad) {
                    float sum = 0.f;
                    for (int k = 0; k < maxk; k++)
                        sum += sp[ofs[k]];
                    out[j] = sum / maxk;
                } else {
                    float sum = 0.f;
                    int area = 0;
                    for (int ki = 0; ki < kernel_h; ki++) {
                        const int sy = sy0 + ki;
                        if (sy < g.first_y)
                            continue;
                        if (sy >= g.end_y)
                            break;
                        for (int kj = 0; kj < kernel_w; kj++) {
                            const int sx = sx0 + kj;
                            if (sx < g.first_x)
                                continue;
                            if (sx >= g.end_x)
                                break;
                            sum += m[(size_t)sy * pw + sx];
                            area++;
                        }
                    }
                    // a window entirely in the padding gives 0/0 = NaN, as in ncnn
                    out[j] = sum / area;
                }
            }
            out += g.out_w;
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(Pooling)

}  // namespace nnfold
