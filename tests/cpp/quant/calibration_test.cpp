// ncnn2table's calibration arithmetic (src/quant/calibration.h) against values worked out by hand
// (the comments show the working), not against the code's own output.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "quant/calibration.h"

using namespace nnfold;
using namespace nnfold::quant;

TEST(Calibration, WeightScalesPerRowAbsmax) {
    // rows: max|.| = 2, 0 (all zero), 0.25
    const float w[9] = {0.5f, -2.f, 1.f, 0.f, 0.f, 0.f, 0.25f, 0.1f, -0.2f};
    auto s8 = weight_scales_absmax(w, 3, 3, 127);
    ASSERT_EQ(s8.size(), 3u);
    EXPECT_FLOAT_EQ(s8[0], 63.5f);   // 127 / 2
    EXPECT_FLOAT_EQ(s8[1], 1.f);     // a zero row: 1 (codes 0, output = bias)
    EXPECT_FLOAT_EQ(s8[2], 508.f);   // 127 / 0.25
    auto s6 = weight_scales_absmax(w, 3, 3, 31);  // ncnn2table's 6-bit case
    EXPECT_FLOAT_EQ(s6[0], 15.5f);
    EXPECT_FLOAT_EQ(s6[1], 1.f);
    EXPECT_FLOAT_EQ(s6[2], 124.f);
    // per group of a depthwise layer: 2 groups of 4
    const float dw[8] = {1, -4, 2, 0, 0.5f, 0.5f, -0.5f, 0.25f};
    auto sg = weight_scales_absmax(dw, 2, 4, 127);
    EXPECT_FLOAT_EQ(sg[0], 31.75f);  // 127 / 4
    EXPECT_FLOAT_EQ(sg[1], 254.f);   // 127 / 0.5
}

TEST(Calibration, AciqClip) {
    // gaussian_const = 0.175 * (1 + sqrt(pi * ln 4)) = 0.5402084...; clip = alpha * absmax * 2 *
    // gaussian_const / sqrt(2 ln N); alpha(8 bits) = 3.92403714, alpha(6 bits) = 3.28691474
    EXPECT_NEAR(aciq_clip(1.f, 100), 1.3969684, 1e-6);     // 1 * 1.0804168 / 3.0348545 * 3.924
    EXPECT_NEAR(aciq_clip(2.f, 1000), 2.2812398, 1e-6);
    EXPECT_NEAR(aciq_clip(0.5f, 9, 6), 0.8470275, 1e-6);
    EXPECT_NEAR(aciq_scale(2.f, 1000), 55.671483, 1e-4);   // 127 / 2.2812398
    // weights: one row of 9 values with absmax 0.5 in the 6-bit case -> 31 / 0.8470275
    const float w[9] = {0.5f, 0, 0, 0, 0, 0, 0, 0, -0.1f};
    auto s = weight_scales_aciq(w, 1, 9, 31);
    EXPECT_NEAR(s[0], 36.598575, 1e-4);
}

TEST(Calibration, HistogramBinning) {
    std::vector<uint64_t> h(kHistogramBins, 0);
    // absmax 1: |x| * 2048 -> bin; 1.0 lands on 2048 and is clamped to 2047; zeros are skipped
    const float x[6] = {0.f, 0.5f, -1.f, 0.25f, -0.25f, 0.0004f};
    accumulate_histogram(x, 6, 1.f, h);
    EXPECT_EQ(h[1024], 1u);
    EXPECT_EQ(h[2047], 1u);
    EXPECT_EQ(h[512], 2u);
    EXPECT_EQ(h[0], 1u);  // 0.0004 * 2048 = 0.82
    uint64_t total = 0;
    for (auto v : h)
        total += v;
    EXPECT_EQ(total, 5u);
}

TEST(Calibration, KlDivergence) {
    // 0.5 ln(0.5 / 0.25) + 0.5 ln(0.5 / 0.75) = 0.5 ln 2 + 0.5 ln(2/3) = 0.1438410
    EXPECT_NEAR(kl_divergence({0.5f, 0.5f}, {0.25f, 0.75f}), 0.1438410, 1e-6);
    EXPECT_FLOAT_EQ(kl_divergence({0.3f, 0.7f}, {0.3f, 0.7f}), 0.f);
}

