// ONNX protobuf decoding with protozero (header-only, Debian libprotozero-dev). Field numbers are
// those of the public onnx/onnx.proto. protozero throws on truncated or malformed input and only
// asserts on a wire type that does not match the accessor, so every field's wire type is checked
// here before it is read, and the whole decode runs inside one try block: nothing escapes.
#include <protozero/pbf_reader.hpp>

#include <cstring>
#include <exception>
#include <limits>

#include "core/strings.h"
#include "io/onnx/onnx_model.h"
#include "model/weights.h"

namespace nnfold {
namespace onnx {

const char* data_type_name(int dt) {
    switch (dt) {
    case kFloat: return "float";
    case kUint8: return "uint8";
    case kInt8: return "int8";
    case kUint16: return "uint16";
    case kInt16: return "int16";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kString: return "string";
    case kBool: return "bool";
    case kFloat16: return "float16";
    case kDouble: return "double";
    case kUint32: return "uint32";
    case kUint64: return "uint64";
    case kComplex64: return "complex64";
    case kComplex128: return "complex128";
    case kBFloat16: return "bfloat16";
    default: return "undefined";
    }
}

bool is_float_type(int dt) { return dt == kFloat || dt == kDouble || dt == kFloat16 || dt == kBFloat16; }

bool is_integer_type(int dt) {
    switch (dt) {
    case kUint8: case kInt8: case kUint16: case kInt16: case kInt32: case kInt64: case kBool: case kUint32:
    case kUint64:
        return true;
    default:
        return false;
    }
}

uint64_t Tensor::numel() const {
    uint64_t n = 1;
    for (int64_t d : dims)
        n *= (uint64_t)d;
    return n;
}

const Attribute* Node::attr(const std::string& n) const {
    for (auto& a : attrs)
        if (a.name == n)
            return &a;
    return nullptr;
}

namespace {

using protozero::pbf_reader;
using protozero::pbf_wire_type;

// Reads the next field like pbf_reader::next(), and for a length-delimited field first checks its
// length against the bytes left. protozero checks `m_end - m_data < ptrdiff_t(len)`, which on
// wasm32 (32-bit ptrdiff_t) lets a length of 2^31 or more wrap negative and pass: the reader then
// walked far outside the buffer (found by the hostile corpus: huge_length.onnx decoded garbage in
// the wasm build). Throws protozero's own end_of_buffer_exception, handled like any truncation.
bool next_field(pbf_reader& r) {
    if (!r.next())
        return false;
    if (r.wire_type() == pbf_wire_type::length_delimited) {
        protozero::data_view rest = r.data();  // starts at the length varint
        const uint8_t* p = (const uint8_t*)rest.data();
        const uint8_t* end = p + rest.size();
        uint64_t len = 0;
        int shift = 0;
        while (true) {
            if (p == end || shift > 63)
                throw protozero::end_of_buffer_exception{};
            uint8_t b = *p++;
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        if (len > (uint64_t)(end - p))
            throw protozero::end_of_buffer_exception{};
    }
    return true;
}

// Thrown inside the decoder only; caught in decode_model.
struct DecodeError {
    Status status;
};

// The element being decoded, for messages ("tensor 'w' in initializer").
class Context {
public:
    std::vector<std::string> stack;
    int graph_depth = 0;  // sub-graphs being decoded (kMaxGraphDepth)
    std::string str() const {
        std::string s;
        for (size_t i = stack.size(); i-- > 0;)
            s += (s.empty() ? "" : " in ") + stack[i];
        return s.empty() ? "model" : s;
    }
};

// Pushes what is being decoded; while an exception unwinds the entry stays, so the handler in
// decode_model still sees where the error happened.
class Scope {
public:
    Scope(Context& c, std::string what) : c_(c), uncaught_(std::uncaught_exceptions()) {
        c_.stack.push_back(std::move(what));
    }
    ~Scope() {
        if (std::uncaught_exceptions() == uncaught_)
            c_.stack.pop_back();
    }
    void rename(std::string what) { c_.stack.back() = std::move(what); }

private:
    Context& c_;
    int uncaught_;
};

[[noreturn]] void fail(const Context& ctx, const std::string& what) {
    throw DecodeError{invalid_model("malformed ONNX " + ctx.str() + ": " + what)};
}

void expect_wire(const pbf_reader& r, pbf_wire_type wt, const Context& ctx, const char* field) {
    if (r.wire_type() != wt)
        fail(ctx, std::string("field '") + field + "' has the wrong protobuf wire type");
}

std::string read_string(pbf_reader& r, const Context& ctx, const char* field) {
    expect_wire(r, pbf_wire_type::length_delimited, ctx, field);
    return r.get_string();
}

int64_t read_int64(pbf_reader& r, const Context& ctx, const char* field) {
    expect_wire(r, pbf_wire_type::varint, ctx, field);
    return r.get_int64();
}

// A repeated varint field, packed (length-delimited) or not (one varint per occurrence); uint64
// fields keep their bit pattern as int64.
void read_varints(pbf_reader& r, std::vector<int64_t>& out, const Context& ctx, const char* field,
                  bool is_unsigned = false) {
    if (r.wire_type() == pbf_wire_type::varint) {
        out.push_back(is_unsigned ? (int64_t)r.get_uint64() : r.get_int64());
        return;
    }
    expect_wire(r, pbf_wire_type::length_delimited, ctx, field);
    if (is_unsigned) {
        for (auto v : r.get_packed_uint64())
            out.push_back((int64_t)v);
    } else {
        for (auto v : r.get_packed_int64())
            out.push_back(v);
    }
}

// A repeated float (fixed32) or double (fixed64) field, packed or one value per occurrence.
template <typename T>
void read_fixed(pbf_reader& r, std::vector<T>& out, const Context& ctx, const char* field) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
    if (r.wire_type() == (sizeof(T) == 4 ? pbf_wire_type::fixed32 : pbf_wire_type::fixed64)) {
        if constexpr (sizeof(T) == 4)
            out.push_back(r.get_float());
        else
            out.push_back(r.get_double());
        return;
    }
    expect_wire(r, pbf_wire_type::length_delimited, ctx, field);
    protozero::data_view v = r.get_view();
    if (v.size() % sizeof(T) != 0)
        fail(ctx, std::string("packed field '") + field + "' has a length that is not a multiple of " +
                      std::to_string(sizeof(T)));
    size_t n = v.size() / sizeof(T), base = out.size();
    out.resize(base + n);
    if (n)
        std::memcpy(out.data() + base, v.data(), n * sizeof(T));
}

pbf_reader sub_message(pbf_reader& r, const Context& ctx, const char* field) {
    expect_wire(r, pbf_wire_type::length_delimited, ctx, field);
    return pbf_reader(r.get_view());
}

size_t element_size(int dt) {
    switch (dt) {
    case kFloat: case kInt32: case kUint32: return 4;
    case kDouble: case kInt64: case kUint64: return 8;
    case kFloat16: case kBFloat16: case kInt16: case kUint16: return 2;
    case kUint8: case kInt8: case kBool: return 1;
    default: return 0;
    }
}

// A little-endian value of type T at `p` (raw_data is little-endian, as wasm and x86 are).
template <typename T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

float bfloat16_to_float(uint16_t v) {
    uint32_t bits = (uint32_t)v << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// A TensorProto's payload as stored: raw_data, or one of the typed repeated fields.
struct TensorPayload {
    bool has_raw = false;
    protozero::data_view raw;
    std::vector<float> float_data;
    std::vector<int64_t> int32_data, int64_data, uint64_data;
    std::vector<double> double_data;
};

// external_data (field 13): the key/value pairs; `location` is the value of key "location".
void read_external_data(pbf_reader& r, Context& ctx, std::string& location) {
    pbf_reader e = sub_message(r, ctx, "external_data");
    std::string key, value;
    while (next_field(e)) {
        if (e.tag() == 1)
            key = read_string(e, ctx, "external_data.key");
        else if (e.tag() == 2)
            value = read_string(e, ctx, "external_data.value");
        else
            e.skip();
    }
    if (key == "location")
        location = value;
}

// The fields of a TensorProto: dims, type and name into `t`, the payload into `pl`. External data
// is refused here.
void read_tensor_fields(pbf_reader r, Tensor& t, TensorPayload& pl, Context& ctx, Scope& scope) {
    bool external = false, has_type = false;
    std::string location;
    while (next_field(r)) {
        switch (r.tag()) {
        case 1: read_varints(r, t.dims, ctx, "dims"); break;
        case 2:
            t.dtype = (int)read_int64(r, ctx, "data_type");
            has_type = true;
            break;
        case 4: read_fixed(r, pl.float_data, ctx, "float_data"); break;
        case 5: read_varints(r, pl.int32_data, ctx, "int32_data"); break;
        case 7: read_varints(r, pl.int64_data, ctx, "int64_data"); break;
        case 8:
            t.name = read_string(r, ctx, "name");
            scope.rename("tensor " + quote(t.name));
            break;
        case 9:
            expect_wire(r, pbf_wire_type::length_delimited, ctx, "raw_data");
            pl.raw = r.get_view();
            pl.has_raw = true;
            break;
        case 10: read_fixed(r, pl.double_data, ctx, "double_data"); break;
        case 11: read_varints(r, pl.uint64_data, ctx, "uint64_data", true); break;
        case 13:
            external = true;
            read_external_data(r, ctx, location);
            break;
        case 14:
            if (read_int64(r, ctx, "data_location") == 1)
                external = true;
            break;
        default: r.skip(); break;
        }
    }
    if (external)
        throw DecodeError{unsupported(ctx.str() + " keeps its data in an external file" +
                                      (location.empty() ? std::string() : " (" + quote(location) + ")") +
                                      "; nnfold imports self-contained .onnx files only (save the model "
                                      "without external data, e.g. onnx.save_model(m, path, "
                                      "save_as_external_data=False))")};
    if (!has_type)
        t.dtype = kUndefined;
}

// Element count, with each dim checked and the product kept far from overflow.
uint64_t element_count(const Tensor& t, const Context& ctx) {
    uint64_t n = 1;
    for (int64_t d : t.dims) {
        if (d < 0)
            fail(ctx, "negative dimension " + std::to_string(d));
        if (d > 0 && n > (uint64_t(1) << 62) / (uint64_t)d)
            fail(ctx, "dimensions overflow");
        n *= (uint64_t)d;
    }
    return n;
}

[[noreturn]] void count_error(const Tensor& t, const Context& ctx, uint64_t have, uint64_t n, const char* field,
                              bool truncated) {
    std::string dims;
    for (size_t k = 0; k < t.dims.size(); k++)
        dims += (k ? "," : "") + std::to_string(t.dims[k]);
    fail(ctx, std::string(field) + " holds " + std::to_string(have) + " values but dims [" + dims + "] need " +
                  std::to_string(n) + (truncated ? " (truncated tensor)" : ""));
}

// raw_data: n little-endian elements of `es` bytes each.
void convert_raw(const protozero::data_view& raw, size_t es, uint64_t n, Tensor& t, const Context& ctx) {
    if (raw.size() % es != 0 || raw.size() / es != n)
        count_error(t, ctx, raw.size() / es, n, "raw_data", true);
    const uint8_t* p = (const uint8_t*)raw.data();
    if (t.is_float())
        t.f.resize(n);
    else
        t.i.resize(n);
    for (uint64_t k = 0; k < n; k++, p += es) {
        switch (t.dtype) {
        case kFloat: t.f[k] = load<float>(p); break;
        case kDouble: t.f[k] = (float)load<double>(p); break;
        case kFloat16: t.f[k] = half_to_float(load<uint16_t>(p)); break;
        case kBFloat16: t.f[k] = bfloat16_to_float(load<uint16_t>(p)); break;
        case kInt64: t.i[k] = load<int64_t>(p); break;
        case kUint64: t.i[k] = (int64_t)load<uint64_t>(p); break;
        case kInt32: t.i[k] = load<int32_t>(p); break;
        case kUint32: t.i[k] = load<uint32_t>(p); break;
        case kInt16: t.i[k] = load<int16_t>(p); break;
        case kUint16: t.i[k] = load<uint16_t>(p); break;
        case kInt8: t.i[k] = (int8_t)*p; break;
        case kUint8: t.i[k] = *p; break;
        case kBool: t.i[k] = *p ? 1 : 0; break;
        }
    }
}

// The typed repeated field that holds t.dtype's values (onnx.proto's table), n of them.
void convert_typed(TensorPayload& pl, uint64_t n, Tensor& t, const Context& ctx) {
    auto need = [&](size_t have, const char* field) {
        if (have != n)
            count_error(t, ctx, have, n, field, false);
    };
    switch (t.dtype) {
    case kFloat:
        need(pl.float_data.size(), "float_data");
        t.f = std::move(pl.float_data);
        break;
    case kDouble:
        need(pl.double_data.size(), "double_data");
        t.f.assign(pl.double_data.begin(), pl.double_data.end());
        break;
    case kFloat16:
    case kBFloat16:
        // stored as uint16 bit patterns in int32_data
        need(pl.int32_data.size(), "int32_data");
        t.f.resize(n);
        for (uint64_t k = 0; k < n; k++)
            t.f[k] = t.dtype == kFloat16 ? half_to_float((uint16_t)pl.int32_data[k])
                                         : bfloat16_to_float((uint16_t)pl.int32_data[k]);
        break;
    case kInt64:
        need(pl.int64_data.size(), "int64_data");
        t.i = std::move(pl.int64_data);
        break;
    case kUint32:
    case kUint64:
        need(pl.uint64_data.size(), "uint64_data");
        t.i = std::move(pl.uint64_data);
        break;
    default:  // int32, int16, int8, uint16, uint8, bool
        need(pl.int32_data.size(), "int32_data");
        t.i = std::move(pl.int32_data);
        if (t.dtype == kBool)
            for (auto& v : t.i)
                v = v ? 1 : 0;
        break;
    }
}

// Converts a tensor's stored payload (raw_data or one of the typed repeated fields) into
// t.f / t.i, checking the element count against dims first.
void decode_tensor(pbf_reader r, Tensor& t, Context& ctx, Scope& scope) {
    TensorPayload pl;
    read_tensor_fields(r, t, pl, ctx, scope);
    uint64_t n = element_count(t, ctx);
    if (t.dtype == kString || t.dtype == kComplex64 || t.dtype == kComplex128 || t.dtype == kUndefined)
        return;  // kept as a type only; using such a tensor is an error later
    size_t es = element_size(t.dtype);
    if (es == 0)
        fail(ctx, "unknown data_type " + std::to_string(t.dtype));
    if (pl.has_raw)
        convert_raw(pl.raw, es, n, t, ctx);
    else
        convert_typed(pl, n, t, ctx);
}

struct GraphLists {
    std::vector<Node>& nodes;
    std::vector<Tensor>& initializers;
    std::vector<ValueInfo>& inputs;
    std::vector<ValueInfo>& outputs;
    std::vector<ValueInfo>& value_infos;
};
void decode_graph(pbf_reader r, GraphLists m, Context& ctx);

// A sub-graph; nesting deeper than kMaxGraphDepth is refused before recursing further.
void decode_subgraph(pbf_reader r, SubGraph& g, Context& ctx) {
    if (ctx.graph_depth >= kMaxGraphDepth)  // the message leaves out the 32-level context
        throw DecodeError{resource_limit("the model has sub-graphs (If/Loop bodies) nested more than " +
                                         std::to_string(kMaxGraphDepth) + " deep, nnfold's limit")};
    ctx.graph_depth++;
    decode_graph(r, GraphLists{g.nodes, g.initializers, g.inputs, g.outputs, g.value_infos}, ctx);
    ctx.graph_depth--;
}

void decode_attribute(pbf_reader r, Attribute& a, Context& ctx, Scope& scope) {
    bool has_type = false;
    int seen = kAttrUndefined;
    while (next_field(r)) {
        switch (r.tag()) {
        case 1:
            a.name = read_string(r, ctx, "name");
            scope.rename("attribute " + quote(a.name));
            break;
        case 20:
            a.type = (int)read_int64(r, ctx, "type");
            has_type = true;
            break;
        case 2:
            expect_wire(r, pbf_wire_type::fixed32, ctx, "f");
            a.f = r.get_float();
            seen = kAttrFloat;
            break;
        case 3:
            a.i = read_int64(r, ctx, "i");
            seen = kAttrInt;
            break;
        case 4:
            expect_wire(r, pbf_wire_type::length_delimited, ctx, "s");
            a.s = r.get_string();
            seen = kAttrString;
            break;
        case 5: {
            pbf_reader tr = sub_message(r, ctx, "t");
            a.t.clear();
            a.t.emplace_back();
            Scope ts(ctx, "tensor");
            decode_tensor(tr, a.t.back(), ctx, ts);
            seen = kAttrTensor;
            break;
        }
        case 6:
        case 11: {
            const bool single = r.tag() == 6;
            pbf_reader gr = sub_message(r, ctx, single ? "g" : "graphs");
            if (single)
                a.graphs.clear();
            auto sg = std::make_shared<SubGraph>();
            Scope gs(ctx, "sub-graph");
            decode_subgraph(gr, *sg, ctx);
            a.graphs.push_back(std::move(sg));
            seen = single ? kAttrGraph : kAttrGraphs;
            break;
        }
        case 7:
            read_fixed(r, a.floats, ctx, "floats");
            seen = kAttrFloats;
            break;
        case 8:
            read_varints(r, a.ints, ctx, "ints");
            seen = kAttrInts;
            break;
        case 9:
            expect_wire(r, pbf_wire_type::length_delimited, ctx, "strings");
            a.strings.push_back(r.get_string());
            seen = kAttrStrings;
            break;
        default: r.skip(); break;
        }
    }
    if (!has_type)
        a.type = seen;  // IR version 1 files carry no type field
}

void decode_node(pbf_reader r, Node& n, Context& ctx, Scope& scope) {
    while (next_field(r)) {
        switch (r.tag()) {
        case 1: n.inputs.push_back(read_string(r, ctx, "input")); break;
        case 2: n.outputs.push_back(read_string(r, ctx, "output")); break;
        case 3:
            n.name = read_string(r, ctx, "name");
            scope.rename("node " + quote(n.name));
            break;
        case 4: n.op_type = read_string(r, ctx, "op_type"); break;
        case 7: n.domain = read_string(r, ctx, "domain"); break;
        case 5: {
            pbf_reader ar = sub_message(r, ctx, "attribute");
            n.attrs.emplace_back();
            Scope as(ctx, "attribute");
            decode_attribute(ar, n.attrs.back(), ctx, as);
            break;
        }
        default: r.skip(); break;
        }
    }
}

void decode_value_info(pbf_reader r, ValueInfo& v, Context& ctx, Scope& scope) {
    while (next_field(r)) {
        if (r.tag() == 1) {
            v.name = read_string(r, ctx, "name");
            scope.rename("value " + quote(v.name));
        } else if (r.tag() == 2) {
            pbf_reader type = sub_message(r, ctx, "type");
            while (next_field(type)) {
                if (type.tag() != 1) {  // sequence/map/optional types: left as undefined
                    type.skip();
                    continue;
                }
                pbf_reader tt = sub_message(type, ctx, "tensor_type");
                while (next_field(tt)) {
                    if (tt.tag() == 1) {
                        v.elem_type = (int)read_int64(tt, ctx, "elem_type");
                    } else if (tt.tag() == 2) {
                        v.has_shape = true;
                        pbf_reader shape = sub_message(tt, ctx, "shape");
                        while (next_field(shape)) {
                            if (shape.tag() != 1) {
                                shape.skip();
                                continue;
                            }
                            pbf_reader dim = sub_message(shape, ctx, "dim");
                            int64_t value = -1;
                            std::string param;
                            while (next_field(dim)) {
                                if (dim.tag() == 1)
                                    value = read_int64(dim, ctx, "dim_value");
                                else if (dim.tag() == 2)
                                    param = read_string(dim, ctx, "dim_param");
                                else
                                    dim.skip();
                            }
                            v.dims.push_back(value < 0 ? -1 : value);
                            v.dim_params.push_back(param);
                        }
                    } else {
                        tt.skip();
                    }
                }
            }
        } else {
            r.skip();
        }
    }
}

void decode_graph(pbf_reader r, GraphLists m, Context& ctx) {
    while (next_field(r)) {
        switch (r.tag()) {
        case 1: {
            pbf_reader nr = sub_message(r, ctx, "node");
            m.nodes.emplace_back();
            Scope s(ctx, "node #" + std::to_string(m.nodes.size() - 1));
            decode_node(nr, m.nodes.back(), ctx, s);
            break;
        }
        case 5: {
            pbf_reader tr = sub_message(r, ctx, "initializer");
            m.initializers.emplace_back();
            Scope s0(ctx, "initializer");
            Scope s(ctx, "tensor #" + std::to_string(m.initializers.size() - 1));
            decode_tensor(tr, m.initializers.back(), ctx, s);
            break;
        }
        case 15:
            throw DecodeError{unsupported("the model has sparse initializers, which nnfold does not import")};
        case 11:
        case 12:
        case 13: {
            // the tag is read before the message: protozero resets it after a read in builds
            // without NDEBUG (its "detect wrong code" mode)
            const uint32_t tag = r.tag();
            const char* field = tag == 11 ? "input" : tag == 12 ? "output" : "value_info";
            pbf_reader vr = sub_message(r, ctx, field);
            auto& list = tag == 11 ? m.inputs : tag == 12 ? m.outputs : m.value_infos;
            list.emplace_back();
            Scope s0(ctx, std::string("graph ") + field);
            Scope s(ctx, "value #" + std::to_string(list.size() - 1));
            decode_value_info(vr, list.back(), ctx, s);
            break;
        }
        default: r.skip(); break;
        }
    }
}

}  // namespace

Status decode_model(const uint8_t* data, size_t size, Model& m) {
    m = Model();
    if (!data || size == 0)
        return invalid_model("not an ONNX model: the file is empty");
    if (size > (size_t)std::numeric_limits<uint32_t>::max())
        return resource_limit("the ONNX file is larger than 4 GB (protobuf's limit is 2 GB)");
    // A ModelProto starts with a field tag; text files (a .param, JSON, HTML) never decode as one,
    // but check the common mistakes first for a clearer message.
    if (size >= 7 && std::memcmp(data, "7767517", 7) == 0)
        return invalid_model("not an ONNX model: this is an ncnn .param file");
    Context ctx;
    bool have_graph = false, have_ir = false;
    try {
        pbf_reader r((const char*)data, size);
        while (next_field(r)) {
            switch (r.tag()) {
            case 1:
                m.ir_version = read_int64(r, ctx, "ir_version");
                have_ir = true;
                break;
            case 2: m.producer_name = read_string(r, ctx, "producer_name"); break;
            case 3: m.producer_version = read_string(r, ctx, "producer_version"); break;
            case 7: {
                pbf_reader g = sub_message(r, ctx, "graph");
                Scope s(ctx, "graph");
                decode_graph(g, GraphLists{m.nodes, m.initializers, m.inputs, m.outputs, m.value_infos}, ctx);
                have_graph = true;
                break;
            }
            case 8: {
                pbf_reader o = sub_message(r, ctx, "opset_import");
                std::string domain;
                int64_t version = 0;
                while (next_field(o)) {
                    if (o.tag() == 1)
                        domain = read_string(o, ctx, "opset_import.domain");
                    else if (o.tag() == 2)
                        version = read_int64(o, ctx, "opset_import.version");
                    else
                        o.skip();
                }
                if (domain == "ai.onnx")
                    domain.clear();
                m.opsets[domain] = version;
                break;
            }
            default: r.skip(); break;
            }
        }
    } catch (const DecodeError& e) {
        return e.status;
    } catch (const protozero::end_of_buffer_exception&) {
        return invalid_model("not an ONNX model, or a truncated one: the data ends inside " + ctx.str());
    } catch (const std::bad_alloc&) {
        return resource_limit("out of memory while decoding " + ctx.str());
    } catch (const std::exception& e) {
        return invalid_model("not an ONNX model: malformed protobuf in " + ctx.str() + " (" + e.what() + ")");
    }
    if (!have_graph || !have_ir)
        return invalid_model(std::string("not an ONNX model: no ") + (!have_ir ? "ir_version" : "graph") +
                             " field (an ONNX ModelProto has both)");
    // IR version 3 and later require opset_import (a file cut short can lose it)
    if (m.opsets.empty() && m.ir_version >= 3)
        return invalid_model("not an ONNX model, or a truncated one: no opset_import");
    if (m.nodes.empty() && m.outputs.empty())
        return invalid_model("not an ONNX model: the graph is empty");
    return Status::ok();
}

}  // namespace onnx
}  // namespace nnfold
