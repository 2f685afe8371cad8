// Scalar twins of the int8 boundary conversions (kernels/int8_quant.h).
#include "kernels/int8_quant.h"

#include <cmath>

#include "kernels/int8.h"

namespace nnfold {
namespace kernels {

void i8_quantize__scalar(const float* src, size_t n, float scale, int8_t* dst) {
    for (size_t i = 0; i < n; i++)
        dst[i] = float2int8(src[i] * scale);
}

void i8_dequantize__scalar(const float* src, size_t n, float scale, const float* bias, float* dst) {
    if (!bias) {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i] * scale;
        return;
    }
    const float b = *bias;
    for (size_t i = 0; i < n; i++)
        dst[i] = std::fma(src[i], scale, b);
}

void i8_requantize__scalar(const float* src, size_t n, float scale_in, const float* bias, const ActParams& act,
                           float scale_out, int8_t* dst) {
    for (size_t i = 0; i < n; i++) {
        const float v = bias ? std::fma(src[i], scale_in, *bias) : src[i] * scale_in;
        dst[i] = float2int8(act_scalar(v, act) * scale_out);
    }
}

}  // namespace kernels
}  // namespace nnfold
