#include "io/float_token.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "model/param_dict.h"

namespace nnfold {

bool ncnn_token_is_float(const std::string& t) {
    for (size_t j = 0; j < t.size() && j < 16; j++) {
        char ch = t[j];
        if (ch == '\0')
            break;
        if (ch == '.' || std::tolower((unsigned char)ch) == 'e')
            return true;
    }
    return false;
}

float ncnn_token_to_float(const std::string& token) {
    const char* p = token.c_str();
    double v = 0.0;
    bool sign = *p != '-';
    if (*p == '+' || *p == '-')
        p++;
    unsigned int v1 = 0;
    while (std::isdigit((unsigned char)*p)) {
        v1 = v1 * 10 + (unsigned)(*p - '0');
        p++;
    }
    v = (double)v1;
    if (*p == '.') {
        p++;
        unsigned int pow10 = 1;
        unsigned int v2 = 0;
        while (std::isdigit((unsigned char)*p)) {
            v2 = v2 * 10 + (unsigned)(*p - '0');
            pow10 *= 10;
            p++;
        }
        // ncnn divides by the wrapped pow10; a wrap to 0 gives inf/nan there too
        v += v2 / (double)pow10;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        bool fact = *p != '-';
        if (*p == '+' || *p == '-')
            p++;
        unsigned int expon = 0;
        while (std::isdigit((unsigned char)*p)) {
            expon = expon * 10 + (unsigned)(*p - '0');
            p++;
        }
        double scale = 1.0;
        while (expon >= 8) {
            scale *= 1e8;
            expon -= 8;
        }
        while (expon > 0) {
            scale *= 10.0;
            expon -= 1;
        }
        v = fact ? v * scale : v / scale;
    }
    return sign ? (float)v : (float)-v;
}

bool parse_int_token(const std::string& t, int32_t& out) {
    if (t.empty())
        return false;
    size_t i = 0;
    bool neg = false;
    if (t[0] == '+' || t[0] == '-') {
        neg = t[0] == '-';
        i = 1;
    }
    if (i >= t.size())
        return false;
    int64_t v = 0;
    for (; i < t.size(); i++) {
        if (!std::isdigit((unsigned char)t[i]))
            return false;
        v = v * 10 + (t[i] - '0');
        if (v > 2147483648LL)
            return false;
    }
    if (neg)
        v = -v;
    if (v > 2147483647LL || v < -2147483648LL)
        return false;
    out = (int32_t)v;
    return true;
}

static bool reads_back(const std::string& s, float value) {
    if (s.size() > kMaxTokenChars || !ncnn_token_is_float(s))
        return false;
    return float_to_bits(ncnn_token_to_float(s)) == float_to_bits(value);
}

std::string format_float_token(float value) {
    if (!std::isfinite(value))
        return "";
    char buf[64];
    // Shortest exponent form with 1..9 significant digits that ncnn reads back exactly.
    // %.8e keeps the fraction below 10^8, so ncnn's 32-bit accumulation never wraps.
    for (int prec = 0; prec <= 8; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec, (double)value);
        std::string s = buf;
        if (reads_back(s, value))
            return s;
    }
    // ncnn's double arithmetic can land one ulp off for some values (very large or tiny
    // exponents): try neighbouring 9-digit mantissas.
    snprintf(buf, sizeof(buf), "%.8e", (double)value);
    std::string base = buf;
    size_t epos = base.find('e');
    if (epos == std::string::npos)
        return "";
    std::string mant = base.substr(0, epos), ex = base.substr(epos);
    bool neg = mant[0] == '-';
    std::string digits;
    for (char ch : mant)
        if (std::isdigit((unsigned char)ch))
            digits += ch;
    long long m = std::atoll(digits.c_str());
    for (int delta = 1; delta <= 50; delta++) {
        for (int sgn : {1, -1}) {
            long long mm = m + sgn * delta;
            if (mm < 100000000LL || mm > 999999999LL)
                continue;
            snprintf(buf, sizeof(buf), "%s%lld.%08lld%s", neg ? "-" : "", mm / 100000000LL, mm % 100000000LL, ex.c_str());
            std::string s = buf;
            if (reads_back(s, value))
                return s;
        }
    }
    return "";
}

}  // namespace nnfold
