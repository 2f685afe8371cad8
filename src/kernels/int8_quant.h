// The int8 boundary conversions, as ncnn's Quantize, Dequantize and Requantize layers compute them
// (ncnn src/layer/quantize.cpp, dequantize.cpp, requantize.cpp and their x86 forms) and as an int8
// layer quantizes an fp32 input: pure functions over `n` contiguous values with one scale (and
// bias), SIMD-128 in kernels/wasm/int8_quant_wasmsimd.cpp, scalar twins in kernels/int8_quant.cpp,
// the same bits in both.
//   i8_quantize    dst = float2int8(src * scale)
//   i8_dequantize  dst = bias ? fma(src, scale, *bias) : src * scale   (the x86 build's
//                  _mm_comp_fmadd_ps on an FMA CPU: one rounding; SIMD-128 has no FMA, so the SIMD
//                  twin rounds the exact f64 product plus bias once and recomputes the lanes whose
//                  f64 result lies exactly halfway between two floats with std::fma, as i8_store)
//   i8_requantize  v = dequantize as above with scale_in; v = act(v) (types 0..3: none, relu,
//                  leaky relu, clip; callers take the reference path for the others);
//                  dst = float2int8(v * scale_out)
// float2int8: kernels/int8.h (round half away from zero, clamp to [-127, 127], NaN -> 0).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "kernels/dispatch.h"

namespace nnfold {
namespace kernels {

#define NNFOLD_INT8_QUANT_KERNELS(X)                                                                          \
    X(void, i8_quantize, (const float* src, size_t n, float scale, int8_t* dst), (src, n, scale, dst))        \
    X(void, i8_dequantize, (const float* src, size_t n, float scale, const float* bias, float* dst),          \
      (src, n, scale, bias, dst))                                                                             \
    X(void, i8_requantize,                                                                                    \
      (const float* src, size_t n, float scale_in, const float* bias, const ActParams& act, float scale_out,  \
       int8_t* dst),                                                                                          \
      (src, n, scale_in, bias, act, scale_out, dst))
NNFOLD_INT8_QUANT_KERNELS(NF_KERNEL_DECLARE)

}  // namespace kernels
}  // namespace nnfold
