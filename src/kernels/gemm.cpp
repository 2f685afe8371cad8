// GEMM: the scalar micro-kernel twin, packing (strided and im2col), the blocked driver, and the
// scalar GEMV over packed A. The SIMD micro-kernels are in wasm/gemm_wasmsimd.cpp.
#include "kernels/gemm.h"

#include "core/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if NNFOLD_SIMD
#include "kernels/simd.h"
#endif

namespace nnfold {
namespace kernels {

void f32_gemm_4x8__scalar(size_t kc, const float* a, const float* b, float* c, size_t ldc, const GemmTile& t) {
    float acc[4][8];
    if (t.flags & kGemmAccumulate) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 8; j++)
                acc[i][j] = c[i * ldc + j];
    } else if (t.row_bias) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 8; j++)
                acc[i][j] = t.row_bias[i];
    } else if (t.col_bias) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 8; j++)
                acc[i][j] = t.col_bias[j];
    } else {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 8; j++)
                acc[i][j] = 0.f;
    }
    for (size_t k = 0; k < kc; k++) {
        for (int i = 0; i < 4; i++) {
            const float ai = a[i];
            for (int j = 0; j < 8; j++)
                acc[i][j] = acc[i][j] + ai * b[j];
        }
        a += 4;
        b += 8;
    }
    if (t.flags & kGemmFinal) {
        const GemmEpilogue& ep = *t.ep;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 8; j++) {
                float v = acc[i][j];
                if (ep.scale)
                    v = v * ep.alpha;
                acc[i][j] = act_scalar(v, ep.act);
            }
        if (t.residual)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 8; j++) {
                    const float v = acc[i][j] + (i < t.residual_rows ? t.residual[i * t.ldr + j] : 0.f);
                    acc[i][j] = t.relu_after && v < 0.f ? 0.f : v;
                }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++)
            c[i * ldc + j] = acc[i][j];
}

void f32_pack_a(int M, int K, const float* a, size_t rs, size_t cs, float* dst) {
    for (int p = 0; p < M; p += kGemmMR) {
        const int rows = std::min(kGemmMR, M - p);
        float* d = dst + (size_t)p * K;  // panel p / MR starts at (p / MR) * K * MR = p * K
        for (int k = 0; k < K; k++) {
            for (int r = 0; r < rows; r++)
                d[r] = a[(size_t)(p + r) * rs + (size_t)k * cs];
            for (int r = rows; r < kGemmMR; r++)
                d[r] = 0.f;
            d += kGemmMR;
        }
    }
}

