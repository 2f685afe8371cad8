// Winograd F(4,3) and F(6,3): kernel transform (once per layer), the scalar input/output
// transforms (the twins of wasm/winograd_wasmsimd.cpp, which computes the same expressions on 4
// tiles at a time) and the block driver both layers and benchmarks run.
#include "kernels/winograd.h"

#include <algorithm>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/winograd_tile.h"

namespace nnfold {
namespace kernels {

namespace {

// G (a x 3) in double: the transformed kernels are rounded once
const double kG43[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                           {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
const double kG63[8][3] = {{1, 0, 0},
                           {-2.0 / 9, -2.0 / 9, -2.0 / 9},
                           {-2.0 / 9, 2.0 / 9, -2.0 / 9},
                           {1.0 / 90, 1.0 / 45, 2.0 / 45},
                           {1.0 / 90, -1.0 / 45, 2.0 / 45},
                           {1.0 / 45, 1.0 / 90, 1.0 / 180},
                           {1.0 / 45, -1.0 / 90, 1.0 / 180},
                           {0, 0, 1}};

template <class F>
void transform_input_scalar(const WinogradInput& in, int t0, int nt, float* v) {
    constexpr int P = F::a * F::a;
    const size_t pos_stride = packed_b_floats(in.inch, nt);
    for (int q = in.q_begin; q < in.channel_end(); q++) {
        const float* plane = in.src + (size_t)q * in.in_plane;
        for (int i = 0; i < nt; i++) {
            const int t = t0 + i;
            const int ty = t / in.tiles_w, tx = t % in.tiles_w;
            wino::input_tile<F>(plane + (size_t)ty * F::m * in.in_w + (size_t)tx * F::m, in.in_w,
                                v + (size_t)(i / 8) * in.inch * 8 + (size_t)q * 8 + (i % 8), pos_stride);
        }
    }
    winograd_zero_panel_tail(P, in.inch, nt, v, in.q_begin, in.channel_end());
}

template <class F>
void transform_output_scalar(const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt) {
    const size_t pos_stride = (size_t)out.outch * ldm;
    const size_t out_plane = (size_t)out.out_w * out.out_h;
    for (int o = 0; o < out.outch; o++) {
        const float bias = out.bias ? out.bias[o] : 0.f;
        float* dplane = out.dst + (size_t)o * out_plane;
        for (int i = 0; i < nt; i++) {
            const int t = t0 + i;
            const int ty = t / out.tiles_w, tx = t % out.tiles_w;
            const int rows = std::min(F::m, out.out_h - ty * F::m), cols = std::min(F::m, out.out_w - tx * F::m);
            wino::output_tile<F>(m + (size_t)o * ldm + i, pos_stride,
                                 dplane + (size_t)ty * F::m * out.out_w + tx * F::m, out.out_w, rows, cols, bias,
                                 out.act);
        }
    }
}

}  // namespace

size_t winograd_u_floats(Winograd f, int outch, int inch) {
    return (size_t)winograd_positions(f) * packed_a_floats(outch, inch);
}

void winograd_transform_kernel(Winograd f, const float* weights, int outch, int inch, float* u) {
    const int A = winograd_a(f), P = A * A;
    const double* G = f == Winograd::F43 ? &kG43[0][0] : &kG63[0][0];
    // U[p][o][q] in plain layout, then packed per position
    std::vector<float> plain((size_t)P * outch * inch);
    std::vector<double> tmp((size_t)A * 3);  // G g
    for (int o = 0; o < outch; o++)
        for (int q = 0; q < inch; q++) {
            const float* g = weights + ((size_t)o * inch + q) * 9;
            for (int i = 0; i < A; i++)
                for (int j = 0; j < 3; j++)
                    tmp[i * 3 + j] = G[i * 3 + 0] * g[0 * 3 + j] + G[i * 3 + 1] * g[1 * 3 + j] + G[i * 3 + 2] * g[2 * 3 + j];
            for (int i = 0; i < A; i++)
                for (int j = 0; j < A; j++) {
                    // (G g) G^T
                    double v = tmp[i * 3 + 0] * G[j * 3 + 0] + tmp[i * 3 + 1] * G[j * 3 + 1] + tmp[i * 3 + 2] * G[j * 3 + 2];
                    plain[((size_t)(i * A + j) * outch + o) * inch + q] = (float)v;
                }
        }
    const size_t per_pos = packed_a_floats(outch, inch);
    for (int p = 0; p < P; p++)
        f32_pack_a(outch, inch, plain.data() + (size_t)p * outch * inch, inch, 1, u + p * per_pos);
}

void winograd_zero_panel_tail(int positions, int inch, int nt, float* v, int q_begin, int q_end) {
    if (nt % 8 == 0)
        return;
    const size_t pos_stride = packed_b_floats(inch, nt);
    for (int p = 0; p < positions; p++)
        for (int q = q_begin; q < q_end; q++)
            for (int i = nt % 8; i < 8; i++)
                v[(size_t)p * pos_stride + (size_t)(nt / 8) * inch * 8 + (size_t)q * 8 + i] = 0.f;
}

void winograd43_transform_input__scalar(const WinogradInput& in, int t0, int nt, float* v) {
    transform_input_scalar<wino::F43>(in, t0, nt, v);
}
void winograd63_transform_input__scalar(const WinogradInput& in, int t0, int nt, float* v) {
    transform_input_scalar<wino::F63>(in, t0, nt, v);
}
void winograd43_transform_output__scalar(const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt) {
    transform_output_scalar<wino::F43>(m, ldm, out, t0, nt);
}
void winograd63_transform_output__scalar(const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt) {
    transform_output_scalar<wino::F63>(m, ldm, out, t0, nt);
}

int winograd_tile_block(Winograd f, int inch, int outch, int ntiles) {
    const size_t P = (size_t)winograd_positions(f);
    int tb = (int)((size_t)(128 * 1024) / (P * (size_t)(inch + outch))) / 8 * 8;
    if (winograd_u_floats(f, outch, inch) * sizeof(float) > ((size_t)2 << 20))
        tb = std::max(tb, 32 * 1024 / inch / 8 * 8);
    tb = std::max(tb, 8);
    return std::min(tb, (ntiles + 7) / 8 * 8);
}

bool winograd_split_by_channel(int ntiles, int tb, int outch, int parts) {
    if (parts <= 1)
        return false;
    const int64_t panels = (ntiles + 7) / 8, blocks = (ntiles + tb - 1) / tb;
    if (blocks >= 2 * (int64_t)parts)
        return false;
    if (blocks < parts)
        return true;
    // the largest part's work in (8-tile panel) x (MR output channels) units
    const int64_t opanels = (outch + kGemmMR - 1) / kGemmMR;
    const int64_t by_tiles = (panels + parts - 1) / parts * opanels;
    const int64_t by_channel = panels * ((opanels + parts - 1) / parts);
    return by_channel * 10 < by_tiles * 9;
}

size_t winograd_block_floats(Winograd f, int inch, int outch, int nt) {
    const size_t P = (size_t)winograd_positions(f);
    return P * packed_b_floats(inch, nt) + P * outch * (size_t)nt;
}

void winograd_block_outputs(Winograd f, const float* u, int inch, const float* v, const WinogradOutput& out, int t0,
                            int nt, int o0, int o1, float* m) {
    const int P = winograd_positions(f), outch = out.outch, rows = o1 - o0;
    const size_t v_stride = packed_b_floats(inch, nt), u_stride = packed_a_floats(outch, inch);
    // position-major: one position's V slice (inch x nt) stays in cache while its U panels stream;
    // rows o0.. of a packed A start at o0 * inch (whole MR panels)
    const GemmEpilogue plain;
    for (int pos = 0; pos < P; pos++) {
        GemmB b;
        b.kind = GemmB::Packed;
        b.data = v + pos * v_stride;
        f32_gemm(rows, nt, inch, u + pos * u_stride + (size_t)o0 * inch, b, m + (size_t)pos * rows * nt, (size_t)nt,
                 plain, false, nullptr);
    }
    // the slice's output channels as a layer of o1 - o0 channels (M positions rows * nt apart)
    WinogradOutput slice = out;
    slice.dst = out.dst + (size_t)o0 * out.out_w * out.out_h;
    slice.bias = out.bias ? out.bias + o0 : nullptr;
    slice.outch = rows;
    if (f == Winograd::F43)
        winograd43_transform_output(m, (size_t)nt, slice, t0, nt);
    else
        winograd63_transform_output(m, (size_t)nt, slice, t0, nt);
}

void winograd_conv_block(Winograd f, const float* u, const WinogradInput& in, const WinogradOutput& out, int t0,
                         int nt, float* ws) {
    float* V = ws;
    float* M = ws + (size_t)winograd_positions(f) * packed_b_floats(in.inch, nt);
    if (f == Winograd::F43)
        winograd43_transform_input(in, t0, nt, V);
    else
        winograd63_transform_input(in, t0, nt, V);
    winograd_block_outputs(f, u, in.inch, V, out, t0, nt, 0, out.outch, M);
}

}  // namespace kernels
}  // namespace nnfold
