// Depthwise convolution, scalar twins: each channel through a ring of padded rows
// (kernels/window.h), taps in the reference layer's order, as the SIMD kernels
// (wasm/dwconv_wasmsimd.cpp) sum them; the pack4 twins run their block's channels one by one.
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

// A block of up to four channels, one channel at a time with its taps taken out of the packed
// layout (at most 25 for the fixed kernels).
void dwconv_block(const DwBlock4& b) {
    const int taps = b.win.kernel_w * b.win.kernel_h;
    float k[25];
    for (int c = 0; c < b.channels; c++) {
        for (int t = 0; t < taps; t++)
            k[t] = b.kernel[t * 4 + c];
        DwPlane p;
        p.win = b.win;
        p.win.src = b.win.src + c * b.src_stride;
        p.dst = b.dst + c * b.dst_stride;
        p.kernel = k;
        p.bias = b.bias[c];
        p.act = b.act;
        p.scratch = b.scratch;
        dwconv_window(p);
    }
}

}  // namespace

void f32_dwconv_pack4_weights(const float* w, const float* bias, int channels, int taps, float* w4, float* b4) {
    const int blocks = (channels + 3) / 4;
    for (int b = 0; b < blocks; b++)
        for (int c = 0; c < 4; c++) {
            const int ch = b * 4 + c;
            for (int t = 0; t < taps; t++)
                w4[((size_t)b * taps + t) * 4 + c] = ch < channels ? w[(size_t)ch * taps + t] : 0.f;
            b4[b * 4 + c] = ch < channels && bias ? bias[ch] : 0.f;
        }
}

void f32_dwconv3x3s1_pack4__scalar(const DwBlock4& p) { dwconv_block(p); }
void f32_dwconv3x3s2_pack4__scalar(const DwBlock4& p) { dwconv_block(p); }
void f32_dwconv5x5s1_pack4__scalar(const DwBlock4& p) { dwconv_block(p); }
void f32_dwconv5x5s2_pack4__scalar(const DwBlock4& p) { dwconv_block(p); }
void f32_dwconv_general__scalar(const DwPlane& p) { dwconv_window(p); }

}  // namespace kernels
}  // namespace nnfold
