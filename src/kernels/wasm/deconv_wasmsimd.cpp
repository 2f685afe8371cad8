// Depthwise transposed convolution with SIMD-128: stride-1 output rows take four input pixels per
// f32x4 (contiguous loads and stores); other strides scatter lane by lane. The scalar twin is
// deconv.cpp; the order per output element is the same (tap by tap).
#include "kernels/deconv.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {

using namespace simd;

void f32_deconvdw_plane__wasmsimd(const float* src, int in_h, const float* kernel, const DeconvWindow& w, float* out) {
    for (int ki = 0; ki < w.kernel_h; ki++)
        for (int kj = 0; kj < w.kernel_w; kj++) {
            const float wk = kernel[ki * w.kernel_w + kj];
            const v128_t vk = splat(wk);
            for (int i = 0; i < in_h; i++) {
                const float* s = src + (size_t)i * w.in_w;
                float* o = out + (size_t)(i * w.stride_h + ki * w.dilation_h) * w.out_w + kj * w.dilation_w;
                int j = 0;
                if (w.stride_w == 1)
                    for (; j + 4 <= w.in_w; j += 4)
                        store(o + j, madd(load(s + j), vk, load(o + j)));
                for (; j < w.in_w; j++)
                    o[(size_t)j * w.stride_w] += s[j] * wk;
            }
        }
}

}  // namespace kernels
}  // namespace nnfold
