#include "kernels/int8.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/int8_rcp_table.h"

namespace nnfold {
namespace kernels {

float x86_rcp(float x) {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    const int e = (int)((b >> 23) & 0xff) - 127;
    if (e < -125 || e > 125)  // the result (or the input) would not be a normal float
        return 1.f / x;
    const uint32_t rb = 0x3f000000u + ((uint32_t)kX86RcpTable[(b >> 11) & 0xfff] << 11);
    float r;
    std::memcpy(&r, &rb, 4);
    r = std::ldexp(r, -e);
    return (b >> 31) ? -r : r;
}

void int8_conv_sums(const Int8ConvShape& s, const int8_t* src, const int8_t* weight, const int* ofs, int8_t* cols,
                    int32_t* sums, int p_begin, int p_end) {
    // Per group: gather the input under each kernel tap into rows of a column matrix (im2col,
    // K = inch_g * maxk rows of out_w * out_h codes; a 1x1 stride-1 window reads the planes as
    // they are), then accumulate weight x row into each output channel's sums. The inner loop runs
    // over contiguous pixels, which the compiler vectorizes; integer sums do not depend on order.
    const int inch_g = s.inch / s.group, outch_g = s.outch / s.group;
    const size_t plane = (size_t)s.padded_w * s.padded_h;
    const size_t out_plane = (size_t)s.out_w * s.out_h;
    const size_t K = (size_t)inch_g * s.maxk;
    const bool direct = int8_conv_direct(s, ofs);
    if (p_end < 0 || p_end > s.outch)
        p_end = s.outch;
    if (p_begin >= p_end)
        return;
    for (int g = p_begin / outch_g; g <= (p_end - 1) / outch_g; g++) {
        const int8_t* sbase = src + (size_t)g * inch_g * plane;
        if (!direct) {
            for (int q = 0; q < inch_g; q++)
                for (int k = 0; k < s.maxk; k++) {
                    int8_t* dst = cols + ((size_t)q * s.maxk + k) * out_plane;
                    for (int i = 0; i < s.out_h; i++) {
                        const int8_t* sp = sbase + q * plane + (size_t)i * s.stride_h * s.padded_w + ofs[k];
                        for (int j = 0; j < s.out_w; j++)
                            dst[(size_t)i * s.out_w + j] = sp[(size_t)j * s.stride_w];
                    }
                }
        }
        const int8_t* B = direct ? sbase : cols;
        for (int p = std::max(p_begin, g * outch_g); p < std::min(p_end, (g + 1) * outch_g); p++) {
            int32_t* out = sums + (size_t)p * out_plane;
            std::fill(out, out + out_plane, 0);
            const int8_t* kp = weight + (size_t)p * K;
            for (size_t k = 0; k < K; k++) {
                const int32_t wv = kp[k];
                if (wv == 0)
                    continue;
                const int8_t* b = B + k * out_plane;
                for (size_t j = 0; j < out_plane; j++)
                    out[j] += wv * (int32_t)b[j];
            }
        }
    }
}

}  // namespace kernels
}  // namespace nnfold

// ---- Fast int8 kernels: scalar twins (kernels/wasm/int8_wasmsimd.cpp is the SIMD form).

