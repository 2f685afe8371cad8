// The .param float token rules (docs/format.md), checked against a re-implementation of
// ncnn's parser (io/float_token.cpp mirrors ncnn src/paramdict.cpp vstr_to_float).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "io/float_token.h"
#include "model/param_dict.h"
#include "runtime/random.h"

using namespace nnfold;

TEST(FloatToken, NcnnMisreadsLongDecimals) {
    // 12 fraction digits wrap ncnn's 32-bit pow10: the documented 0.0345 misread.
    float v = ncnn_token_to_float("0.000123000005");
    EXPECT_NEAR(v, 0.0345, 0.0005);
    EXPECT_FLOAT_EQ(ncnn_token_to_float("1.5"), 1.5f);
    EXPECT_FLOAT_EQ(ncnn_token_to_float("-2.5e-3"), -0.0025f);
    EXPECT_FLOAT_EQ(ncnn_token_to_float("1e+02"), 100.f);
    EXPECT_FLOAT_EQ(ncnn_token_to_float("1.000000e+00"), 1.f);
}

TEST(FloatToken, IsFloatRule) {
    EXPECT_TRUE(ncnn_token_is_float("1.0"));
    EXPECT_TRUE(ncnn_token_is_float("1e5"));
    EXPECT_TRUE(ncnn_token_is_float("1E5"));
    EXPECT_FALSE(ncnn_token_is_float("6"));
    EXPECT_FALSE(ncnn_token_is_float("-233"));
}

TEST(FloatToken, IntTokenForFloatParamIsBitPattern) {
    // `0=6` for a float param reads as the bit pattern 6 = 8.4e-45 in ncnn.
    EXPECT_NEAR(bits_to_float(6), 8.4e-45, 1e-46);
}

static void expect_round_trip(float v) {
    std::string s = format_float_token(v);
    ASSERT_FALSE(s.empty()) << v;
    EXPECT_LE(s.size(), kMaxTokenChars) << s;
    EXPECT_TRUE(ncnn_token_is_float(s)) << s;
    float back = ncnn_token_to_float(s);
    EXPECT_EQ(float_to_bits(back), float_to_bits(v)) << "value " << v << " token " << s;
}

TEST(FloatToken, SpecialValuesRoundTrip) {
    for (float v : {0.f, -0.f, 1.f, -1.f, 0.5f, 0.1f, 1e-6f, 0.000123f, 3.14159265f, 1e-45f, 1.17549435e-38f,
                    -1.17549435e-38f, 3.40282347e38f, -3.40282347e38f, 6.f, 1e10f, 123456789.f, 88.3762626647949f})
        expect_round_trip(v);
    EXPECT_EQ(format_float_token(std::numeric_limits<float>::infinity()), "");
    EXPECT_EQ(format_float_token(std::nanf("")), "");
}

TEST(FloatToken, RandomBitPatternsRoundTrip) {
    Rng rng(42);
    int checked = 0;
    for (int i = 0; i < 200000; i++) {
        float v = bits_to_float((int32_t)rng.next_u32());
        if (!std::isfinite(v))
            continue;
        std::string s = format_float_token(v);
        if (s.empty())
            continue;  // writer falls back to the int bit pattern; checked below
        ASSERT_LE(s.size(), kMaxTokenChars);
        ASSERT_EQ(float_to_bits(ncnn_token_to_float(s)), float_to_bits(v)) << s;
        checked++;
    }
    // nearly every finite float has an exact token
    EXPECT_GT(checked, 190000);
}

TEST(FloatToken, TypicalWeightsHaveShortTokens) {
    EXPECT_EQ(format_float_token(1.f), "1e+00");
    EXPECT_EQ(format_float_token(0.5f), "5e-01");
    EXPECT_EQ(format_float_token(-233.f), "-2.33e+02");
}

TEST(IntToken, Strict) {
    int32_t v;
    EXPECT_TRUE(parse_int_token("-23330", v));
    EXPECT_EQ(v, -23330);
    EXPECT_TRUE(parse_int_token("2147483647", v));
    EXPECT_FALSE(parse_int_token("2147483648", v));
    EXPECT_TRUE(parse_int_token("-2147483648", v));
    EXPECT_EQ(v, INT32_MIN);
    EXPECT_FALSE(parse_int_token("12abc", v));
    EXPECT_FALSE(parse_int_token("", v));
    EXPECT_FALSE(parse_int_token("-", v));
}