namespace {

// Packs B[k0 .. k0 + kc)[n0 .. n0 + nc) of a strided matrix into panels of kc x NR.
void pack_b_strided(const float* b, size_t rs, size_t cs, int k0, int kc, int n0, int nc, float* dst) {
    if (cs == 1 && rs % 1024 == 0) {
        // Rows a multiple of 4 KB apart (a 1x1 convolution over 32x32, 64x64 or 128x128 planes)
        // all map to one L1 set: reading NR floats of every row per panel evicted each line before
        // its second half was used. Row by row instead, each source line read once (wasm SIMD,
        // gemm.res.24x16384x24: 0.73-0.75 -> 0.67-0.71 ms; on other strides the panel order is
        // faster: gemm.16x3025x64 0.18 vs 0.21 ms).
        const int full = nc / kGemmNR * kGemmNR;
        const size_t panel = (size_t)kc * kGemmNR;
        for (int k = 0; k < kc; k++) {
            const float* s = b + (size_t)(k0 + k) * rs + n0;
            float* d = dst + (size_t)k * kGemmNR;
            for (int j = 0; j < full; j += kGemmNR, d += panel)
                std::memcpy(d, s + j, sizeof(float) * kGemmNR);
            for (int c = 0; c < kGemmNR && full < nc; c++)
                d[c] = full + c < nc ? s[full + c] : 0.f;
        }
        return;
    }
    for (int j = 0; j < nc; j += kGemmNR) {
        const int cols = std::min(kGemmNR, nc - j);
        float* d = dst + (size_t)(j / kGemmNR) * kc * kGemmNR;
        const float* s = b + (size_t)k0 * rs + (size_t)(n0 + j) * cs;
        if (cols == kGemmNR && cs == 1) {
            for (int k = 0; k < kc; k++) {
                std::memcpy(d, s, sizeof(float) * kGemmNR);
                s += rs;
                d += kGemmNR;
            }
            continue;
        }
        for (int k = 0; k < kc; k++) {
            for (int c = 0; c < cols; c++)
                d[c] = s[(size_t)c * cs];
            for (int c = cols; c < kGemmNR; c++)
                d[c] = 0.f;
            s += rs;
            d += kGemmNR;
        }
    }
}

// The K block of the blocked driver: at most this many rows (choose_kc below).
constexpr int kKcMax = 512;

// Packs the im2col matrix rows [k0, k0 + kc), columns [n0, n0 + nc) into panels of kc x NR
// without materializing the im2col matrix. Row k's offset inside the padded planes (its channel,
// kernel row and column) is computed once per call; a panel of NR pixels of one output row then
// copies NR consecutive floats per k (stride 1) or every other float (stride 2: BlazeFace's 5x5 s2
// stem, every s2 im2col layer; with SIMD two 4-float loads, a third, a fourth from p + 11 and two
// shuffles, reading p[0..14] only), and other panels gather pixel by pixel. Measured (wasm SIMD,
// the BlazeFace front stem, 75 x 4096): 0.135 ms stepping (channel, row, column) per panel row,
// 0.084 with the offsets, 0.038 with the shuffles.
// kc <= kKcMax: its one caller is the driver below (choose_kc).
void pack_b_im2col(const Im2col& g, int k0, int kc, int n0, int nc, float* dst) {
    static_assert(kGemmNR == 8, "the stride-2 copy moves 8 floats");
    const int maxk = g.kernel_w * g.kernel_h;
    size_t kofs[kKcMax];
    {
        int q = k0 / maxk, kk = k0 % maxk;
        int ki = kk / g.kernel_w, kj = kk % g.kernel_w;
        for (int k = 0; k < kc; k++) {
            kofs[k] = (size_t)q * g.in_plane + (size_t)ki * g.dilation_h * g.in_w + (size_t)kj * g.dilation_w;
            if (++kj == g.kernel_w) {
                kj = 0;
                if (++ki == g.kernel_h) {
                    ki = 0;
                    q++;
                }
            }
        }
    }
    for (int j = 0; j < nc; j += kGemmNR) {
        const int cols = std::min(kGemmNR, nc - j);
        float* d = dst + (size_t)(j / kGemmNR) * kc * kGemmNR;
        // offsets of this panel's output pixels inside a (padded) input plane
        size_t base[kGemmNR];
        int n = n0 + j;
        int oy = n / g.out_w, ox = n % g.out_w;
        const bool one_row = cols == kGemmNR && ox + kGemmNR <= g.out_w;
        for (int c = 0; c < cols; c++) {
            base[c] = (size_t)oy * g.stride_h * g.in_w + (size_t)ox * g.stride_w;
            if (++ox == g.out_w) {
                ox = 0;
                oy++;
            }
        }
        const float* row = g.src + base[0];
        if (one_row && g.stride_w == 1) {
            for (int k = 0; k < kc; k++, d += kGemmNR)
                std::memcpy(d, row + kofs[k], sizeof(float) * kGemmNR);
        } else if (one_row && g.stride_w == 2) {
            for (int k = 0; k < kc; k++, d += kGemmNR) {
                const float* p = row + kofs[k];
#if NNFOLD_SIMD
                simd::store(d, wasm_i32x4_shuffle(simd::load(p), simd::load(p + 4), 0, 2, 4, 6));
                simd::store(d + 4, wasm_i32x4_shuffle(simd::load(p + 8), simd::load(p + 11), 0, 2, 5, 7));
#else
                for (int c = 0; c < kGemmNR; c++)
                    d[c] = p[2 * c];
#endif
            }
        } else {
            for (int k = 0; k < kc; k++, d += kGemmNR) {
                const float* s = g.src + kofs[k];
                for (int c = 0; c < cols; c++)
                    d[c] = s[base[c]];
                for (int c = cols; c < kGemmNR; c++)
                    d[c] = 0.f;
            }
        }
    }
}

// Blocking: a K block of at most kKcMax rows, and an N block whose packed B (kc x nc) is at most
// kBBlockFloats (256 KB, half of a 512 KB L2), so each A panel slice (kc x MR, <= 8 KB) stays in
// L1 while the B block streams from L2.
constexpr size_t kBBlockFloats = 64 * 1024;

int choose_kc(int K) {
    if (K <= kKcMax)
        return std::max(K, 1);
    int blocks = (K + kKcMax - 1) / kKcMax;
    return (K + blocks - 1) / blocks;  // even blocks rather than a short last one
}

int choose_nc(int N, int kc) {
    int nc = (int)(kBBlockFloats / (size_t)kc) / kGemmNR * kGemmNR;
    nc = std::max(nc, kGemmNR);
    int n_round = (N + kGemmNR - 1) / kGemmNR * kGemmNR;
    return std::min(nc, n_round);
}

// The fused residual Add of a finished C tile (GemmEpilogue::residual), on the rows just stored.
inline void add_residual(float* c, size_t ldc, int mr, int nr, int m0, int n0, const GemmEpilogue& ep,
                         unsigned flags) {
    if (!ep.residual || !(flags & kGemmFinal))
        return;
    static const float zeros[kGemmNR] = {};  // the padded rows' addend (nr <= NR)
    for (int i = 0; i < mr; i++) {
        const float* r = m0 + i < ep.residual_rows ? ep.residual + (size_t)(m0 + i) * ep.ldr + n0 : zeros;
        f32_add_act_inplace(c + i * ldc, r, (size_t)nr, ep.post_act);
    }
}

// One C tile of mr x nr (<= MR x NR) at row m0, column n0 of the product.
inline void gemm_tile(size_t kc, const float* a, const float* b, float* c, size_t ldc, int mr, int nr, int m0, int n0,
                      const GemmEpilogue& ep, unsigned flags) {
    GemmTile t;
    t.flags = flags;
    t.ep = &ep;
    float row_bias[kGemmMR], col_bias[kGemmNR];
    if (!(flags & kGemmAccumulate) && ep.bias) {
        if (ep.bias_per_column) {
            if (nr == kGemmNR) {
                t.col_bias = ep.bias + n0;
            } else {
                for (int j = 0; j < kGemmNR; j++)
                    col_bias[j] = j < nr ? ep.bias[n0 + j] : 0.f;
                t.col_bias = col_bias;
            }
        } else {
            if (mr == kGemmMR) {
                t.row_bias = ep.bias + m0;
            } else {
                for (int i = 0; i < kGemmMR; i++)
                    row_bias[i] = i < mr ? ep.bias[m0 + i] : 0.f;
                t.row_bias = row_bias;
            }
        }
    }
    if (mr == kGemmMR && nr == kGemmNR) {
        if (ep.residual && (flags & kGemmFinal) && (ep.post_act.type == 0 || ep.post_act.type == 1)) {
            // the residual in registers (GemmTile::residual)
            t.residual = ep.residual + (size_t)std::min(m0, ep.residual_rows) * ep.ldr + n0;
            t.ldr = ep.ldr;
            t.residual_rows = std::max(0, std::min(kGemmMR, ep.residual_rows - m0));
            t.relu_after = ep.post_act.type == 1;
            f32_gemm_4x8(kc, a, b, c, ldc, t);
            return;
        }
        f32_gemm_4x8(kc, a, b, c, ldc, t);
        add_residual(c, ldc, mr, nr, m0, n0, ep, flags);
        return;
    }
    // Edge tile: compute a full tile locally and copy the valid part.
    float tmp[kGemmMR * kGemmNR];
    if (flags & kGemmAccumulate) {
        std::fill(tmp, tmp + kGemmMR * kGemmNR, 0.f);
        for (int i = 0; i < mr; i++)
            std::memcpy(tmp + i * kGemmNR, c + i * ldc, sizeof(float) * nr);
    }
    f32_gemm_4x8(kc, a, b, tmp, kGemmNR, t);
    for (int i = 0; i < mr; i++)
        std::memcpy(c + i * ldc, tmp + i * kGemmNR, sizeof(float) * nr);
    add_residual(c, ldc, mr, nr, m0, n0, ep, flags);
}

}  // namespace

