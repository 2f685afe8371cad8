#include "kernels/int8.h"

#include <cstring>

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
    const int inch_g = s.inch / s.group, outch_g = s.outch / s.group;
    const size_t plane = (size_t)s.padded_w * s.padded_h;
    const size_t out_plane = (size_t)s.out_w * s.out_h;
    for (int p = 0; p < s.outch; p++) {
        const int g = p / outch_g;
        const int8_t* kbase = weight + (size_t)p * inch_g * s.maxk;
        const int8_t* sbase = src + (size_t)g * inch_g * plane;
        int32_t* out = sums + (size_t)p * out_plane;
        for (int i = 0; i < s.out_h; i++) {
            for (int j = 0; j < s.out_w; j++) {
                int32_t sum = 0;
                const int8_t* kp = kbase;
                for (int q = 0; q < inch_g; q++) {
                    const int8_t* sp = sbase + q * plane + (size_t)i * s.stride_h * s.padded_w + (size_t)j * s.stride_w;
                    for (int k = 0; k < s.maxk; k++)
                        sum += (int32_t)sp[ofs[k]] * (int32_t)kp[k];
                    kp += s.maxk;
                }
                out[j] = sum;
            }
            out += s.out_w;
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
