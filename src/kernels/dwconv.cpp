// Depthwise convolution, scalar twins: the same window walk and tap order as the SIMD kernels
// (wasm/dwconv_wasmsimd.cpp) and the reference layer.
#include "kernels/dwconv.h"

#include <vector>

namespace nnfold {
namespace kernels {

namespace {

void dwconv_window(const DwPlane& p, const WindowGeometry& g) {
    int x_lo, x_hi;
    g.interior(x_lo, x_hi);
    std::vector<const float*> rows((size_t)g.kernel_h);
    for (int y = 0; y < g.out_h; y++) {
        for (int i = 0; i < g.kernel_h; i++)
            rows[(size_t)i] = g.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        for (int x = 0; x < g.out_w; x++) {
            float sum;
            if (x < x_lo || x >= x_hi) {
                sum = dw_edge_pixel(g, rows.data(), x, p.kernel, p.bias);
            } else {
                sum = p.bias;
                const int base = x * g.stride_w - g.pad_left;
                for (int i = 0; i < g.kernel_h; i++)
                    for (int j = 0; j < g.kernel_w; j++)
                        sum += rows[(size_t)i][base + j * g.dilation_w] * p.kernel[i * g.kernel_w + j];
            }
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace

void f32_dwconv3x3s1__scalar(const DwPlane& p) { dwconv_window(p, dw_fixed_window(p, 3, 1)); }
void f32_dwconv3x3s2__scalar(const DwPlane& p) { dwconv_window(p, dw_fixed_window(p, 3, 2)); }
void f32_dwconv5x5s1__scalar(const DwPlane& p) { dwconv_window(p, dw_fixed_window(p, 5, 1)); }
void f32_dwconv5x5s2__scalar(const DwPlane& p) { dwconv_window(p, dw_fixed_window(p, 5, 2)); }
void f32_dwconv_general__scalar(const DwPlane& p) { dwconv_window(p, p.win); }

}  // namespace kernels
}  // namespace nnfold
