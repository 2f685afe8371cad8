// The parts of an ONNX model (onnx/onnx.proto) the importer reads, decoded from protobuf with
// protozero. Everything is copied out of the input buffer and checked while decoding: tensor
// element counts against their dims, raw_data lengths against dims x element size, wire types
// against the schema. Sub-graphs (If/Loop/Scan bodies) are decoded into Attribute::graphs, nested
// at most kMaxGraphDepth deep.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace nnfold {
namespace onnx {

// TensorProto.DataType
enum DataType : int {
    kUndefined = 0,
    kFloat = 1,
    kUint8 = 2,
    kInt8 = 3,
    kUint16 = 4,
    kInt16 = 5,
    kInt32 = 6,
    kInt64 = 7,
    kString = 8,
    kBool = 9,
    kFloat16 = 10,
    kDouble = 11,
    kUint32 = 12,
    kUint64 = 13,
    kComplex64 = 14,
    kComplex128 = 15,
    kBFloat16 = 16,
};
const char* data_type_name(int dt);
bool is_float_type(int dt);    // float, double, float16, bfloat16
bool is_integer_type(int dt);  // signed/unsigned ints and bool

// A constant tensor (initializer, Constant node value, or a value folded at import). Float-like
// types keep their values in `f` (double and half converted to float), integer types and bool in
// `i`. Strings and complex numbers are kept as a type only (their data cannot be used).
struct Tensor {
    std::string name;
    int dtype = kFloat;
    std::vector<int64_t> dims;
    std::vector<float> f;
    std::vector<int64_t> i;

    bool is_float() const { return is_float_type(dtype); }
    // Product of dims (1 for a scalar). Decoding guarantees it does not overflow.
    uint64_t numel() const;
    double at(size_t k) const { return is_float() ? (double)f[k] : (double)i[k]; }
    bool has_data() const { return (is_float() ? f.size() : i.size()) == numel(); }
};

// A float holding an integer-valued shape, axis or count, as int64 (truncated toward zero): false
// when it is not finite or outside int64's range (the cast would be undefined behaviour).
inline bool float_to_int64(double v, int64_t& out) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return false;
    out = (int64_t)v;
    return true;
}

// A computed value stored in an integer tensor or used as an index: NaN -> 0, out of range ->
// int64's nearest end (the plain cast would be undefined behaviour).
inline int64_t saturate_int64(double v) {
    int64_t r = 0;
    if (float_to_int64(v, r) || v != v)
        return r;
    return v > 0 ? INT64_MAX : INT64_MIN;
}

enum AttrType : int {
    kAttrUndefined = 0,
    kAttrFloat = 1,
    kAttrInt = 2,
    kAttrString = 3,
    kAttrTensor = 4,
    kAttrGraph = 5,
    kAttrFloats = 6,
    kAttrInts = 7,
    kAttrStrings = 8,
    kAttrTensors = 9,
    kAttrGraphs = 10,
};

struct SubGraph;

// How deep sub-graphs (an If inside a branch of an If...) may nest: the decoder and the importer
// recurse once per level, so a hostile file nesting thousands deep would overflow the stack.
constexpr int kMaxGraphDepth = 32;

struct Attribute {
    std::string name;
    int type = kAttrUndefined;  // from the type field, or deduced from the fields present
    float f = 0.f;
    int64_t i = 0;
    std::string s;
    std::vector<Tensor> t;  // 0 or 1 (TENSOR)
    std::vector<float> floats;
    std::vector<int64_t> ints;
    std::vector<std::string> strings;
    std::vector<std::shared_ptr<const SubGraph>> graphs;  // 1 (GRAPH) or any number (GRAPHS)
};

struct Node {
    std::string name;
    std::string op_type;
    std::string domain;
    std::vector<std::string> inputs;   // "" = optional input left out
    std::vector<std::string> outputs;  // "" = optional output left out
    std::vector<Attribute> attrs;

    const Attribute* attr(const std::string& n) const;
};

// ValueInfoProto for a tensor: element type and shape; dims[k] < 0 means a symbolic or missing
// dimension (dim_params[k] holds its name when there is one).
struct ValueInfo {
    std::string name;
    int elem_type = kUndefined;
    bool has_shape = false;
    std::vector<int64_t> dims;
    std::vector<std::string> dim_params;
};

// A sub-graph (GraphProto inside an attribute): an If's branch, a Loop's body. Its nodes may read
// values of the enclosing graphs by name (outer-scope references).
struct SubGraph {
    std::string name;
    std::vector<Node> nodes;
    std::vector<Tensor> initializers;
    std::vector<ValueInfo> inputs, outputs, value_infos;
};

struct Model {
    int64_t ir_version = 0;
    std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
    std::string producer_name, producer_version;
    std::vector<Node> nodes;
    std::vector<Tensor> initializers;
    std::vector<ValueInfo> inputs, outputs, value_infos;
};

// Decodes a serialized ModelProto. Never throws; malformed input gives InvalidModel naming the
// element being read ("truncated tensor 'w' in initializer"), external data gives Unsupported.
Status decode_model(const uint8_t* data, size_t size, Model& model);

}  // namespace onnx
}  // namespace nnfold
