// Depthwise convolution, scalar twins: the same sliding window, taps in the same order as the
// SIMD kernels' lanes (wasm/dwconv_wasmsimd.cpp) and the reference layer.
#include "kernels/dwconv.h"

namespace nnfold {
namespace kernels {

namespace {

template <int K, int S>
void dwconv_fixed(const DwPlane& p) {
    for (int y = 0; y < p.out_h; y++) {
        const float* rows[K];
        for (int i = 0; i < K; i++)
            rows[i] = p.src + (size_t)(y * S + i) * p.in_w;
        float* out = p.dst + (size_t)y * p.out_w;
        for (int x = 0; x < p.out_w; x++) {
            float sum = p.bias;
            for (int i = 0; i < K; i++)
                for (int j = 0; j < K; j++)
                    sum += rows[i][x * S + j] * p.kernel[i * K + j];
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace

void f32_dwconv3x3s1__scalar(const DwPlane& p) { dwconv_fixed<3, 1>(p); }
void f32_dwconv3x3s2__scalar(const DwPlane& p) { dwconv_fixed<3, 2>(p); }
void f32_dwconv5x5s1__scalar(const DwPlane& p) { dwconv_fixed<5, 1>(p); }
void f32_dwconv5x5s2__scalar(const DwPlane& p) { dwconv_fixed<5, 2>(p); }

void f32_dwconv_general__scalar(const DwPlane& p) {
    for (int y = 0; y < p.out_h; y++) {
        float* out = p.dst + (size_t)y * p.out_w;
        for (int x = 0; x < p.out_w; x++) {
            float sum = p.bias;
            for (int i = 0; i < p.kernel_h; i++) {
                const float* r = p.src + (size_t)(y * p.stride_h + i * p.dilation_h) * p.in_w + (size_t)x * p.stride_w;
                for (int j = 0; j < p.kernel_w; j++)
                    sum += r[j * p.dilation_w] * p.kernel[i * p.kernel_w + j];
            }
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace kernels
}  // namespace nnfold