void f32_pack_b(int K, int N, const float* b, size_t rs, size_t cs, float* dst) {
    pack_b_strided(b, rs, cs, 0, K, 0, N, dst);
}

size_t f32_gemm_workspace_floats(int N, int K, GemmB::Kind kind, int parts) {
    if (kind == GemmB::Packed || N <= 0)
        return 0;
    int kc = choose_kc(K);
    return (size_t)kc * choose_nc(N, kc) * (size_t)std::max(parts, 1);
}

namespace {

// The blocked product over rows [m_begin, m_end) (a multiple of MR apart from M's end) and columns
// [n_begin, n_end) (n_begin a multiple of NR) of C; `workspace` holds one B block.
void gemm_block(int m_begin, int m_end, int n_begin, int n_end, int K, const float* a_packed, const GemmB& b, float* c,
                size_t ldc, const GemmEpilogue& ep, bool accumulate, float* workspace) {
    const int kc_max = choose_kc(K);
    const int nc_max = choose_nc(n_end - n_begin, kc_max);
    for (int n0 = n_begin; n0 < n_end; n0 += nc_max) {
        const int nc = std::min(nc_max, n_end - n0);
        int k0 = 0;
        do {
            const int kc = std::min(kc_max, K - k0);
            const float* bp;
            size_t panel_stride;
            if (b.kind == GemmB::Packed) {
                bp = b.data + (size_t)(n0 / kGemmNR) * K * kGemmNR + (size_t)k0 * kGemmNR;
                panel_stride = (size_t)K * kGemmNR;
            } else {
                if (b.kind == GemmB::Strided)
                    pack_b_strided(b.data, b.rs, b.cs, k0, kc, n0, nc, workspace);
                else
                    pack_b_im2col(b.im2col, k0, kc, n0, nc, workspace);
                bp = workspace;
                panel_stride = (size_t)kc * kGemmNR;
            }
            const unsigned flags = ((accumulate || k0 > 0) ? kGemmAccumulate : 0u) | (k0 + kc >= K ? kGemmFinal : 0u);
            for (int m0 = m_begin; m0 < m_end; m0 += kGemmMR) {
                const int mr = std::min(kGemmMR, m_end - m0);
                const float* ap = a_packed + (size_t)m0 * K + (size_t)k0 * kGemmMR;
                float* crow = c + (size_t)m0 * ldc + n0;
                for (int j = 0; j < nc; j += kGemmNR)
                    gemm_tile((size_t)kc, ap, bp + (size_t)(j / kGemmNR) * panel_stride, crow + j, ldc, mr,
                              std::min(kGemmNR, nc - j), m0, n0 + j, ep, flags);
            }
            k0 += kc;
        } while (k0 < K);
    }
}

// The grid of pn column ranges x pm row ranges (whole panels, near-equal) whose cells `parts`
// threads claim in turn (core/parallel.h parallel_for_slots). A cell costs its multiply-adds, the
// A panels it streams (once per nc column block; the weights, often larger than a core's cache)
// and the B columns it packs (each cell packs its own). Among grids of `parts` to kPiecesPerPart x
// `parts` cells, the one with the least estimated time: the rounds of cells a thread runs
// (ceil(cells / parts)) plus half a cell, for the thread that finishes last when the threads'
// speeds differ (another process, or a sibling hyperthread, taking part of one core): with as many
// cells as threads a slowed thread holds up the whole GEMM, with more cells the other thread takes
// over the remaining ones. Ties go to columns: cells that share rows share A. An imbalanced column
// split (7 column panels of a 7x7 map) or a large A with few columns (1x1 layers at 7x7 and
// 14x14) then goes by rows.
void gemm_split(int m_panels, int n_panels, int K, GemmB::Kind kind, int parts, int* pn_out, int* pm_out) {
    *pn_out = *pm_out = 1;
    if (parts <= 1)
        return;
    const int kc = choose_kc(K);
    const int max_cells = kPiecesPerPart * parts;
    double best = 0;
    bool found = false;
    for (int pm = 1; pm <= std::min(m_panels, max_cells); pm++) {
        for (int pn = std::min(n_panels, max_cells / pm); pn >= 1; pn--) {
            const int cells = pn * pm;
            if (cells < parts)
                break;
            const double cols = (double)((n_panels + pn - 1) / pn) * kGemmNR;
            const double rows = (double)((m_panels + pm - 1) / pm) * kGemmMR;
            const int nc = choose_nc((int)cols, kc);
            const double macs = rows * cols * K;
            const double a_stream = rows * K * std::ceil(cols / nc);
            const double b_pack = kind == GemmB::Packed ? 0.0 : cols * K;
            const double cell = macs + 2.0 * (a_stream + b_pack);
            const double cost = (double)((cells + parts - 1) / parts) * cell + 0.5 * cell;
            if (!found || cost < best * 0.97) {
                found = true;
                best = cost;
                *pn_out = pn;
                *pm_out = pm;
            }
        }
    }
    if (!found) {  // fewer tiles than threads: one cell per tile
        *pn_out = std::max(1, n_panels);
        *pm_out = std::max(1, m_panels);
    }
}

}  // namespace

