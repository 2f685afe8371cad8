// One array of a layer's `.bin` data, with the storage it was read in (docs/format.md):
// arrays a layer loads with ncnn type 0 carry a 4-byte tag (raw fp32, fp32 "with extra scaling",
// fp16, int8, or a 256-entry codebook); type 1 arrays are raw fp32 without a tag. The original
// encoded bytes are kept so that writing back gives the same bytes; `data` holds the decoded fp32
// values the runtime and the optimizer use (empty for int8, which nnfold passes through only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnfold {

enum class WeightStorage : uint8_t {
    Untagged,   // ncnn load type 1: raw fp32, no tag
    F32,        // tag 0: raw fp32
    F32Scaled,  // tag 0x0002C056: raw fp32 ("raw data with extra scaling")
    F16,        // tag 0x01306B47
    Int8,       // tag 0x000D4B38
    Codebook,   // any other non-zero tag: 256 floats + uint8 indices
};

constexpr uint32_t kTagF16 = 0x01306B47;
constexpr uint32_t kTagInt8 = 0x000D4B38;
constexpr uint32_t kTagF32Scaled = 0x0002C056;

const char* weight_storage_name(WeightStorage s);

struct WeightArray {
    WeightStorage storage = WeightStorage::Untagged;
    uint32_t tag = 0;                // the tag as read (Codebook keeps its exact bytes)
    std::vector<float> data;         // decoded values (not for Int8)
    std::vector<uint16_t> f16;       // F16: the stored halves
    std::vector<int8_t> i8;          // Int8: the stored bytes
    std::vector<float> codebook;     // Codebook: 256 entries
    std::vector<uint8_t> indices;    // Codebook: one per element

    bool tagged() const { return storage != WeightStorage::Untagged; }
    size_t count() const;
    // Bytes this array occupies in a .bin file (tag, payload, padding to 4).
    uint64_t file_bytes() const;

    static WeightArray untagged(std::vector<float> v);
    static WeightArray tagged_f32(std::vector<float> v);
    // Decoded values replaced: storage becomes F32 for tagged arrays, Untagged stays Untagged.
    void set_values(std::vector<float> v);
};

// IEEE half <-> float, exact for every half (float -> half rounds to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
// True when f converts to a finite half (|f| <= 65504, rounding included).
bool fits_half(float f);

}  // namespace nnfold
