// Depthwise convolution with SIMD-128: whole vectors of four output pixels over padded rows from
// the ring (window.h), taps summed in the scalar twins' order (dwconv.cpp); the last vector of a
// row stores only its valid lanes. Stride 1 runs two output rows per pass: the K + 1 input rows are
// loaded once and feed two independent accumulators (each still summing its own taps in kernel
// order); stride 2 runs two vectors side by side. The activation is a pass over each finished row.
#include "kernels/dwconv.h"
#include "kernels/simd.h"
#include "kernels/wasm/window_taps.h"

namespace nnfold {
namespace kernels {

using namespace simd;

namespace {

inline void store_lanes(float* p, v128_t v, int n) {
    if (n >= 4)
        store(p, v);
    else
        store_partial(p, v, n);
}

template <int K, int S>
void dwconv_fixed(const DwPlane& p) {
    const WindowGeometry& g = p.win;
    RowRing ring(g, p.scratch, dw_ring_slots(g));
    v128_t kv[K * K];
    for (int k = 0; k < K * K; k++)
        kv[k] = splat(p.kernel[k]);
    const v128_t vbias = splat(p.bias);
    for (int y = 0; y < g.out_h;) {
        const bool pair = S == 1 && y + 1 < g.out_h;
        const float* rows[K + 1];
        for (int i = 0; i < K; i++)
            rows[i] = ring.row(y, i);
        float* out0 = p.dst + (size_t)y * g.out_w;
        float* out1 = out0 + g.out_w;
        if (pair) {
            rows[K] = ring.row(y + 1, K - 1);
            for (int x = 0; x < g.out_w; x += 4) {
                v128_t acc0 = vbias, acc1 = vbias;
                for (int i = 0; i < K; i++) {
                    v128_t t[K];
                    taps::row<K, S>(rows[i] + x * S, t);
                    for (int j = 0; j < K; j++)
                        acc0 = madd(t[j], kv[i * K + j], acc0);
                    if (i >= 1)
                        for (int j = 0; j < K; j++)
                            acc1 = madd(t[j], kv[(i - 1) * K + j], acc1);
                }
                v128_t t[K];
                taps::row<K, S>(rows[K] + x * S, t);
                for (int j = 0; j < K; j++)
                    acc1 = madd(t[j], kv[(K - 1) * K + j], acc1);
                store_lanes(out0 + x, acc0, g.out_w - x);
                store_lanes(out1 + x, acc1, g.out_w - x);
            }
        } else {
            int x = 0;
            for (; x + 8 <= g.out_w; x += 8) {
                v128_t acc0 = vbias, acc1 = vbias;
                for (int i = 0; i < K; i++) {
                    v128_t t0[K], t1[K];
                    taps::row<K, S>(rows[i] + x * S, t0);
                    taps::row<K, S>(rows[i] + (x + 4) * S, t1);
                    for (int j = 0; j < K; j++) {
                        acc0 = madd(t0[j], kv[i * K + j], acc0);
                        acc1 = madd(t1[j], kv[i * K + j], acc1);
                    }
                }
                store(out0 + x, acc0);
                store(out0 + x + 4, acc1);
            }
            for (; x < g.out_w; x += 4) {
                v128_t acc = vbias;
                for (int i = 0; i < K; i++) {
                    v128_t t[K];
                    taps::row<K, S>(rows[i] + x * S, t);
                    for (int j = 0; j < K; j++)
                        acc = madd(t[j], kv[i * K + j], acc);
                }
                store_lanes(out0 + x, acc, g.out_w - x);
            }
        }
        const int nrows = pair ? 2 : 1;
        f32_act_inplace__wasmsimd(out0, (size_t)nrows * g.out_w, p.act);
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
    const int S = g.stride_w, D = g.dilation_w;
    RowRing ring(g, p.scratch, dw_ring_slots(g));
    const float* rows[kMaxRingRows];
    const v128_t vbias = splat(p.bias);
    for (int y = 0; y < g.out_h; y++) {
        for (int i = 0; i < g.kernel_h; i++)
            rows[i] = ring.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        for (int x = 0; x < g.out_w; x += 4) {
            v128_t acc = vbias;
            for (int i = 0; i < g.kernel_h; i++)
                for (int j = 0; j < g.kernel_w; j++) {
                    const float* q = rows[i] + x * S + j * D;
                    const v128_t v = S == 1 ? load(q) : wasm_f32x4_make(q[0], q[S], q[2 * S], q[3 * S]);
                    acc = madd(v, load_splat(p.kernel + i * g.kernel_w + j), acc);
                }
            store_lanes(out + x, acc, g.out_w - x);
        }
        f32_act_inplace__wasmsimd(out, (size_t)g.out_w, p.act);
    }
}

}  // namespace kernels
}  // namespace nnfold
