// Depthwise convolution, scalar twins: the same padded-row ring and tap order as the SIMD kernels
// (wasm/dwconv_wasmsimd.cpp) and the reference layer.
#include "kernels/dwconv.h"

namespace nnfold {
namespace kernels {

namespace {

void dwconv_window(const DwPlane& p) {
    const WindowGeometry& g = p.win;
    RowRing ring(g, p.scratch, dw_ring_slots(g));
    const float* rows[kMaxRingRows];
    for (int y = 0; y < g.out_h; y++) {
        for (int i = 0; i < g.kernel_h; i++)
            rows[i] = ring.row(y, i);
        float* out = p.dst + (size_t)y * g.out_w;
        for (int x = 0; x < g.out_w; x++) {
            float sum = p.bias;
            for (int i = 0; i < g.kernel_h; i++)
                for (int j = 0; j < g.kernel_w; j++)
                    sum += rows[i][x * g.stride_w + j * g.dilation_w] * p.kernel[i * g.kernel_w + j];
            out[x] = act_scalar(sum, p.act);
        }
    }
}

}  // namespace

void f32_dwconv3x3s1__scalar(const DwPlane& p) { dwconv_window(p); }
void f32_dwconv3x3s2__scalar(const DwPlane& p) { dwconv_window(p); }
void f32_dwconv5x5s1__scalar(const DwPlane& p) { dwconv_window(p); }
void f32_dwconv5x5s2__scalar(const DwPlane& p) { dwconv_window(p); }
void f32_dwconv_general__scalar(const DwPlane& p) { dwconv_window(p); }

}  // namespace kernels
}  // namespace nnfold