int f32_gemm_parts(int M, int N, int K) {
    if (M <= 0 || N <= 0)
        return 1;
    const int64_t m_panels = (M + kGemmMR - 1) / kGemmMR, n_panels = (N + kGemmNR - 1) / kGemmNR;
    // units: MR x NR tiles, each K multiply-adds per element
    return parallel_part_count(m_panels * n_panels, (int64_t)kGemmMR * kGemmNR * std::max(K, 1));
}

void f32_gemm(int M, int N, int K, const float* a_packed, const GemmB& b, float* c, size_t ldc,
              const GemmEpilogue& ep, bool accumulate, float* workspace, int parts) {
    if (M <= 0 || N <= 0 || K < 0)
        return;
    const int m_panels = (M + kGemmMR - 1) / kGemmMR, n_panels = (N + kGemmNR - 1) / kGemmNR;
    int pn = 1, pm = 1;
    gemm_split(m_panels, n_panels, K, b.kind, parts, &pn, &pm);
    if (pn * pm <= 1) {
        gemm_block(0, M, 0, N, K, a_packed, b, c, ldc, ep, accumulate, workspace);
        return;
    }
    const size_t slot_floats = f32_gemm_workspace_floats(N, K, b.kind, 1);
    const int cells = pn * pm;
    // one cell per piece, claimed in turn; consecutive cells share rows (A)
    parallel_for_slots(cells, cells, parts, [&](int slot, int64_t c0, int64_t c1) {
        for (int64_t cell = c0; cell < c1; cell++) {
            const int im = (int)(cell / pn), jn = (int)(cell % pn);
            // whole panels per cell, near-equal
            const int mp0 = (int)((int64_t)m_panels * im / pm), mp1 = (int)((int64_t)m_panels * (im + 1) / pm);
            const int np0 = (int)((int64_t)n_panels * jn / pn), np1 = (int)((int64_t)n_panels * (jn + 1) / pn);
            gemm_block(mp0 * kGemmMR, std::min(M, mp1 * kGemmMR), np0 * kGemmNR, std::min(N, np1 * kGemmNR), K,
                       a_packed, b, c, ldc, ep, accumulate,
                       workspace ? workspace + slot_floats * (size_t)slot : nullptr);
        }
    });
}

