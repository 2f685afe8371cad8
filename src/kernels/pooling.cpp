// Pooling, scalar twins of wasm/pooling_wasmsimd.cpp (same window order, same divisors).
#include "kernels/pooling.h"

namespace nnfold {
namespace kernels {

namespace {

template <int K, int S, bool Max>
void pool_fixed(const PoolPlane& p) {
    const WindowGeometry& g = p.win;
    RowRing ring(g, p.scratch, g.rows_spanned());
    for (int y = 0; y < g.out_h; y++) {
        const float* rows[K];
        for (int i = 0; i < K; i++)
            rows[i] = ring.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        for (int x = 0; x < g.out_w; x++) {
            const int base = x * S;
            if (Max) {
                float m = rows[0][base];
                for (int i = 0; i < K; i++)
                    for (int j = 0; j < K; j++) {
                        const float v = rows[i][base + j];
                        m = m < v ? v : m;  // std::max(m, v)
                    }
                out[x] = m;
            } else {
                float sum = 0.f;
                for (int i = 0; i < K; i++)
                    for (int j = 0; j < K; j++)
                        sum += rows[i][base + j];
                const float area = p.row_count ? (float)(p.row_count[y] * p.col_count[x]) : (float)(K * K);
                out[x] = sum / area;
            }
        }
    }
}

}  // namespace

void f32_maxpool2x2s1__scalar(const PoolPlane& p) { pool_fixed<2, 1, true>(p); }
void f32_maxpool2x2s2__scalar(const PoolPlane& p) { pool_fixed<2, 2, true>(p); }
void f32_maxpool3x3s1__scalar(const PoolPlane& p) { pool_fixed<3, 1, true>(p); }
void f32_maxpool3x3s2__scalar(const PoolPlane& p) { pool_fixed<3, 2, true>(p); }
void f32_avgpool2x2s1__scalar(const PoolPlane& p) { pool_fixed<2, 1, false>(p); }
void f32_avgpool2x2s2__scalar(const PoolPlane& p) { pool_fixed<2, 2, false>(p); }
void f32_avgpool3x3s1__scalar(const PoolPlane& p) { pool_fixed<3, 1, false>(p); }
void f32_avgpool3x3s2__scalar(const PoolPlane& p) { pool_fixed<3, 2, false>(p); }

float f32_global_maxpool__scalar(const float* p, size_t n) {
    // four lanes from p[0], as the SIMD kernel: the same result as the reference's sequential
    // std::max (max is exact; a NaN counts only at p[0])
    float m[4] = {p[0], p[0], p[0], p[0]};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++)
            m[l] = m[l] < p[i + l] ? p[i + l] : m[l];
    float r = m[0];
    for (int l = 1; l < 4; l++)
        r = r < m[l] ? m[l] : r;
    for (; i < n; i++)
        r = r < p[i] ? p[i] : r;
    return r;
}

float f32_global_avgpool__scalar(const float* p, size_t n) {
    float s[4] = {0.f, 0.f, 0.f, 0.f};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++)
            s[l] += p[i + l];
    float sum = (s[0] + s[2]) + (s[1] + s[3]);
    for (; i < n; i++)
        sum += p[i];
    return sum / (float)n;
}

}  // namespace kernels
}  // namespace nnfold
