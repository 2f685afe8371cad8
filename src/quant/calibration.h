// The calibration arithmetic of ncnn's tools/quantize/ncnn2table.cpp as pure functions over weights,
// histograms and activations, so that each can be checked against hand-computed values
// (tests/cpp/quant). The driver (quantize.cpp) feeds them from fp32 runs of the model.
//
// ncnn2table computes, per Convolution / ConvolutionDepthWise / InnerProduct layer:
//   - weight scales, one per output channel (per group for ConvolutionDepthWise):
//       KL, EQ: 127 / absmax(row), or 31 / absmax(row) for a 3x3, stride 1, dilation 1
//               Convolution ("int8 winograd F43 needs weight data to use 6bit quantization");
//       ACIQ:   127 / aciq_clip(absmax, row size, 8 bits) (31 / ... with 6 bits for that 3x3 case);
//   - one bottom blob scale, 127 / threshold, from the layer's fp32 input over the calibration set:
//       KL:   the absmax over the set, then a 2048-bin histogram of |x| (zeros skipped), then the
//             threshold bin in [128, 2048) whose clipped distribution is closest (KL divergence) to
//             its 128-level quantization; threshold = (bin + 0.5) * absmax / 2048;
//       ACIQ: threshold = aciq_clip(absmax over the set, element count of the blob, 8 bits);
//       EQ:   KL's scales, then each weight scale and the bottom scale searched in 100 steps over
//             [0.5, 2) x scale for the highest mean cosine similarity of the layer's int8 output to
//             its fp32 output (at most 50 samples; eq_search below, driven by quantize.cpp).
// Float types follow ncnn's (float sums, a double only where ncnn has one), so the same inputs
// give the same scales.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace nnfold {
namespace quant {

constexpr int kHistogramBins = 2048;  // ncnn2table num_histogram_bins
constexpr int kKlTargetBins = 128;    // ncnn2table target_bin

// max |x| over n values (0 for none).
float absmax(const float* x, size_t n);

// Per-row weight scales: `rows` rows of `row_size` values each, scale = qmax / absmax(row), where
// qmax is 127 (8 bits) or 31 (ncnn's 6-bit case). A row of zeros gets 1 (ncnn2table would divide
// by zero; 1 quantizes the zeros to 0 codes and dequantizes to exactly the bias, as the fp32 layer).
std::vector<float> weight_scales_absmax(const float* w, int rows, int row_size, int qmax);

// ncnn2table compute_aciq_gaussian_clip: alpha[num_bits] * absmax * 2 * gaussian_const /
// sqrt(2 ln N), gaussian_const = 0.175 * (1 + sqrt(pi ln 4)), in double, returned as float.
float aciq_clip(float absmax, int n, int num_bits = 8);
// ACIQ weight scales: qmax / aciq_clip(absmax(row), row_size, bits) with bits 8 (qmax 127) or
// 6 (qmax 31). A row of zeros gets 1.
std::vector<float> weight_scales_aciq(const float* w, int rows, int row_size, int qmax);

// Adds n activations to a kHistogramBins histogram of |x| over [0, absmax] (ncnn's binning:
// bin = min(int(|x| / absmax * 2048), 2047); exact zeros are not counted). absmax must be > 0.
void accumulate_histogram(const float* x, size_t n, float absmax, std::vector<uint64_t>& histogram);

// The threshold bin in [128, histogram.size()) KL calibration picks (ncnn2table quantize_KL, the
// first minimum of the divergence). `histogram` has kHistogramBins bins and a non-zero sum.
int kl_threshold_bin(const std::vector<uint64_t>& histogram);
// ncnn's KL divergence sum(a * log(a / b)) in float.
float kl_divergence(const std::vector<float>& a, const std::vector<float>& b);
// Bottom scale from a histogram: 127 / ((kl_threshold_bin + 0.5) * absmax / 2048).
float kl_scale(const std::vector<uint64_t>& histogram, float absmax);
// Bottom scale by ACIQ: 127 / aciq_clip(absmax, n).
float aciq_scale(float absmax, int n);

// ncnn2table cosine_similarity: float sums of a*a, b*b and a*b; sum / sqrt(sa) / sqrt(sb).
float cosine_similarity(const float* a, const float* b, size_t n);

// EQ's search of one scale: candidates scale * 0.5 + k * (scale * 2 - scale * 0.5) / 100 for k in
// [0, 100); `similarity(candidate)` returns the sum of the cosine similarities over the samples.
// Returns the first candidate with the highest sum (ncnn: `max_avgsim < avgsims[k]` from 0), or
// `scale` when no sum is above 0.
constexpr int kEqSearchSteps = 100;
constexpr int kEqMaxSamples = 50;
float eq_candidate(float scale, int k);
float eq_search(float scale, const std::function<double(float candidate)>& similarity);

// The precision a scale keeps through ncnn2table's table file ("%f": six decimals) and
// ncnn2int8's reading of it (sscanf "%f"), so the int8 model is the one ncnn's two tools write.
float table_round(float scale);

}  // namespace quant
}  // namespace nnfold
