// Transposed convolution: col2im (both builds) and the scalar depthwise plane kernel.
#include "kernels/deconv.h"

namespace nnfold {
namespace kernels {

void f32_col2im_add(const float* col, size_t ldcol, int pix0, int npix, const DeconvWindow& w, float* out) {
    const int maxk = w.kernel_w * w.kernel_h;
    for (int k = 0; k < maxk; k++) {
        const int ki = k / w.kernel_w, kj = k % w.kernel_w;
        const float* row = col + (size_t)k * ldcol;
        int i = pix0 / w.in_w, j = pix0 % w.in_w;
        for (int t = 0; t < npix; t++) {
            out[(size_t)(i * w.stride_h + ki * w.dilation_h) * w.out_w + (size_t)j * w.stride_w + kj * w.dilation_w] += row[t];
            if (++j == w.in_w) {
                j = 0;
                i++;
            }
        }
    }
}

void f32_deconvdw_plane__scalar(const float* src, int in_h, const float* kernel, const DeconvWindow& w, float* out) {
    for (int ki = 0; ki < w.kernel_h; ki++)
        for (int kj = 0; kj < w.kernel_w; kj++) {
            const float wk = kernel[ki * w.kernel_w + kj];
            for (int i = 0; i < in_h; i++) {
                const float* s = src + (size_t)i * w.in_w;
                float* o = out + (size_t)(i * w.stride_h + ki * w.dilation_h) * w.out_w + kj * w.dilation_w;
                for (int j = 0; j < w.in_w; j++)
                    o[(size_t)j * w.stride_w] += s[j] * wk;
            }
        }
}

}  // namespace kernels
}  // namespace nnfold