TEST(Calibration, KlThresholdOfUniformHistogram) {
    // Mass spread evenly over bins [0, 512): at threshold 512 each of the 128 levels covers exactly
    // 4 bins of equal mass, so the expanded distribution equals the clipped one and the divergence
    // is 0. Below 512 the clipped tail piles into the last bin (divergence > 0); above 512, levels
    // straddling bin 512 mix mass with empty bins (> 0) or, at multiples of 128 bins per level, give
    // 0 again, which does not replace the first minimum. So the threshold bin is 512, and the scale
    // 127 / ((512 + 0.5) * absmax / 2048).
    std::vector<uint64_t> h(kHistogramBins, 0);
    for (int i = 0; i < 512; i++)
        h[(size_t)i] = 10;
    EXPECT_EQ(kl_threshold_bin(h), 512);
    EXPECT_FLOAT_EQ(kl_scale(h, 4.f), 127.f / (512.5f * 4.f / 2048));
    // With everything in the first 128 bins the smallest threshold (128) wins.
    std::vector<uint64_t> h2(kHistogramBins, 0);
    for (int i = 0; i < 128; i++)
        h2[(size_t)i] = 3;
    EXPECT_EQ(kl_threshold_bin(h2), 128);
}

TEST(Calibration, KlClipsAnOutlier) {
    // A bulk over [0, 256) and one far outlier at bin 2047 (a millionth of the mass): clipping it
    // costs almost nothing, resolution over the bulk a lot, so the threshold stays near the bulk
    // (ncnn's reason for KL over absmax).
    std::vector<uint64_t> h(kHistogramBins, 0);
    for (int i = 0; i < 256; i++)
        h[(size_t)i] = 10000;
    h[2047] = 2;
    int t = kl_threshold_bin(h);
    EXPECT_GE(t, 200);
    EXPECT_LE(t, 300);
}

TEST(Calibration, CosineSimilarity) {
    const float a[2] = {1.f, 0.f}, b[2] = {1.f, 1.f};
    EXPECT_NEAR(cosine_similarity(a, b, 2), 0.70710678, 1e-6);
    const float c[3] = {1.f, 2.f, 3.f}, d[3] = {2.f, 4.f, 6.f};
    EXPECT_NEAR(cosine_similarity(c, d, 3), 1.0, 1e-6);
}

TEST(Calibration, EqSearchGrid) {
    // candidates: scale * 0.5 + k * (scale * 2 - scale * 0.5) / 100
    EXPECT_FLOAT_EQ(eq_candidate(1.f, 0), 0.5f);
    EXPECT_FLOAT_EQ(eq_candidate(1.f, 50), 1.25f);
    EXPECT_FLOAT_EQ(eq_candidate(2.f, 99), 1.f + 99 * 0.03f);
    // a similarity peaking at 1.1: k = (1.1 - 0.5) / 0.015 = 40
    float best = eq_search(1.f, [](float c) { return 10.0 - (c - 1.1) * (c - 1.1); });
    EXPECT_FLOAT_EQ(best, eq_candidate(1.f, 40));
    // nothing above 0: the scale stays
    EXPECT_FLOAT_EQ(eq_search(3.f, [](float) { return -1.0; }), 3.f);
    // ties: the first candidate with the highest sum
    EXPECT_FLOAT_EQ(eq_search(1.f, [](float) { return 1.0; }), 0.5f);
}

TEST(Calibration, TableRoundingKeepsSixDecimals) {
    // ncnn2table writes "%f" and ncnn2int8 reads it back
    EXPECT_FLOAT_EQ(table_round(12.3456789f), 12.345679f);
    EXPECT_FLOAT_EQ(table_round(63.5f), 63.5f);
    EXPECT_EQ(table_round(4e-7f), 0.f);
}