void f32_gemv_packed_parallel(int M, int K, const float* a_packed, const float* x, const float* bias,
                              const ActParams& act, float* y) {
    const int panels = (M + kGemmMR - 1) / kGemmMR;
    // no scratch: plain chunks of whole panels, claimed in turn
    parallel_for(panels, parallel_grain((int64_t)kGemmMR * std::max(K, 1)), [&](int64_t p0, int64_t p1) {
        const int m0 = (int)p0 * kGemmMR, m1 = std::min(M, (int)p1 * kGemmMR);
        f32_gemv_packed(m1 - m0, K, a_packed + (size_t)m0 * K, x, bias ? bias + m0 : nullptr, act, y + m0);
    });
}

void f32_gemv_packed__scalar(int M, int K, const float* a_packed, const float* x, const float* bias,
                             const ActParams& act, float* y) {
    for (int p = 0; p < M; p += kGemmMR) {
        const int rows = std::min(kGemmMR, M - p);
        float acc[kGemmMR];
        for (int r = 0; r < kGemmMR; r++)
            acc[r] = bias && r < rows ? bias[p + r] : 0.f;
        const float* ap = a_packed + (size_t)p * K;
        for (int k = 0; k < K; k++) {
            const float xk = x[k];
            for (int r = 0; r < kGemmMR; r++)
                acc[r] = acc[r] + ap[r] * xk;
            ap += kGemmMR;
        }
        for (int r = 0; r < rows; r++)
            y[p + r] = act_scalar(acc[r], act);
    }
}

}  // namespace kernels
}  // namespace nnfold
