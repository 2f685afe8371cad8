#include "layers/conv_common.h"

#include <climits>
#include <cstring>

#include "core/parallel.h"

namespace nnfold {

namespace {
std::string pads_str(int pl, int pr, int pt, int pb) {
    return "(" + std::to_string(pl) + "," + std::to_string(pr) + "," + std::to_string(pt) + "," + std::to_string(pb) +
           ")";
}
}  // namespace

int kernel_extent(int kernel, int dilation) {
    int64_t e = (int64_t)dilation * (kernel - 1) + 1;
    return e > INT_MAX || e < 1 ? -1 : (int)e;
}

Pads resolve_conv_pads(int w, int h, int kew, int keh, int sw, int sh, int pl, int pr, int pt, int pb) {
    Pads p;
    if (pl > 0 || pr > 0 || pt > 0 || pb > 0) {
        // check_conv_pads rejects negative values mixed with positive ones
        p.left = pl > 0 ? pl : 0;
        p.right = pr > 0 ? pr : 0;
        p.top = pt > 0 ? pt : 0;
        p.bottom = pb > 0 ? pb : 0;
    } else if ((pl == -233 && pr == -233 && pt == -233 && pb == -233) ||
               (pl == -234 && pr == -234 && pt == -234 && pb == -234)) {
        int64_t wpad = (int64_t)kew + (int64_t)(w - 1) / sw * sw - w;
        int64_t hpad = (int64_t)keh + (int64_t)(h - 1) / sh * sh - h;
        if (wpad < 0)
            wpad = 0;
        if (hpad < 0)
            hpad = 0;
        int wp = (int)wpad, hp = (int)hpad;
        if (pl == -233) {
            p.top = hp / 2;
            p.bottom = hp - hp / 2;
            p.left = wp / 2;
            p.right = wp - wp / 2;
        } else {
            p.top = hp - hp / 2;
            p.bottom = hp / 2;
            p.left = wp - wp / 2;
            p.right = wp / 2;
        }
    }
    return p;
}

Status check_conv_pads(int pl, int pr, int pt, int pb) {
    bool same_upper = pl == -233 && pr == -233 && pt == -233 && pb == -233;
    bool same_lower = pl == -234 && pr == -234 && pt == -234 && pb == -234;
    if (same_upper || same_lower)
        return Status::ok();
    if (pl < 0 || pr < 0 || pt < 0 || pb < 0)
        return invalid_model("pads (left,right,top,bottom) " + pads_str(pl, pr, pt, pb) +
                             " must be all >= 0, all -233 (SAME_UPPER) or all -234 (SAME_LOWER)");
    return Status::ok();
}

Status check_window(int kw, int kh, int dw, int dh, int sw, int sh) {
    if (kw <= 0 || kh <= 0)
        return invalid_model("kernel size must be positive, got " + std::to_string(kw) + "x" + std::to_string(kh));
    if (dw <= 0 || dh <= 0)
        return invalid_model("dilation must be positive, got " + std::to_string(dw) + "x" + std::to_string(dh));
    if (sw <= 0 || sh <= 0)
        return invalid_model("stride must be positive, got " + std::to_string(sw) + "x" + std::to_string(sh));
    if (kernel_extent(kw, dw) < 0 || kernel_extent(kh, dh) < 0)
        return invalid_model("kernel extent dilation * (kernel - 1) + 1 is too large");
    return Status::ok();
}

Status conv_geometry(int w, int h, int kw, int kh, int dw, int dh, int sw, int sh, int pl, int pr, int pt, int pb,
                     ConvGeometry& g) {
    g.kernel_extent_w = kernel_extent(kw, dw);
    g.kernel_extent_h = kernel_extent(kh, dh);
    if (g.kernel_extent_w < 0 || g.kernel_extent_h < 0)
        return invalid_model("kernel extent is too large");
    g.pads = resolve_conv_pads(w, h, g.kernel_extent_w, g.kernel_extent_h, sw, sh, pl, pr, pt, pb);
    int64_t pw = (int64_t)w + g.pads.left + g.pads.right;
    int64_t ph = (int64_t)h + g.pads.top + g.pads.bottom;
    if (pw > INT_MAX || ph > INT_MAX)
        return shape_mismatch("padded input is too large");
    g.padded_w = (int)pw;
    g.padded_h = (int)ph;
    g.out_w = conv_out_size(g.padded_w, g.kernel_extent_w, sw);
    g.out_h = conv_out_size(g.padded_h, g.kernel_extent_h, sh);
    if (g.out_w <= 0 || g.out_h <= 0)
        return shape_mismatch("input " + std::to_string(h) + "x" + std::to_string(w) + " (padded " +
                              std::to_string(g.padded_h) + "x" + std::to_string(g.padded_w) +
                              ") is smaller than the kernel extent " + std::to_string(g.kernel_extent_h) + "x" +
                              std::to_string(g.kernel_extent_w));
    return Status::ok();
}

std::vector<int> kernel_offsets(int kw, int kh, int dw, int dh, int row_stride) {
    std::vector<int> ofs((size_t)kw * kh);
    size_t k = 0;
    for (int i = 0; i < kh; i++)
        for (int j = 0; j < kw; j++)
            ofs[k++] = i * dh * row_stride + j * dw;
    return ofs;
}

Status check_deconv_pads(int pl, int pr, int pt, int pb) {
    bool any_pos = pl > 0 || pr > 0 || pt > 0 || pb > 0;
    for (int v : {pl, pr, pt, pb}) {
        bool ok = v >= 0 || (!any_pos && (v == -233 || v == -234));
        if (!ok)
            return invalid_model("pads (left,right,top,bottom) " + pads_str(pl, pr, pt, pb) +
                                 " must be all >= 0, or -233 (SAME_UPPER) / -234 (SAME_LOWER) markers with 0");
    }
    return Status::ok();
}

Status deconv_geometry(int w, int h, int kw, int kh, int dw, int dh, int sw, int sh, int pl, int pr, int pt, int pb,
                       int opr, int opb, int output_w, int output_h, DeconvGeometry& g) {
    g.kernel_extent_w = kernel_extent(kw, dw);
    g.kernel_extent_h = kernel_extent(kh, dh);
    if (g.kernel_extent_w < 0 || g.kernel_extent_h < 0)
        return invalid_model("kernel extent is too large");
    int64_t fw = (int64_t)(w - 1) * sw + g.kernel_extent_w + opr;
    int64_t fh = (int64_t)(h - 1) * sh + g.kernel_extent_h + opb;
    if (fw > INT_MAX || fh > INT_MAX)
        return shape_mismatch("deconvolution output is too large");
    if (fw <= 0 || fh <= 0)
        return shape_mismatch("deconvolution output would be empty");
    g.full_w = (int)fw;
    g.full_h = (int)fh;
    g.cut = Pads();
    if (pl > 0 || pr > 0 || pt > 0 || pb > 0) {
        g.cut.left = pl;
        g.cut.right = pr;
        g.cut.top = pt;
        g.cut.bottom = pb;
    } else if (output_w > 0 && output_h > 0) {
        int wcut = g.full_w - output_w;
        int hcut = g.full_h - output_h;
        bool upper = pl == -233 || pr == -233 || pt == -233 || pb == -233;
        bool lower = pl == -234 || pr == -234 || pt == -234 || pb == -234;
        if (!upper && !lower)
            // ncnn leaves the output empty here (its forward fails): output_w/h only work with SAME pads
            return shape_mismatch("output_w/output_h (params 20/21) are set but the pads are not -233/-234 "
                                  "(SAME_UPPER/SAME_LOWER); ncnn produces no output for this combination");
        if (wcut < 0 || hcut < 0)
            return shape_mismatch("output_w x output_h " + std::to_string(output_w) + "x" + std::to_string(output_h) +
                                  " is larger than the full deconvolution output " + std::to_string(g.full_w) + "x" +
                                  std::to_string(g.full_h));
        if (upper) {
            g.cut.top = hcut / 2;
            g.cut.bottom = hcut - hcut / 2;
            g.cut.left = wcut / 2;
            g.cut.right = wcut - wcut / 2;
        } else {
            g.cut.top = hcut - hcut / 2;
            g.cut.bottom = hcut / 2;
            g.cut.left = wcut - wcut / 2;
            g.cut.right = wcut / 2;
        }
    }
    int64_t ow = (int64_t)g.full_w - g.cut.left - g.cut.right;
    int64_t oh = (int64_t)g.full_h - g.cut.top - g.cut.bottom;
    if (ow <= 0 || oh <= 0)
        return shape_mismatch("pads " + pads_str(g.cut.left, g.cut.right, g.cut.top, g.cut.bottom) +
                              " cut away the whole " + std::to_string(g.full_h) + "x" + std::to_string(g.full_w) +
                              " deconvolution output");
    g.out_w = (int)ow;
    g.out_h = (int)oh;
    return Status::ok();
}

Status make_border(const Mat& src, Mat& dst, const Pads& p, float value, Allocator* alloc) {
    if (p.left < 0 || p.right < 0 || p.top < 0 || p.bottom < 0)
        return internal_error("make_border with a negative border");
    Shape s = src.shape();
    const int w = s.w, h = s.h;
    const int planes = s.dims >= 3 ? s.c * s.d : 1;
    const int ow = w + p.left + p.right, oh = h + p.top + p.bottom;
    NF_RETURN_IF_ERROR(dst.create(Shape::d3(ow, oh, planes), alloc));
    // threads: planes (a copy; on the serial path of every padded convolution otherwise)
    parallel_for(planes, parallel_grain((int64_t)ow * oh), [&](int64_t q0, int64_t q1) {
        for (int64_t q = q0; q < q1; q++) {
            const float* sp = src.data + (size_t)q * w * h;
            float* dp = dst.data + (size_t)q * ow * oh;
            for (int y = 0; y < oh; y++) {
                float* drow = dp + (size_t)y * ow;
                int sy = y - p.top;
                if (sy < 0 || sy >= h) {
                    for (int x = 0; x < ow; x++)
                        drow[x] = value;
                    continue;
                }
                for (int x = 0; x < p.left; x++)
                    drow[x] = value;
                std::memcpy(drow + p.left, sp + (size_t)sy * w, sizeof(float) * w);
                for (int x = p.left + w; x < ow; x++)
                    drow[x] = value;
            }
        }
    });
    return Status::ok();
}

Status cut_border(const Mat& src, Mat& dst, const Pads& p, Allocator* alloc) {
    Shape s = src.shape();
    const int w = s.w, h = s.h;
    const int planes = s.dims >= 3 ? s.c * s.d : 1;
    const int ow = w - p.left - p.right, oh = h - p.top - p.bottom;
    if (p.left < 0 || p.right < 0 || p.top < 0 || p.bottom < 0 || ow <= 0 || oh <= 0)
        return internal_error("cut_border with an invalid border");
    NF_RETURN_IF_ERROR(dst.create(Shape::d3(ow, oh, planes), alloc));
    for (int q = 0; q < planes; q++) {
        const float* sp = src.data + (size_t)q * w * h;
        float* dp = dst.data + (size_t)q * ow * oh;
        for (int y = 0; y < oh; y++)
            std::memcpy(dp + (size_t)y * ow, sp + (size_t)(y + p.top) * w + p.left, sizeof(float) * ow);
    }
    return Status::ok();
}

Status conv_input_planes(const Shape& s, const char* layer_type, Planes& p) {
    switch (s.dims) {
    case 1: p = {s.w, 1, 1}; return Status::ok();
    case 2: p = {s.w, s.h, 1}; return Status::ok();
    case 3: p = {s.w, s.h, s.c}; return Status::ok();
    default:
        return shape_mismatch(std::string(layer_type) + " needs a [c,h,w], [h,w] or [w] input, got " + s.str());
    }
}

Status check_runnable_int8(int int8_scale_term, const char* layer_type) {
    if (int8_scale_term == 0)
        return Status::ok();
    return unsupported(std::string(layer_type) + " with int8_scale_term " + std::to_string(int8_scale_term) +
                       " runs quantized in ncnn; nnfold runs int8 only for Convolution, ConvolutionDepthWise and "
                       "InnerProduct, so it can read and convert this layer but not run it");
}

}  // namespace nnfold
