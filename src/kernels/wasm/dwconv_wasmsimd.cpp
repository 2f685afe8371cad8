// Depthwise convolution with SIMD-128: four output pixels of a row per vector over the interior
// columns (window.h), edge columns per pixel; taps summed in the scalar twins' order (dwconv.cpp).
// Stride 1 runs two output rows per pass: the K + 1 input rows are loaded once and feed two
// independent accumulators (each still summing its own taps in kernel order).
#include "kernels/dwconv.h"
#include "kernels/simd.h"
#include "kernels/wasm/window_taps.h"

#include <vector>

namespace nnfold {
namespace kernels {

using namespace simd;

namespace {

template <int K, int S>
void dwconv_fixed(const DwPlane& p) {
    const WindowGeometry g = dw_fixed_window(p, K, S);
    int x_lo, x_hi;
    g.interior(x_lo, x_hi);
    v128_t kv[K * K];
    for (int k = 0; k < K * K; k++)
        kv[k] = splat(p.kernel[k]);
    const v128_t vbias = splat(p.bias);
    for (int y = 0; y < g.out_h;) {
        const bool pair = S == 1 && y + 1 < g.out_h;
        const float* rows[K + 1];
        for (int i = 0; i < K; i++)
            rows[i] = g.row(y, i);
        rows[K] = pair ? g.row(y + 1, K - 1) : nullptr;
        const int nrows = pair ? 2 : 1;
        for (int r = 0; r < nrows; r++) {
            float* out = p.dst + (size_t)(y + r) * g.out_w;
            for (int x = 0; x < x_lo; x++)
                out[x] = act_scalar(dw_edge_pixel(g, rows + r, x, p.kernel, p.bias), p.act);
            for (int x = x_hi; x < g.out_w; x++)
                out[x] = act_scalar(dw_edge_pixel(g, rows + r, x, p.kernel, p.bias), p.act);
        }
        float* out0 = p.dst + (size_t)y * g.out_w;
        float* out1 = out0 + g.out_w;
        int x = x_lo;
        for (; x + 4 <= x_hi; x += 4) {
            const int base = x * S - g.pad_left;
            v128_t acc0 = vbias, acc1 = vbias;
            for (int i = 0; i < K; i++) {
                v128_t t[K];
                taps::row<K, S>(rows[i] + base, t);
                for (int j = 0; j < K; j++)
                    acc0 = madd(t[j], kv[i * K + j], acc0);
                if (pair && i >= 1)
                    for (int j = 0; j < K; j++)
                        acc1 = madd(t[j], kv[(i - 1) * K + j], acc1);
            }
            if (pair) {
                v128_t t[K];
                taps::row<K, S>(rows[K] + base, t);
                for (int j = 0; j < K; j++)
                    acc1 = madd(t[j], kv[(K - 1) * K + j], acc1);
                store(out1 + x, act_v(acc1, p.act));
            }
            store(out0 + x, act_v(acc0, p.act));
        }
        for (; x < x_hi; x++) {
            const int base = x * S - g.pad_left;
            for (int r = 0; r < nrows; r++) {
                float sum = p.bias;
                for (int i = 0; i < K; i++)
                    for (int j = 0; j < K; j++)
                        sum += rows[r + i][base + j] * p.kernel[i * K + j];
                p.dst[(size_t)(y + r) * g.out_w + x] = act_scalar(sum, p.act);
            }
        }
        y += nrows;
    }
}

}  // namespace

void f32_dwconv3x3s1__wasmsimd(const DwPlane& p) { dwconv_fixed<3, 1>(p); }
void f32_dwconv3x3s2__wasmsimd(const DwPlane& p) { dwconv_fixed<3, 2>(p); }
void f32_dwconv5x5s1__wasmsimd(const DwPlane& p) { dwconv_fixed<5, 1>(p); }
void f32_dwconv5x5s2__wasmsimd(const DwPlane& p) { dwconv_fixed<5, 2>(p); }

void f32_dwconv_general__wasmsimd(const DwPlane& p) {
    const WindowGeometry& g = p.win;
    const int S = g.stride_w;
    int x_lo, x_hi;
    g.interior(x_lo, x_hi);
    const float* rows_small[16];
    std::vector<const float*> rows_big;
    const float** rows = rows_small;
    if (g.kernel_h > 16) {
        rows_big.resize((size_t)g.kernel_h);
        rows = rows_big.data();
    }
    for (int y = 0; y < g.out_h; y++) {
        for (int i = 0; i < g.kernel_h; i++)
            rows[i] = g.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        for (int x = 0; x < x_lo; x++)
            out[x] = act_scalar(dw_edge_pixel(g, rows, x, p.kernel, p.bias), p.act);
        for (int x = x_hi; x < g.out_w; x++)
            out[x] = act_scalar(dw_edge_pixel(g, rows, x, p.kernel, p.bias), p.act);
        int x = x_lo;
        for (; x + 4 <= x_hi; x += 4) {
            const int base = x * S - g.pad_left;
            v128_t acc = splat(p.bias);
            for (int i = 0; i < g.kernel_h; i++)
                for (int j = 0; j < g.kernel_w; j++) {
                    const float* q = rows[i] + base + j * g.dilation_w;
                    const v128_t v = S == 1 ? load(q) : wasm_f32x4_make(q[0], q[S], q[2 * S], q[3 * S]);
                    acc = madd(v, load_splat(p.kernel + i * g.kernel_w + j), acc);
                }
            store(out + x, act_v(acc, p.act));
        }
        for (; x < x_hi; x++) {
            const int base = x * S - g.pad_left;
            float sum = p.bias;
            for (int i = 0; i < g.kernel_h; i++)
                for (int j = 0; j < g.kernel_w; j++)
                    sum += rows[i][base + j * g.dilation_w] * p.kernel[i * g.kernel_w + j];
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace kernels
}  // namespace nnfold
