// Scalar twin of the int8 depthwise kernel (kernels/int8_dw.h; SIMD form in
// kernels/wasm/int8_dw_wasmsimd.cpp).
#include "kernels/int8_dw.h"

#include <cstring>

namespace nnfold {
namespace kernels {

void i8_dwconv__scalar(const Int8DwPlane& p, const Int8Out& o) {
    for (int y = 0; y < p.out_h; y++) {
        const int8_t* row = p.src + (size_t)y * p.stride_h * p.padded_w;
        for (int x = 0; x < p.out_w; x++) {
            const int8_t* s = row + (size_t)x * p.stride_w;
            int32_t sum = 0;
            for (int t = 0; t < p.maxk; t++)
                sum += (int32_t)s[p.ofs[t]] * p.kernel[t];
            p.rowsums[x] = sum;
        }
        i8_store__scalar(o, p.channel, (size_t)y * p.out_w, p.rowsums, (size_t)p.out_w);
    }
}

void i8_pad_plane__scalar(const int8_t* src, const Int8PadPlane& g, int8_t* dst) {
    const size_t pw = (size_t)g.padded_w;
    std::memset(dst, g.pad, (size_t)g.top * pw);
    const size_t below = (size_t)(g.top + g.h) * pw;
    std::memset(dst + below, g.pad, (size_t)g.padded_h * pw - below);
    for (int y = 0; y < g.h; y++) {
        int8_t* d = dst + (size_t)(y + g.top) * pw;
        std::memset(d, g.pad, (size_t)g.left);
        std::memcpy(d + g.left, src + (size_t)y * g.w, (size_t)g.w);
        std::memset(d + g.left + g.w, g.pad, pw - (size_t)g.left - (size_t)g.w);
    }
}

}  // namespace kernels
}  // namespace nnfold
