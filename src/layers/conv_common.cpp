#include "layers/conv_common.h"

#include <cstring>

namespace nnfold {

Pads resolve_conv_pads(int w, int h, int kew, int keh, int sw, int sh, int pl, int pr, int pt, int pb) {
    Pads p;
    if (pl > 0 || pr > 0 || pt > 0 || pb > 0) {
        p.left = pl > 0 ? pl : 0;
        p.right = pr > 0 ? pr : 0;
        p.top = pt > 0 ? pt : 0;
        p.bottom = pb > 0 ? pb : 0;
    } else if ((pl == -233 && pr == -233 && pt == -233 && pb == -233) ||
               (pl == -234 && pr == -234 && pt == -234 && pb == -234)) {
        int wpad = kew + (w - 1) / sw * sw - w;
        int hpad = keh + (h - 1) / sh * sh - h;
        if (wpad < 0)
            wpad = 0;
        if (hpad < 0)
            hpad = 0;
        if (pl == -233) {
            p.top = hpad / 2;
            p.bottom = hpad - hpad / 2;
            p.left = wpad / 2;
            p.right = wpad - wpad / 2;
        } else {
            p.top = hpad - hpad / 2;
            p.bottom = hpad / 2;
            p.left = wpad - wpad / 2;
            p.right = wpad / 2;
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
        return invalid_model("pads (" + std::to_string(pl) + "," + std::to_string(pr) + "," + std::to_string(pt) + "," +
                             std::to_string(pb) +
                             ") must be all >= 0, all -233 (SAME_UPPER) or all -234 (SAME_LOWER)");
    return Status::ok();
}

Status make_border(const Mat& src, Mat& dst, const Pads& p, float value, Allocator* alloc) {
    Shape s = src.shape();
    int w = s.w, h = s.h;
    int ow = w + p.left + p.right, oh = h + p.top + p.bottom;
    Shape os = s;
    os.w = ow;
    os.h = oh;
    if (s.dims == 1)
        os.dims = 2;  // a 1D blob has h=1; padding top/bottom makes it 2D only if needed
    if (s.dims == 1 && p.top == 0 && p.bottom == 0)
        os.dims = 1;
    NF_RETURN_IF_ERROR(dst.create(os, alloc));
    int planes = (s.dims >= 3 ? s.c : 1) * (s.dims == 4 ? s.d : 1);
    for (int q = 0; q < planes; q++) {
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
    return Status::ok();
}

}  // namespace nnfold
