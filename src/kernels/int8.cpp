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

void int8_quantize(const float* src, size_t n, float scale, int8_t* dst) {
    for (size_t i = 0; i < n; i++)
        dst[i] = float2int8(src[i] * scale);
}

void int8_conv_sums(const Int8ConvShape& s, const int8_t* src, const int8_t* weight, const int* ofs, int32_t* sums) {
    // Per group: gather the input under each kernel tap into rows of a column matrix (im2col,
    // K = inch_g * maxk rows of out_w * out_h codes; a 1x1 stride-1 window reads the planes as
    // they are), then accumulate weight x row into each output channel's sums. The inner loop runs
    // over contiguous pixels, which the compiler vectorizes; integer sums do not depend on order.
    const int inch_g = s.inch / s.group, outch_g = s.outch / s.group;
    const size_t plane = (size_t)s.padded_w * s.padded_h;
    const size_t out_plane = (size_t)s.out_w * s.out_h;
    const size_t K = (size_t)inch_g * s.maxk;
    const bool direct = s.maxk == 1 && s.stride_w == 1 && s.stride_h == 1 && ofs[0] == 0 &&
                        s.out_w == s.padded_w && s.out_h == s.padded_h;
    std::vector<int8_t> cols(direct ? 0 : K * out_plane);
    for (int g = 0; g < s.group; g++) {
        const int8_t* sbase = src + (size_t)g * inch_g * plane;
        if (!direct) {
            for (int q = 0; q < inch_g; q++)
                for (int k = 0; k < s.maxk; k++) {
                    int8_t* dst = cols.data() + ((size_t)q * s.maxk + k) * out_plane;
                    for (int i = 0; i < s.out_h; i++) {
                        const int8_t* sp = sbase + q * plane + (size_t)i * s.stride_h * s.padded_w + ofs[k];
                        for (int j = 0; j < s.out_w; j++)
                            dst[(size_t)i * s.out_w + j] = sp[(size_t)j * s.stride_w];
                    }
                }
        }
        const int8_t* B = direct ? sbase : cols.data();
        for (int p = g * outch_g; p < (g + 1) * outch_g; p++) {
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

void int8_dot_rows(const int8_t* x, int n, const int8_t* weight, int outch, int32_t* sums) {
    for (int p = 0; p < outch; p++) {
        const int8_t* w = weight + (size_t)p * n;
        int32_t sum = 0;
        for (int i = 0; i < n; i++)
            sum += (int32_t)x[i] * (int32_t)w[i];
        sums[p] = sum;
    }
}

}  // namespace kernels
}  // namespace nnfold
