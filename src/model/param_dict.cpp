#include "model/param_dict.h"

namespace nnfold {

bool ParamValue::operator==(const ParamValue& o) const {
    if (kind != o.kind)
        return false;
    switch (kind) {
    case Kind::None: return true;
    case Kind::Scalar: return bits == o.bits;
    case Kind::Array: return array == o.array;
    case Kind::String: return str == o.str;
    }
    return false;
}

int ParamDict::get_int(int id, int def) const {
    if (!has(id) || v_[id].kind != ParamValue::Kind::Scalar)
        return def;
    return v_[id].bits;
}

float ParamDict::get_float(int id, float def) const {
    if (!has(id) || v_[id].kind != ParamValue::Kind::Scalar)
        return def;
    return bits_to_float(v_[id].bits);
}

std::vector<int> ParamDict::get_ints(int id) const {
    if (!has(id) || v_[id].kind != ParamValue::Kind::Array)
        return {};
    return std::vector<int>(v_[id].array.begin(), v_[id].array.end());
}

std::vector<float> ParamDict::get_floats(int id) const {
    std::vector<float> r;
    if (!has(id) || v_[id].kind != ParamValue::Kind::Array)
        return r;
    r.reserve(v_[id].array.size());
    for (int32_t b : v_[id].array)
        r.push_back(bits_to_float(b));
    return r;
}

std::string ParamDict::get_string(int id, const std::string& def) const {
    if (!has(id) || v_[id].kind != ParamValue::Kind::String)
        return def;
    return v_[id].str;
}

void ParamDict::set_int(int id, int v) {
    ParamValue p;
    p.kind = ParamValue::Kind::Scalar;
    p.is_float = false;
    p.bits = v;
    v_[id] = p;
}

void ParamDict::set_float(int id, float v) {
    ParamValue p;
    p.kind = ParamValue::Kind::Scalar;
    p.is_float = true;
    p.bits = float_to_bits(v);
    v_[id] = p;
}

void ParamDict::set_ints(int id, const std::vector<int>& v) {
    ParamValue p;
    p.kind = ParamValue::Kind::Array;
    p.array.assign(v.begin(), v.end());
    p.array_is_float.assign(v.size(), 0);
    v_[id] = p;
}

void ParamDict::set_floats(int id, const std::vector<float>& v) {
    ParamValue p;
    p.kind = ParamValue::Kind::Array;
    for (float f : v)
        p.array.push_back(float_to_bits(f));
    p.array_is_float.assign(v.size(), 1);
    v_[id] = p;
}

void ParamDict::set_string(int id, const std::string& s) {
    ParamValue p;
    p.kind = ParamValue::Kind::String;
    p.str = s;
    v_[id] = p;
}

void ParamDict::clear() {
    for (auto& p : v_)
        p = ParamValue();
}

bool ParamDict::operator==(const ParamDict& o) const {
    for (int i = 0; i < kMaxParamId; i++)
        if (v_[i] != o.v_[i])
            return false;
    return true;
}

}  // namespace nnfold
