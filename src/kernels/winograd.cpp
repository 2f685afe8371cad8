// Winograd F(4,3): kernel transform (once per layer) and the scalar input/output transforms (the
// twins of wasm/winograd_wasmsimd.cpp, which computes the same expressions on 4 tiles at a time).
#include "kernels/winograd.h"

#include <algorithm>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/winograd_tile.h"

namespace nnfold {
namespace kernels {

size_t winograd43_u_floats(int outch, int inch) { return 36 * packed_a_floats(outch, inch); }

void winograd43_transform_kernel(const float* weights, int outch, int inch, float* u) {
    // G (6x3) in double: the transformed kernels are rounded once
    static const double G[6][3] = {{1.0 / 4, 0, 0},
                                   {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                   {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                   {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                   {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                   {0, 0, 1}};
    // U[p][o][q] in plain layout, then packed per position
    std::vector<float> plain((size_t)36 * outch * inch);
    for (int o = 0; o < outch; o++)
        for (int q = 0; q < inch; q++) {
            const float* g = weights + ((size_t)o * inch + q) * 9;
            double tmp[6][3];  // G g
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 3; j++)
                    tmp[i][j] = G[i][0] * g[0 * 3 + j] + G[i][1] * g[1 * 3 + j] + G[i][2] * g[2 * 3 + j];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    double v = tmp[i][0] * G[j][0] + tmp[i][1] * G[j][1] + tmp[i][2] * G[j][2];  // (G g) G^T
                    plain[((size_t)(i * 6 + j) * outch + o) * inch + q] = (float)v;
                }
        }
    const size_t per_pos = packed_a_floats(outch, inch);
    for (int p = 0; p < 36; p++)
        f32_pack_a(outch, inch, plain.data() + (size_t)p * outch * inch, inch, 1, u + p * per_pos);
}

void winograd43_transform_input__scalar(const WinogradInput& in, int t0, int nt, float* v) {
    const size_t pos_stride = packed_b_floats(in.inch, nt);
    for (int q = 0; q < in.inch; q++) {
        const float* plane = in.src + (size_t)q * in.in_plane;
        for (int i = 0; i < nt; i++) {
            const int t = t0 + i;
            const int ty = t / in.tiles_w, tx = t % in.tiles_w;
            wino::input_tile(plane + (size_t)ty * 4 * in.in_w + (size_t)tx * 4, in.in_w,
                             v + (size_t)(i / 8) * in.inch * 8 + (size_t)q * 8 + (i % 8), pos_stride);
        }
    }
    winograd43_zero_panel_tail(in.inch, nt, v);
}

void winograd43_zero_panel_tail(int inch, int nt, float* v) {
    if (nt % 8 == 0)
        return;
    const size_t pos_stride = packed_b_floats(inch, nt);
    for (int p = 0; p < 36; p++)
        for (int q = 0; q < inch; q++)
            for (int i = nt % 8; i < 8; i++)
                v[(size_t)p * pos_stride + (size_t)(nt / 8) * inch * 8 + (size_t)q * 8 + i] = 0.f;
}

void winograd43_transform_output__scalar(const float* m, size_t ldm, const WinogradOutput& out, int t0, int nt) {
    const size_t pos_stride = (size_t)out.outch * ldm;
    const size_t out_plane = (size_t)out.out_w * out.out_h;
    for (int o = 0; o < out.outch; o++) {
        const float bias = out.bias ? out.bias[o] : 0.f;
        float* dplane = out.dst + (size_t)o * out_plane;
        for (int i = 0; i < nt; i++) {
            const int t = t0 + i;
            const int ty = t / out.tiles_w, tx = t % out.tiles_w;
            const int rows = std::min(4, out.out_h - ty * 4), cols = std::min(4, out.out_w - tx * 4);
            wino::output_tile(m + (size_t)o * ldm + i, pos_stride, dplane + (size_t)ty * 4 * out.out_w + tx * 4,
                              out.out_w, rows, cols, bias, out.act);
        }
    }
}

}  // namespace kernels
}  // namespace nnfold
