// int8 arithmetic as ncnn computes it for the models ncnn2int8 writes (scalar; pure functions).
//
// ncnn (src/layer/convolution.cpp, convolutiondepthwise.cpp, innerproduct.cpp forward_int8,
// src/layer/quantize.cpp, requantize.cpp, src/layer/x86/x86_usability.h float2int8) computes an
// int8 layer in three steps:
//   1. quantize the fp32 input: code = float2int8(x * bottom_scale), unless the input already
//      is int8 (the output of an int8 layer with int8_scale_term > 100);
//   2. sum code x weight code in int32 (exact, so any summation order gives the same sum);
//   3. v = sum * scale_in + bias, with scale_in = 1 / (bottom_scale * weight_scale) computed in
//      float (0 when the weight scale is 0); v = activation(v); then either the float v is the
//      output (dequantize) or float2int8(v * top_scale) is (requantize, int8_scale_term > 100).
// Steps 1 and 2 are here; step 3 needs the layer's activation and is in layers/int8_layers.h.
// float2int8 rounds half away from zero (C round()) and clamps to [-127, 127]. This is not the
// round-half-to-even of wasm's f32x4.nearest or of x86's default cvtps: SIMD twins must add
// +-0.5 and truncate, as ncnn's float2int8_sse does.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace nnfold {
namespace kernels {

// ncnn's float2int8: round half away from zero, clamp to [-127, 127]. NaN gives 0 (ncnn's scalar
// form casts NaN to int, which C++ leaves undefined).
inline int8_t float2int8(float v) {
    float r = std::round(v);
    if (r > 127.f)
        return 127;
    if (r < -127.f)
        return -127;
    if (r != r)
        return 0;
    return (int8_t)(int)r;
}

// scale_in of ncnn's dequantize step: 1 / (bottom_scale * weight_scale) in float, 0 for a zero
// weight scale (a channel whose weights are all zero).
inline float int8_scale_in(float bottom_scale, float weight_scale) {
    return weight_scale == 0.f ? 0.f : 1.f / (bottom_scale * weight_scale);
}

// The 12-bit reciprocal ncnn's x86 build takes instead of 1 / x in one place (ConvolutionDepthWise
// with a multiple of 8 channels: _mm_rcp_ps of bottom_scale * weight_scale), bit for bit as the
// CPU of ncnn's oracle computes it (kernels/int8_rcp_table.h), so every build gives ncnn's codes.
// Inputs outside the table's range (zero, subnormal, huge, inf, NaN) give 1 / x.
float x86_rcp(float x);

// dst[i] = float2int8(src[i] * scale).
void int8_quantize(const float* src, size_t n, float scale, int8_t* dst);

// Grouped int8 convolution sums (ncnn's forward_int8 loops; Convolution is group 1, a depthwise
// layer is group == channels == num_output). `src` holds the padded input planes
// [inch][padded_h][padded_w]; `weight` is [group][outch/group][inch/group][kernel_h][kernel_w];
// `ofs` are the kernel tap offsets in the padded plane (kernel_offsets). sums is
// [outch][out_h][out_w].
struct Int8ConvShape {
    int inch = 0, outch = 0, group = 1;
    int padded_w = 0, padded_h = 0;
    int out_w = 0, out_h = 0;
    int stride_w = 1, stride_h = 1;
    int maxk = 1;
};
void int8_conv_sums(const Int8ConvShape& s, const int8_t* src, const int8_t* weight, const int* ofs, int32_t* sums);

// InnerProduct sums: sums[p] = sum_i x[i] * weight[p * n + i] for p < outch.
void int8_dot_rows(const int8_t* x, int n, const int8_t* weight, int outch, int32_t* sums);

}  // namespace kernels
}  // namespace nnfold
