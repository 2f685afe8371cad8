// Depthwise convolution with SIMD-128: whole vectors of four output pixels over padded rows from
// the ring (window.h), taps summed in the scalar twins' order (dwconv.cpp); the last vector of a
// row stores only its valid lanes. Stride 1 runs two output rows per pass: the K + 1 input rows are
// loaded once and feed independent accumulators for both rows and (3x3) two vectors each; single
// rows (stride 2, a last odd row) run four (3x3) or two (5x5) vectors side by side. Each sum still
// adds its own taps in kernel order. The activation is a pass over each finished row.
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

// Output rows y and y + 1 of a stride-1 window, NV vectors of four pixels from column x: the K + 1
// input rows are loaded once and feed 2 * NV independent sums (each still adding its own taps in
// kernel order: the dependency chain of one sum is K * K additions long, so several sums in flight
// are what keeps the adder busy).
template <int K, int NV>
inline void pair_block(const float* const* rows, const v128_t* kv, v128_t vbias, float* out0, float* out1, int x,
                       int out_w) {
    v128_t a0[NV], a1[NV];
    for (int v = 0; v < NV; v++)
        a0[v] = a1[v] = vbias;
    for (int i = 0; i <= K; i++)
        for (int v = 0; v < NV; v++) {
            v128_t t[K];
            taps::row<K, 1>(rows[i] + x + 4 * v, t);
            if (i < K)
                for (int j = 0; j < K; j++)
                    a0[v] = madd(t[j], kv[i * K + j], a0[v]);
            if (i >= 1)
                for (int j = 0; j < K; j++)
                    a1[v] = madd(t[j], kv[(i - 1) * K + j], a1[v]);
        }
    for (int v = 0; v < NV; v++) {
        store_lanes(out0 + x + 4 * v, a0[v], out_w - x - 4 * v);
        store_lanes(out1 + x + 4 * v, a1[v], out_w - x - 4 * v);
    }
}

// One output row, NV vectors of four pixels from column x (NV independent sums).
template <int K, int S, int NV>
inline void row_block(const float* const* rows, const v128_t* kv, v128_t vbias, float* out, int x, int out_w) {
    v128_t a[NV];
    for (int v = 0; v < NV; v++)
        a[v] = vbias;
    for (int i = 0; i < K; i++)
        for (int v = 0; v < NV; v++) {
            v128_t t[K];
            taps::row<K, S>(rows[i] + (x + 4 * v) * S, t);
            for (int j = 0; j < K; j++)
                a[v] = madd(t[j], kv[i * K + j], a[v]);
        }
    for (int v = 0; v < NV; v++)
        store_lanes(out + x + 4 * v, a[v], out_w - x - 4 * v);
}

template <int K, int S>
void dwconv_fixed(const DwPlane& p) {
    const WindowGeometry& g = p.win;
    RowRing ring(g, p.scratch, dw_ring_slots(g));
    v128_t kv[K * K];
    for (int k = 0; k < K * K; k++)
        kv[k] = splat(p.kernel[k]);
    const v128_t vbias = splat(p.bias);
    // 3x3: 4 (stride 1: 2 rows x 2 vectors) or 4 (stride 2: 4 vectors) sums in flight; 5x5 has
    // longer chains but more taps per load, and its 25 kernel vectors already fill the registers
    constexpr int NP = K == 3 ? 2 : 1;  // vectors per row pair (stride 1)
    constexpr int NR = K == 3 ? 4 : 2;  // vectors per single row
    for (int y = 0; y < g.out_h;) {
        const bool pair = S == 1 && y + 1 < g.out_h;
        const float* rows[K + 1];
        for (int i = 0; i < K; i++)
            rows[i] = ring.row(y, i);
        float* out0 = p.dst + (size_t)y * g.out_w;
        float* out1 = out0 + g.out_w;
        int x = 0;
        if (pair) {
            rows[K] = ring.row(y + 1, K - 1);
            for (; x + 4 * NP <= g.out_w; x += 4 * NP)
                pair_block<K, NP>(rows, kv, vbias, out0, out1, x, g.out_w);
            for (; x < g.out_w; x += 4)
                pair_block<K, 1>(rows, kv, vbias, out0, out1, x, g.out_w);
        } else {
            for (; x + 4 * NR <= g.out_w; x += 4 * NR)
                row_block<K, S, NR>(rows, kv, vbias, out0, x, g.out_w);
            for (; x < g.out_w; x += 4)
                row_block<K, S, 1>(rows, kv, vbias, out0, x, g.out_w);
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
