// ncnn's .param value tokens (docs/format.md; ncnn src/paramdict.cpp):
// a token is read as at most 15 characters; it is a float when it contains '.', 'e' or 'E',
// otherwise an int (sscanf %d). ncnn converts float tokens with its own parser (vstr_to_float),
// which accumulates the fraction digits in a 32-bit unsigned int and so mis-reads long decimals
// (`0.000123000005` reads as 0.0345). The writer therefore emits exponent forms chosen so that
// this very parser returns the exact float, and tests check every written float against it.
#pragma once

#include <cstdint>
#include <string>

namespace nnfold {

constexpr size_t kMaxTokenChars = 15;

// ncnn's vstr_is_float.
bool ncnn_token_is_float(const std::string& token);
// ncnn's vstr_to_float, reproduced exactly (including its unsigned overflow).
float ncnn_token_to_float(const std::string& token);
// Strict int parse of a whole token (optional sign, digits, fits int32).
bool parse_int_token(const std::string& token, int32_t& out);

// A float token of at most 15 characters that ncnn reads back to exactly these bits, or "" when
// none exists (NaN, infinity, a few values ncnn's parser cannot reach); callers then write the
// bit pattern as an int token, which ncnn reads into the same union.
std::string format_float_token(float value);

}  // namespace nnfold
