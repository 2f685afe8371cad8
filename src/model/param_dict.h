// Layer-specific parameters exactly as ncnn keeps them (src/paramdict.cpp): ids 0..31, each a
// scalar, an array or (newer ncnn) a quoted string. Values are stored as raw 32-bit patterns with
// the token kind they were written with, because ncnn reads a float param from an int token as the
// int's bit pattern (`0=0` for ReLU's slope is 0.0f; `0=6` would be 8.4e-45) and some files store
// float arrays as int bit patterns (yolov4-tiny's -23305). Shape hints (id 30) are not kept here:
// the reader moves them onto the blobs.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace nnfold {

constexpr int kMaxParamId = 32;  // NCNN_MAX_PARAM_COUNT
constexpr int kShapeHintParamId = 30;

inline float bits_to_float(int32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
inline int32_t float_to_bits(float f) {
    int32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

struct ParamValue {
    enum class Kind : uint8_t { None, Scalar, Array, String };
    Kind kind = Kind::None;
    bool is_float = false;              // scalar: written as a float token
    int32_t bits = 0;                   // scalar raw bits
    std::vector<int32_t> array;         // array raw bits
    std::vector<uint8_t> array_is_float;  // per element: written as a float token
    std::string str;                    // string value (without quotes)

    bool present() const { return kind != Kind::None; }
    bool operator==(const ParamValue& o) const;
    bool operator!=(const ParamValue& o) const { return !(*this == o); }
};

class ParamDict {
public:
    bool has(int id) const { return id >= 0 && id < kMaxParamId && v_[id].present(); }
    const ParamValue& at(int id) const { return v_[id]; }
    ParamValue& at(int id) { return v_[id]; }

    // ncnn semantics: a present scalar returns its bits reinterpreted (int from a float token gives
    // the float's bits and vice versa); absent returns the default.
    int get_int(int id, int def) const;
    float get_float(int id, float def) const;
    // Array params as ints (raw bits) or floats (bits reinterpreted). Empty when absent.
    std::vector<int> get_ints(int id) const;
    std::vector<float> get_floats(int id) const;
    std::string get_string(int id, const std::string& def) const;

    void set_int(int id, int v);
    void set_float(int id, float v);
    void set_ints(int id, const std::vector<int>& v);
    void set_floats(int id, const std::vector<float>& v);
    void set_string(int id, const std::string& s);
    void erase(int id) { v_[id] = ParamValue(); }
    void clear();

    bool operator==(const ParamDict& o) const;

private:
    ParamValue v_[kMaxParamId];
};

}  // namespace nnfold
