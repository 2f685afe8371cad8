#include "quant/calibration.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nnfold {
namespace quant {

float absmax(const float* x, size_t n) {
    float m = 0.f;
    for (size_t i = 0; i < n; i++)
        m = std::max(m, std::fabs(x[i]));
    return m;
}

std::vector<float> weight_scales_absmax(const float* w, int rows, int row_size, int qmax) {
    std::vector<float> s((size_t)rows);
    for (int r = 0; r < rows; r++) {
        float m = absmax(w + (size_t)r * row_size, (size_t)row_size);
        s[(size_t)r] = m == 0.f ? 1.f : (float)qmax / m;
    }
    return s;
}

float aciq_clip(float absmax_value, int n, int num_bits) {
    // ncnn2table compute_aciq_gaussian_clip, same constants and the same double/float steps
    const float alpha_gaussian[8] = {0, 1.71063519f, 2.15159277f, 2.55913646f,
                                     2.93620062f, 3.28691474f, 3.6151146f, 3.92403714f};
    const double gaussian_const = (0.5 * 0.35) * (1 + std::sqrt(3.14159265358979323846 * std::log(4)));
    double std_dev = (absmax_value * 2 * gaussian_const) / std::sqrt(2 * std::log((double)n));
    return (float)(alpha_gaussian[num_bits - 1] * std_dev);
}

std::vector<float> weight_scales_aciq(const float* w, int rows, int row_size, int qmax) {
    const int bits = qmax == 31 ? 6 : 8;
    std::vector<float> s((size_t)rows);
    for (int r = 0; r < rows; r++) {
        float m = absmax(w + (size_t)r * row_size, (size_t)row_size);
        // a row of one value: ln(1) = 0 makes ncnn's clip infinite (scale 0); absmax then is the clip
        float t = m == 0.f ? 0.f : (row_size > 1 ? aciq_clip(m, row_size, bits) : m);
        s[(size_t)r] = t == 0.f ? 1.f : (float)qmax / t;
    }
    return s;
}

void accumulate_histogram(const float* x, size_t n, float amax, std::vector<uint64_t>& histogram) {
    const int bins = (int)histogram.size();
    for (size_t i = 0; i < n; i++) {
        if (x[i] == 0.f)
            continue;
        // ncnn: min((int)(fabs(x) / absmax * bins), bins - 1), in float
        float f = std::fabs(x[i]) / amax * bins;
        int index = f >= (float)bins ? bins - 1 : (int)f;
        if (index < 0)  // NaN activations (a broken model) count nowhere
            continue;
        histogram[(size_t)index] += 1;
    }
}

float kl_divergence(const std::vector<float>& a, const std::vector<float>& b) {
    float result = 0;
    for (size_t i = 0; i < a.size(); i++) {
        // equal bins add exactly 0 (log(1) = 0): skipping their log changes no bit (the empty
        // bins of a histogram's tail, where both sides hold only eps)
        if (a[i] == b[i])
            continue;
        result += a[i] * std::log(a[i] / b[i]);  // float log, as ncnn's log(float) in C++
    }
    return result;
}

int kl_threshold_bin(const std::vector<uint64_t>& histogram) {
    const int num_bins = (int)histogram.size();
    const int target_bin = kKlTargetBins;
    std::vector<float> normed((size_t)num_bins);
    {
        uint64_t sum = 0;
        for (uint64_t h : histogram)
            sum += h;
        for (int j = 0; j < num_bins; j++)
            normed[(size_t)j] = (float)(histogram[(size_t)j] / (double)sum);
    }

    int target_threshold = target_bin;
    float min_kl = FLT_MAX;
    const float kl_eps = 0.0001f;
    std::vector<float> clip, quantized((size_t)target_bin), expanded;
    for (int threshold = target_bin; threshold < num_bins; threshold++) {
        // the reference: the first `threshold` bins, the tail folded into the last one
        clip.assign((size_t)threshold, kl_eps);
        for (int j = 0; j < threshold; j++)
            clip[(size_t)j] += normed[(size_t)j];
        for (int j = threshold; j < num_bins; j++)
            clip[(size_t)threshold - 1] += normed[(size_t)j];

        // the candidate: `threshold` bins merged into 128 levels (fractional bins at the edges of
        // each level), each level the mean of what it covers...
        const float num_per_bin = (float)threshold / target_bin;
        std::fill(quantized.begin(), quantized.end(), 0.f);
        {
            const float end = num_per_bin;
            const int right_lower = (int)std::floor(end);
            const float right_scale = end - right_lower;
            if (right_scale > 0)
                quantized[0] += right_scale * normed[(size_t)right_lower];
            for (int k = 0; k < right_lower; k++)
                quantized[0] += normed[(size_t)k];
            quantized[0] /= right_lower + right_scale;
        }
        for (int j = 1; j < target_bin - 1; j++) {
            const float start = j * num_per_bin;
            const float end = (j + 1) * num_per_bin;
            const int left_upper = (int)std::ceil(start);
            const float left_scale = left_upper - start;
            const int right_lower = (int)std::floor(end);
            const float right_scale = end - right_lower;
            if (left_scale > 0)
                quantized[(size_t)j] += left_scale * normed[(size_t)left_upper - 1];
            if (right_scale > 0)
                quantized[(size_t)j] += right_scale * normed[(size_t)right_lower];
            for (int k = left_upper; k < right_lower; k++)
                quantized[(size_t)j] += normed[(size_t)k];
            quantized[(size_t)j] /= right_lower - left_upper + left_scale + right_scale;
        }
        {
            const float start = threshold - num_per_bin;
            const int left_upper = (int)std::ceil(start);
            const float left_scale = left_upper - start;
            if (left_scale > 0)
                quantized[(size_t)target_bin - 1] += left_scale * normed[(size_t)left_upper - 1];
            for (int k = left_upper; k < threshold; k++)
                quantized[(size_t)target_bin - 1] += normed[(size_t)k];
            quantized[(size_t)target_bin - 1] /= threshold - left_upper + left_scale;
        }

        // ... spread back over the `threshold` bins
        expanded.assign((size_t)threshold, kl_eps);
        {
            const float end = num_per_bin;
            const int right_lower = (int)std::floor(end);
            const float right_scale = end - right_lower;
            if (right_scale > 0)
                expanded[(size_t)right_lower] += right_scale * quantized[0];
            for (int k = 0; k < right_lower; k++)
                expanded[(size_t)k] += quantized[0];
        }
        for (int j = 1; j < target_bin - 1; j++) {
            const float start = j * num_per_bin;
            const float end = (j + 1) * num_per_bin;
            const int left_upper = (int)std::ceil(start);
            const float left_scale = left_upper - start;
            const int right_lower = (int)std::floor(end);
            const float right_scale = end - right_lower;
            if (left_scale > 0)
                expanded[(size_t)left_upper - 1] += left_scale * quantized[(size_t)j];
            if (right_scale > 0)
                expanded[(size_t)right_lower] += right_scale * quantized[(size_t)j];
            for (int k = left_upper; k < right_lower; k++)
                expanded[(size_t)k] += quantized[(size_t)j];
        }
        {
            const float start = threshold - num_per_bin;
            const int left_upper = (int)std::ceil(start);
            const float left_scale = left_upper - start;
            if (left_scale > 0)
                expanded[(size_t)left_upper - 1] += left_scale * quantized[(size_t)target_bin - 1];
            for (int k = left_upper; k < threshold; k++)
                expanded[(size_t)k] += quantized[(size_t)target_bin - 1];
        }

        const float kl = kl_divergence(clip, expanded);
        if (kl < min_kl) {
            min_kl = kl;
            target_threshold = threshold;
        }
    }
    return target_threshold;
}

float kl_scale(const std::vector<uint64_t>& histogram, float amax) {
    const int bin = kl_threshold_bin(histogram);
    const float threshold = (bin + 0.5f) * amax / (int)histogram.size();
    return 127 / threshold;
}

float aciq_scale(float amax, int n) {
    return 127 / aciq_clip(amax, n);
}

float cosine_similarity(const float* a, const float* b, size_t n) {
    float sa = 0, sb = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        sa += a[i] * a[i];
        sb += b[i] * b[i];
        sum += a[i] * b[i];
    }
    return (float)(sum / std::sqrt(sa) / std::sqrt(sb));
}

float eq_candidate(float scale, int k) {
    const float lower = scale * 0.5f;
    const float upper = scale * 2.0f;
    const float step = (upper - lower) / kEqSearchSteps;
    return lower + k * step;
}

float eq_search(float scale, const std::function<double(float candidate)>& similarity) {
    double best = 0.0;
    float chosen = scale;
    for (int k = 0; k < kEqSearchSteps; k++) {
        const float c = eq_candidate(scale, k);
        const double s = similarity(c);
        if (best < s) {
            best = s;
            chosen = c;
        }
    }
    return chosen;
}

float table_round(float scale) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", scale);
    return std::strtof(buf, nullptr);
}

}  // namespace quant
}  // namespace nnfold