namespace nnfold {
namespace kernels {

namespace {
template <class T>
void pack_a_rows(int M, int K, const T* a, int16_t* dst) {
    const int Kp = (K + 1) / 2 * 2;
    for (int mb = 0; mb < (M + 3) / 4; mb++)
        for (int kp = 0; kp < Kp / 2; kp++)
            for (int i = 0; i < 4; i++)
                for (int r = 0; r < 2; r++) {
                    const int m = mb * 4 + i, k = kp * 2 + r;
                    *dst++ = (m < M && k < K) ? (int16_t)a[(size_t)m * K + k] : (int16_t)0;
                }
}
}  // namespace

void i8_pack_a(int M, int K, const int8_t* a, int16_t* dst) { pack_a_rows(M, K, a, dst); }
void i8_pack_a(int M, int K, const int16_t* a, int16_t* dst) { pack_a_rows(M, K, a, dst); }

// ---- int8 Winograd F(2x2, 3x3) (kernels/int8.h): transforms shared by both builds, and the
// scalar twins of i8_wino_input and i16_gemm.

void i8_wino_transform_kernel(const int8_t* weights, int outch, int inch, int16_t* u) {
    static const int G[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
    const size_t per_pos = i8_packed_a_count(outch, inch);
    std::vector<int16_t> rows((size_t)16 * outch * inch);  // [p][o][c] before packing
    for (int o = 0; o < outch; o++)
        for (int c = 0; c < inch; c++) {
            const int8_t* g = weights + ((size_t)o * inch + c) * 9;
            int t[4][3];  // G' g
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 3; j++)
                    t[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)  // (G' g) G'^T, |value| <= 9 * 127
                    rows[((size_t)(i * 4 + j) * outch + o) * inch + c] =
                        (int16_t)(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
        }
    for (int p = 0; p < 16; p++)
        i8_pack_a(outch, inch, rows.data() + (size_t)p * outch * inch, u + (size_t)p * per_pos);
}

void i8_wino_input_tile(const Int8WinoInput& in, int tt, int t, int nt, int16_t* v) {
    const size_t per_pos = i16_packed_b_count(in.inch, nt), plane = (size_t)in.padded_w * in.padded_h;
    const int ty = tt / in.tiles_w * 2, tx = tt % in.tiles_w * 2;
    for (int c = 0; c < in.inch; c++) {
        const int8_t* s = in.src + (size_t)c * plane;
        int d[4][4];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                const int y = ty + i, x = tx + j;
                d[i][j] = y < in.padded_h && x < in.padded_w ? s[(size_t)y * in.padded_w + x] : 0;
            }
        int w[4][4];  // B^T d
        for (int j = 0; j < 4; j++) {
            w[0][j] = d[0][j] - d[2][j];
            w[1][j] = d[1][j] + d[2][j];
            w[2][j] = d[2][j] - d[1][j];
            w[3][j] = d[1][j] - d[3][j];
        }
        // (B^T d) B, into position p's panel at column t, row c
        const size_t at = ((size_t)(t / 8) * ((in.inch + 1) / 2) + (size_t)(c / 2)) * 16 + (size_t)(t % 8) * 2 + c % 2;
        for (int i = 0; i < 4; i++) {
            const int r[4] = {w[i][0] - w[i][2], w[i][1] + w[i][2], w[i][2] - w[i][1], w[i][1] - w[i][3]};
            for (int j = 0; j < 4; j++)
                v[(size_t)(i * 4 + j) * per_pos + at] = (int16_t)r[j];
        }
    }
}

void i8_wino_output_tile(const int32_t* m, int tt, int t, int nt, int o, int y0, const Int8WinoOutput& out) {
    const size_t pstride = (size_t)out.outch * nt;
    const int32_t* mo = m + (size_t)o * nt + t;
    uint32_t v[16];  // unsigned: the sums wrap modulo 2^32
    for (int p = 0; p < 16; p++)
        v[p] = (uint32_t)mo[(size_t)p * pstride];
    uint32_t a[2][4];  // A^T M
    for (int j = 0; j < 4; j++) {
        a[0][j] = v[j] + v[4 + j] + v[8 + j];
        a[1][j] = v[4 + j] - v[8 + j] - v[12 + j];
    }
    const int ty = tt / out.tiles_w * 2, tx = tt % out.tiles_w * 2;
    for (int i = 0; i < 2 && ty + i < out.out_h; i++) {
        const uint32_t r0 = a[i][0] + a[i][1] + a[i][2], r1 = a[i][1] - a[i][2] - a[i][3];
        int32_t* row = out.sums + (size_t)o * out.ld + (size_t)(ty + i - y0) * out.out_w + tx;
        row[0] = (int32_t)r0 >> 2;  // 4 x the sum, which fits: exact
        if (tx + 1 < out.out_w)
            row[1] = (int32_t)r1 >> 2;
    }
}

void i8_wino_input__scalar(const Int8WinoInput& in, int t0, int nt, int16_t* v) {
    std::memset(v, 0, i16_packed_b_count(in.inch, nt) * 16 * sizeof(int16_t));
    for (int t = 0; t < nt; t++)
        i8_wino_input_tile(in, t0 + t, t, nt, v);
}

void i8_wino_output__scalar(const int32_t* m, int t0, int nt, const Int8WinoOutput& out) {
    const int y0 = (t0 / out.tiles_w) * 2;
    for (int o = 0; o < out.outch; o++)
        for (int t = 0; t < nt; t++)
            i8_wino_output_tile(m, t0 + t, t, nt, o, y0, out);
}

void i16_gemm__scalar(int M, int N, int K, const int16_t* pa, const int16_t* pb, int32_t* c, size_t ldc) {
    const int Kp2 = (K + 1) / 2;
    for (int mb = 0; mb < (M + 3) / 4; mb++) {
        const int16_t* a = pa + (size_t)mb * Kp2 * 8;
        for (int nb = 0; nb < (N + 7) / 8; nb++) {
            const int16_t* b = pb + (size_t)nb * Kp2 * 16;
            uint32_t acc[4][8] = {};  // wrapping sums
            for (int kp = 0; kp < Kp2; kp++) {
                const int16_t* ak = a + (size_t)kp * 8;
                const int16_t* bk = b + (size_t)kp * 16;
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 8; j++)
                        acc[i][j] += (uint32_t)((int32_t)ak[i * 2] * bk[j * 2]) + (uint32_t)((int32_t)ak[i * 2 + 1] * bk[j * 2 + 1]);
            }
            for (int i = 0; i < 4 && mb * 4 + i < M; i++)
                for (int j = 0; j < 8 && nb * 8 + j < N; j++)
                    c[(size_t)(mb * 4 + i) * ldc + nb * 8 + j] = (int32_t)acc[i][j];
        }
    }
}

void i8_pack_b__scalar(int K, int N, const Int8BSource& b, int8_t* dst) {
    const int Kp2 = (K + 1) / 2;
    Int8BCursor cur(b);
    for (int nb = 0; nb < (N + 7) / 8; nb++) {
        size_t pix[8];
        bool in_row;
        const int valid = i8_block_pixels(N, b, nb, cur, pix, in_row);
        // the 8 pixels are 8 consecutive bytes (one output row, stride 1): copy runs, which the
        // compiler vectorizes, instead of gathering byte by byte
        const bool run = in_row && b.col_step == 1;
        int8_t* d = dst + (size_t)nb * Kp2 * 16;
        for (int kp = 0; kp < Kp2; kp++, d += 16) {
            const int k0 = kp * 2, k1 = kp * 2 + 1;
            const int8_t* s0 = b.src + b.kofs[k0];
            const int8_t* s1 = k1 < K ? b.src + b.kofs[k1] : nullptr;
            if (run) {
                const int8_t* r0 = s0 + pix[0];
                for (int j = 0; j < 8; j++)
                    d[j * 2] = r0[j];
                if (s1) {
                    const int8_t* r1 = s1 + pix[0];
                    for (int j = 0; j < 8; j++)
                        d[j * 2 + 1] = r1[j];
                } else {
                    for (int j = 0; j < 8; j++)
                        d[j * 2 + 1] = 0;
                }
                continue;
            }
            for (int j = 0; j < 8; j++) {
                d[j * 2] = j < valid ? s0[pix[j]] : (int8_t)0;
                d[j * 2 + 1] = j < valid && s1 ? s1[pix[j]] : (int8_t)0;
            }
        }
    }
}

void i8_store__scalar(const Int8Out& o, int m, size_t col, const int32_t* sums, size_t n) {
    const float scale = o.scale_in[m];
    const float bias = o.bias ? o.bias[m] : 0.f;
    const size_t base = (size_t)m * o.ld + col;
    for (size_t i = 0; i < n; i++) {
        const float v = act_scalar(i8_dequant_value(sums[i], scale, bias, o.fused_bias), o.act);
        if (o.q)
            o.q[base + i] = float2int8(v * o.top_scale);
        else
            o.f[base + i] = v;
    }
}

void i8_gemm__scalar(int M, int N, int K, const int16_t* pa, const int8_t* pb, const Int8Out& o) {
    const int Kp2 = (K + 1) / 2;
    for (int mb = 0; mb < (M + 3) / 4; mb++) {
        const int16_t* a = pa + (size_t)mb * Kp2 * 8;
        for (int nb = 0; nb < (N + 7) / 8; nb++) {
            const int8_t* b = pb + (size_t)nb * Kp2 * 16;
            const int ncols = N - nb * 8 < 8 ? N - nb * 8 : 8;
            int32_t acc[4][8] = {};
            for (int kp = 0; kp < Kp2; kp++) {
                const int16_t* ak = a + (size_t)kp * 8;
                const int8_t* bk = b + (size_t)kp * 16;
                // the pair split into two contiguous rows, so the compiler vectorizes over j
                int16_t b0[8], b1[8];
                for (int j = 0; j < 8; j++) {
                    b0[j] = bk[j * 2];
                    b1[j] = bk[j * 2 + 1];
                }
                for (int i = 0; i < 4; i++) {
                    const int16_t a0 = ak[i * 2], a1 = ak[i * 2 + 1];
                    for (int j = 0; j < 8; j++)
                        acc[i][j] += (int32_t)(a0 * b0[j]) + (int32_t)(a1 * b1[j]);
                }
            }
            for (int i = 0; i < 4 && mb * 4 + i < M; i++)
                i8_store__scalar(o, mb * 4 + i, (size_t)nb * 8, acc[i], (size_t)ncols);
        }
    }
}

namespace {
// Where code (p, i) of the weights lies in i8_dot_rows's interleaved layout (kernels/int8.h).
size_t interleaved_at(int n, int outch, int p, int i) {
    if (p >= outch / 4 * 4)
        return (size_t)p * n + i;  // the last rows: row-major
    const size_t block = (size_t)(p / 4) * 4 * n;
    const int n16 = n / 16 * 16, r = p % 4;
    if (i < n16)
        return block + (size_t)(i / 16) * 64 + r * 16 + i % 16;
    return block + (size_t)4 * n16 + (size_t)r * (n - n16) + (i - n16);
}
}  // namespace

void i8_interleave_rows(int8_t* weight, int n, int outch) {
    std::vector<int8_t> rows((size_t)4 * n);
    for (int p = 0; p + 4 <= outch; p += 4) {
        int8_t* block = weight + (size_t)p * n;
        std::memcpy(rows.data(), block, rows.size());
        for (int r = 0; r < 4; r++)
            for (int i = 0; i < n; i++)
                block[interleaved_at(n, outch, r, i)] = rows[(size_t)r * n + i];  // block-relative (p = r)
    }
}

void i8_dot_rows__scalar(const int8_t* x, int n, const int8_t* weight, int outch, bool interleaved, int32_t* sums) {
    for (int p = 0; p < outch; p++) {
        int32_t sum = 0;
        for (int i = 0; i < n; i++)
            sum += (int32_t)x[i] * (int32_t)weight[interleaved ? interleaved_at(n, outch, p, i) : (size_t)p * n + i];
        sums[p] = sum;
    }
}

void i8_dequant_each__scalar(const int32_t* sums, int n, const float* scale, const float* bias, bool fused_bias,
                             const ActParams& act, float* out) {
    for (int i = 0; i < n; i++)
        out[i] = act_scalar(i8_dequant_value(sums[i], scale[i], bias ? bias[i] : 0.f, fused_bias), act);
}

}  // namespace kernels
}  // namespace nnfold
