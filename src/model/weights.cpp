#include "model/weights.h"

#include <cmath>
#include <cstring>

namespace nnfold {

const char* weight_storage_name(WeightStorage s) {
    switch (s) {
    case WeightStorage::Untagged: return "fp32";
    case WeightStorage::F32: return "fp32";
    case WeightStorage::F32Scaled: return "fp32 (scaled tag)";
    case WeightStorage::F16: return "fp16";
    case WeightStorage::Int8: return "int8";
    case WeightStorage::Codebook: return "codebook";
    }
    return "?";
}

size_t WeightArray::count() const {
    switch (storage) {
    case WeightStorage::F16: return f16.size();
    case WeightStorage::Int8: return i8.size();
    case WeightStorage::Codebook: return indices.size();
    default: return data.size();
    }
}

static uint64_t align4(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

uint64_t WeightArray::file_bytes() const {
    uint64_t n = count();
    switch (storage) {
    case WeightStorage::Untagged: return n * 4;
    case WeightStorage::F32:
    case WeightStorage::F32Scaled: return 4 + n * 4;
    case WeightStorage::F16: return 4 + align4(n * 2);
    case WeightStorage::Int8: return 4 + align4(n);
    case WeightStorage::Codebook: return 4 + 256 * 4 + align4(n);
    }
    return 0;
}

WeightArray WeightArray::untagged(std::vector<float> v) {
    WeightArray w;
    w.storage = WeightStorage::Untagged;
    w.data = std::move(v);
    return w;
}

WeightArray WeightArray::tagged_f32(std::vector<float> v) {
    WeightArray w;
    w.storage = WeightStorage::F32;
    w.data = std::move(v);
    return w;
}

void WeightArray::set_values(std::vector<float> v) {
    bool was_tagged = tagged();
    *this = WeightArray();
    storage = was_tagged ? WeightStorage::F32 : WeightStorage::Untagged;
    data = std::move(v);
}

float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            // subnormal half: normalise
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while ((man & 0x400) == 0);
            man &= 0x3ff;
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | (man << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000 | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t float_to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t exp = (x >> 23) & 0xff;
    uint32_t man = x & 0x7fffff;
    if (exp == 255)  // inf / nan
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half_man = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_man & 1)))
            half_man++;
        return (uint16_t)(sign | half_man);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++;  // may carry into the exponent, which is correct rounding (up to inf)
    return (uint16_t)half;
}

bool fits_half(float f) {
    if (!std::isfinite(f))
        return false;
    uint16_t h = float_to_half(f);
    return ((h >> 10) & 0x1f) != 31;
}

}  // namespace nnfold
