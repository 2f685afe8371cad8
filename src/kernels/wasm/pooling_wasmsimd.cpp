// Pooling with SIMD-128: whole vectors of four output pixels over padded rows from the ring
// (window.h; window lanes from window_taps.h), the last vector of a row storing its valid lanes;
// max with f32x4.pmax (std::max semantics per lane), average with the reference's divisors; global
// pooling over four interleaved lanes.
#include "kernels/pooling.h"
#include "kernels/simd.h"
#include "kernels/wasm/window_taps.h"

namespace nnfold {
namespace kernels {

using namespace simd;

namespace {

template <int K, int S, bool Max>
void pool_fixed(const PoolPlane& p) {
    const WindowGeometry& g = p.win;
    RowRing ring(g, p.scratch, g.rows_spanned());
    const v128_t karea = splat((float)(K * K));
    for (int y = 0; y < g.out_h; y++) {
        const float* rows[K];
        for (int i = 0; i < K; i++)
            rows[i] = ring.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        const v128_t rcount = wasm_i32x4_splat(p.row_count ? p.row_count[y] : 0);
        for (int x = 0; x < g.out_w; x += 4) {
            const float* r0 = rows[0] + x * S;
            v128_t acc;
            if (Max)  // lane l starts from its window's first cell, as the reference does
                acc = S == 1 ? load(r0) : wasm_f32x4_make(r0[0], r0[S], r0[2 * S], r0[3 * S]);
            else
                acc = zero();
            for (int i = 0; i < K; i++) {
                v128_t t[K];
                taps::row<K, S>(rows[i] + x * S, t);
                for (int j = 0; j < K; j++)
                    acc = Max ? max(acc, t[j]) : add(acc, t[j]);
            }
            if (!Max) {
                const v128_t area = p.row_count
                                        ? wasm_f32x4_convert_i32x4(wasm_i32x4_mul(rcount, wasm_v128_load(p.col_count + x)))
                                        : karea;
                acc = wasm_f32x4_div(acc, area);
            }
            if (x + 4 <= g.out_w)
                store(out + x, acc);
            else
                store_partial(out + x, acc, g.out_w - x);
        }
    }
}

}  // namespace

void f32_maxpool2x2s1__wasmsimd(const PoolPlane& p) { pool_fixed<2, 1, true>(p); }
void f32_maxpool2x2s2__wasmsimd(const PoolPlane& p) { pool_fixed<2, 2, true>(p); }
void f32_maxpool3x3s1__wasmsimd(const PoolPlane& p) { pool_fixed<3, 1, true>(p); }
void f32_maxpool3x3s2__wasmsimd(const PoolPlane& p) { pool_fixed<3, 2, true>(p); }
void f32_avgpool2x2s1__wasmsimd(const PoolPlane& p) { pool_fixed<2, 1, false>(p); }
void f32_avgpool2x2s2__wasmsimd(const PoolPlane& p) { pool_fixed<2, 2, false>(p); }
void f32_avgpool3x3s1__wasmsimd(const PoolPlane& p) { pool_fixed<3, 1, false>(p); }
void f32_avgpool3x3s2__wasmsimd(const PoolPlane& p) { pool_fixed<3, 2, false>(p); }

float f32_global_maxpool__wasmsimd(const float* p, size_t n) {
    // every lane starts from p[0]: a NaN there is sticky, any other NaN is skipped (std::max)
    v128_t m = load_splat(p);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        m = max(m, load(p + i));
    float r = wasm_f32x4_extract_lane(m, 0);
    for (int l = 1; l < 4; l++) {
        float v = l == 1 ? wasm_f32x4_extract_lane(m, 1) : l == 2 ? wasm_f32x4_extract_lane(m, 2) : wasm_f32x4_extract_lane(m, 3);
        r = r < v ? v : r;
    }
    for (; i < n; i++)
        r = r < p[i] ? p[i] : r;
    return r;
}

float f32_global_avgpool__wasmsimd(const float* p, size_t n) {
    v128_t s = zero();
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        s = add(s, load(p + i));
    float sum = hsum(s);
    for (; i < n; i++)
        sum += p[i];
    return sum / (float)n;
}

}  // namespace kernels
}  // namespace nnfold
