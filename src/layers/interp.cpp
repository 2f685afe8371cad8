// Interp: the layer is declared in layers/interp.h; here ncnn's resampling coefficients.
#include "layers/interp.h"

#include <cmath>

namespace nnfold {

namespace {

// The input step per output position, as ncnn's linear_coeffs and cubic_coeffs compute it.
double coeff_scale(int w, int outw, int align_corner) {
    if (align_corner)
        return outw > 1 ? (double)(w - 1) / (outw - 1) : 0.0;  // ncnn divides by 0 here; x86 then samples 0
    return (double)w / outw;
}

// The input position output position dx samples (half-pixel centres unless align_corner).
float source_position(int dx, double scale, int align_corner) {
    if (align_corner)
        return (float)(dx * scale);
    return (float)((dx + 0.5) * scale - 0.5);
}

// ncnn linear_coeffs: two taps (ofs, ofs + 1) per output position.
void linear_coeffs(int w, int outw, std::vector<int>& xofs, std::vector<float>& alpha, int align_corner) {
    xofs.resize(outw);
    alpha.resize((size_t)outw * 2);
    const double scale = coeff_scale(w, outw, align_corner);
    for (int dx = 0; dx < outw; dx++) {
        float fx = source_position(dx, scale, align_corner);
        int sx = (int)std::floor(fx);
        fx -= sx;
        if (sx < 0) {
            sx = 0;
            fx = 0.f;
        }
        if (sx >= w - 1) {
            sx = w - 2;
            fx = 1.f;
        }
        xofs[dx] = sx;
        alpha[dx * 2] = 1.f - fx;
        alpha[dx * 2 + 1] = fx;
    }
}

void interpolate_cubic(float fx, float* c) {
    const float A = -0.75f;
    float fx0 = fx + 1;
    float fx1 = fx;
    float fx2 = 1 - fx;
    c[0] = A * fx0 * fx0 * fx0 - 5 * A * fx0 * fx0 + 8 * A * fx0 - 4 * A;
    c[1] = (A + 2) * fx1 * fx1 * fx1 - (A + 3) * fx1 * fx1 + 1;
    c[2] = (A + 2) * fx2 * fx2 * fx2 - (A + 3) * fx2 * fx2 + 1;
    c[3] = 1.f - c[0] - c[1] - c[2];
}

// ncnn cubic_coeffs: four taps (ofs - 1 .. ofs + 2) per output position; taps that would fall
// outside the input are folded onto the edge (the checks run in sequence, as in ncnn).
void cubic_coeffs(int w, int outw, std::vector<int>& xofs, std::vector<float>& alpha, int align_corner) {
    xofs.resize(outw);
    alpha.resize((size_t)outw * 4);
    const double scale = coeff_scale(w, outw, align_corner);
    for (int dx = 0; dx < outw; dx++) {
        float fx = source_position(dx, scale, align_corner);
        int sx = (int)std::floor(fx);
        fx -= sx;
        float* a = &alpha[(size_t)dx * 4];
        interpolate_cubic(fx, a);
        if (sx <= -1) {
            sx = 1;
            a[0] = 1.f - a[3];
            a[1] = a[3];
            a[2] = 0.f;
            a[3] = 0.f;
        }
        if (sx == 0) {
            sx = 1;
            a[0] = a[0] + a[1];
            a[1] = a[2];
            a[2] = a[3];
            a[3] = 0.f;
        }
        if (sx == w - 2) {
            sx = w - 3;
            a[3] = a[2] + a[3];
            a[2] = a[1];
            a[1] = a[0];
            a[0] = 0.f;
        }
        if (sx >= w - 1) {
            sx = w - 3;
            a[3] = 1.f - a[0];
            a[2] = a[0];
            a[1] = 0.f;
            a[0] = 0.f;
        }
        xofs[dx] = sx;
    }
}

}  // namespace

namespace interp_detail {

Taps make_taps(int resize_type, int size, int out, int align_corner, bool& ok) {
    Taps t;
    std::vector<int> ofs;
    std::vector<float> a;
    int first;
    if (resize_type == 2) {
        t.n = 2;
        first = 0;
        linear_coeffs(size, out, ofs, a, align_corner);
    } else {
        t.n = 4;
        first = -1;
        cubic_coeffs(size, out, ofs, a, align_corner);
    }
    t.index.resize((size_t)out * t.n);
    t.weight = a;
    for (int i = 0; i < out; i++)
        for (int k = 0; k < t.n; k++) {
            int idx = ofs[i] + first + k;
            if (idx < 0 || idx >= size) {
                if (t.weight[(size_t)i * t.n + k] != 0.f)
                    ok = false;
                idx = idx < 0 ? 0 : size - 1;
            }
            t.index[(size_t)i * t.n + k] = idx;
        }
    return t;
}

}  // namespace interp_detail

NF_DEFINE_LAYER(Interp)

}  // namespace nnfold
