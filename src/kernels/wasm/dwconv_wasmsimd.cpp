// Depthwise convolution with SIMD-128: four output pixels of a row per vector, the taps summed in
// the scalar twins' order (dwconv.cpp). Stride-2 lanes are the even/odd elements of contiguous
// loads; the loads at a row's end read exactly the elements the last lanes need.
#include "kernels/dwconv.h"
#include "kernels/simd.h"
#include "kernels/wasm/window_taps.h"

namespace nnfold {
namespace kernels {

using namespace simd;

namespace {

template <int K, int S>
void dwconv_fixed(const DwPlane& p) {
    v128_t kv[K * K];
    for (int k = 0; k < K * K; k++)
        kv[k] = splat(p.kernel[k]);
    const v128_t vbias = splat(p.bias);
    for (int y = 0; y < p.out_h; y++) {
        const float* rows[K];
        for (int i = 0; i < K; i++)
            rows[i] = p.src + (size_t)(y * S + i) * p.in_w;
        float* out = p.dst + (size_t)y * p.out_w;
        int x = 0;
        for (; x + 4 <= p.out_w; x += 4) {
            v128_t acc = vbias;
            for (int i = 0; i < K; i++) {
                v128_t t[K];
                taps::row<K, S>(rows[i] + x * S, t);
                for (int j = 0; j < K; j++)
                    acc = madd(t[j], kv[i * K + j], acc);
            }
            store(out + x, act_v(acc, p.act));
        }
        for (; x < p.out_w; x++) {
            float sum = p.bias;
            for (int i = 0; i < K; i++)
                for (int j = 0; j < K; j++)
                    sum += rows[i][x * S + j] * p.kernel[i * K + j];
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace

void f32_dwconv3x3s1__wasmsimd(const DwPlane& p) { dwconv_fixed<3, 1>(p); }
void f32_dwconv3x3s2__wasmsimd(const DwPlane& p) { dwconv_fixed<3, 2>(p); }
void f32_dwconv5x5s1__wasmsimd(const DwPlane& p) { dwconv_fixed<5, 1>(p); }
void f32_dwconv5x5s2__wasmsimd(const DwPlane& p) { dwconv_fixed<5, 2>(p); }

void f32_dwconv_general__wasmsimd(const DwPlane& p) {
    const int S = p.stride_w;
    for (int y = 0; y < p.out_h; y++) {
        float* out = p.dst + (size_t)y * p.out_w;
        int x = 0;
        for (; x + 4 <= p.out_w; x += 4) {
            v128_t acc = splat(p.bias);
            for (int i = 0; i < p.kernel_h; i++) {
                const float* r = p.src + (size_t)(y * p.stride_h + i * p.dilation_h) * p.in_w + (size_t)x * S;
                for (int j = 0; j < p.kernel_w; j++) {
                    const float* q = r + j * p.dilation_w;
                    const v128_t v = S == 1 ? load(q) : wasm_f32x4_make(q[0], q[S], q[2 * S], q[3 * S]);
                    acc = madd(v, load_splat(p.kernel + i * p.kernel_w + j), acc);
                }
            }
            store(out + x, act_v(acc, p.act));
        }
        for (; x < p.out_w; x++) {
            float sum = p.bias;
            for (int i = 0; i < p.kernel_h; i++) {
                const float* r = p.src + (size_t)(y * p.stride_h + i * p.dilation_h) * p.in_w + (size_t)x * S;
                for (int j = 0; j < p.kernel_w; j++)
                    sum += r[j * p.dilation_w] * p.kernel[i * p.kernel_w + j];
            }
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace kernels
}  // namespace nnfold
