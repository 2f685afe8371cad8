// The Importer's services to the translators (onnx_importer.h): messages, attributes and inputs
// of the current node, ncnn names and blobs, emitting layers and weights, defining outputs.
#include <cmath>
#include <cstdio>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

// ---------------------------------------------------------------------------------------------
// Importer: messages, attributes, inputs

std::string Importer::where() const {
    if (!cur)
        return "ONNX graph";
    std::string n = cur->name.empty() ? (cur->outputs.empty() ? std::string("?") : cur->outputs[0]) : cur->name;
    return "node " + quote(n) + " (" + sanitize(cur->op_type) + ")";
}

int64_t Importer::attr_i(const char* name, int64_t def) const {
    const Attribute* a = cur->attr(name);
    return a ? a->i : def;
}

float Importer::attr_f(const char* name, float def) const {
    const Attribute* a = cur->attr(name);
    return a ? a->f : def;
}

std::string Importer::attr_s(const char* name, const std::string& def) const {
    const Attribute* a = cur->attr(name);
    return a ? a->s : def;
}

bool Importer::attr_ints(const char* name, Dims& out) const {
    const Attribute* a = cur->attr(name);
    if (!a)
        return false;
    out = a->ints;
    return true;
}

const Value& Importer::in(size_t k) const {
    if (!has_in(k))
        throw MissingInput(where() + ": input " + std::to_string(k) + " is missing (the node has " +
                           std::to_string(cur->inputs.size()) + " inputs)");
    auto it = values_.find(cur->inputs[k]);
    if (it == values_.end())
        throw MissingInput(where() + ": input " + quote(cur->inputs[k]) + " is not produced by any node, initializer or graph input");
    return it->second;
}

const Tensor* Importer::const_in(size_t k) const {
    if (!has_in(k))
        return nullptr;
    const Value& v = in(k);
    return v.is_const ? &v.c : nullptr;
}

Status Importer::need_const(size_t k, const char* what, const Tensor*& t) const {
    t = const_in(k);
    if (!has_in(k))
        return invalid_here(std::string("missing input ") + what);
    if (!t)
        return unsupported_here(std::string(what) + " (input " + std::to_string(k) + ", " + quote(cur->inputs[k]) +
                                ") must be a constant; it is computed at run time");
    if (!t->has_data())
        return unsupported_here(std::string(what) + " has element type " + data_type_name(t->dtype) +
                                ", which nnfold cannot use");
    return Status::ok();
}

Status Importer::need_ints(size_t k, const char* what, Dims& out) const {
    const Tensor* t = nullptr;
    NF_RETURN_IF_ERROR(need_const(k, what, t));
    out.clear();
    for (size_t i = 0; i < t->numel(); i++) {
        double v = t->at(i);
        int64_t iv = 0;
        if (t->is_float() && (v != std::floor(v) || !float_to_int64(v, iv)))
            return invalid_here(std::string(what) + " must hold integers");
        out.push_back(t->is_float() ? iv : t->i[i]);
    }
    return Status::ok();
}

Status Importer::ints_attr_or_input(const char* name, size_t k, Dims& out, bool& has) const {
    has = attr_ints(name, out);
    if (!has_in(k))
        return Status::ok();
    has = true;
    return need_ints(k, name, out);
}

// ---------------------------------------------------------------------------------------------
// Importer: names and blobs

// ncnn reads names as whitespace-separated tokens of at most 255 characters: names with
// whitespace or control characters are rewritten, long ones shortened with a hash of the original
// (the mapping is kept in Graph::original_names).
std::string Importer::ncnn_name(const std::string& original, bool blob) {
    std::string n;
    for (unsigned char c : original)
        n += (c <= 0x20 || c == 0x7f) ? '_' : (char)c;
    if (n.empty())
        n = blob ? "blob" : "layer";
    if (n.size() > 255) {
        uint64_t h = 1469598103934665603ull;  // FNV-1a 64
        for (unsigned char c : original) {
            h ^= c;
            h *= 1099511628211ull;
        }
        char hex[17];
        snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
        n = n.substr(0, 200) + "~" + hex;
    }
    return n;
}

std::string Importer::unique_blob_name(const std::string& base) {
    std::string n = base;
    int k = 1;
    while (blob_names_.count(n))
        n = base.substr(0, 240) + "_" + std::to_string(k++);
    return n;
}

int Importer::add_blob(const std::string& name, const Shape& s, bool temp) {
    std::string n = unique_blob_name(name);
    blob_names_.insert(n);
    int b = g.add_blob(n, s);
    blob_is_temp_.push_back(temp ? 1 : 0);
    return b;
}

int Importer::temp_blob(const Shape& s) {
    std::string base = cur && !cur->outputs.empty() ? ncnn_name(cur->outputs[0], true) : std::string("nf");
    return add_blob(base.substr(0, 230) + "_nf" + std::to_string(temp_seq_++), s, true);
}

// `name`, or `name` (cut to 240) + "_k" for the first k free, reserved as a layer name.
std::string Importer::unique_layer_name(const std::string& name) {
    std::string u = name;
    int k = 1;
    while (layer_names_.count(u))
        u = name.substr(0, 240) + "_" + std::to_string(k++);
    layer_names_.insert(u);
    return u;
}

void Importer::rename_layer(int layer, const std::string& name) {
    layer_names_.erase(g.layers[layer].name);
    g.layers[layer].name = unique_layer_name(name);
}

int Importer::emit(const std::string& type, const std::string& suffix, const std::vector<int>& bottoms,
                   const std::vector<int>& tops, const ParamDict& pd) {
    std::string base;
    if (cur)
        base = !cur->name.empty() ? cur->name : (!cur->outputs.empty() ? cur->outputs[0] : type);
    else
        base = type;
    std::string orig = suffix.empty() ? base : base + "_" + suffix;
    std::string u = unique_layer_name(ncnn_name(orig, false));
    if (u != orig && orig.size() > 255)
        g.original_names[u] = orig;
    LayerNode l;
    l.type = type;
    l.name = u;
    l.bottoms = bottoms;
    l.tops = tops;
    l.params = pd;
    return g.add_layer(std::move(l));
}

Status Importer::const_blob(const Tensor& t, const Shape& s, int& blob) {
    if (!t.has_data())
        return unsupported_here("constant " + quote(t.name) + " has element type " + data_type_name(t.dtype) +
                                ", which nnfold cannot use");
    if (s.total() != t.numel())
        return internal_error(where() + ": constant " + quote(t.name) + " does not fit shape " + s.str());
    std::string key = t.name + "|" + s.str();
    auto it = const_cache_.find(key);
    if (!t.name.empty() && it != const_cache_.end()) {
        blob = it->second;
        return Status::ok();
    }
    blob = add_blob(ncnn_name(t.name.empty() ? "const" : t.name, true), s, false);
    const Node* saved = cur;
    cur = nullptr;
    int l = emit("MemoryData", "", {}, {blob}, shape_params(s));
    rename_layer(l, g.blobs[blob].name);  // MemoryData layers are named after their constant
    cur = saved;
    std::vector<float> v(t.numel());
    for (size_t k = 0; k < v.size(); k++)
        v[k] = (float)t.at(k);
    NF_RETURN_IF_ERROR(set_weights(l, {std::move(v)}));
    if (!t.name.empty())
        const_cache_[key] = blob;
    return Status::ok();
}

Status Importer::reshape_blob(int blob, const Shape& s, int& out) {
    if (g.blobs[blob].shape == s) {
        out = blob;
        return Status::ok();
    }
    if (g.blobs[blob].shape.total() != s.total())
        return internal_error(where() + ": reshape of " + g.blobs[blob].shape.str() + " to " + s.str());
    out = temp_blob(s);
    // ncnn Reshape takes the shape as MemoryData does: the number of given dims sets the rank.
    emit("Reshape", "reshape", {blob}, {out}, shape_params(s));
    return Status::ok();
}

Status Importer::input_blob(size_t k, int& blob) {
    const Value& v = in(k);
    if (!v.is_const) {
        blob = v.blob;
        return Status::ok();
    }
    if (high_rank(v.shape) && !rank_aware_)
        return unsupported_here("constant input " + quote(cur->inputs[k]) + " has shape " + dims_str(v.shape) +
                                " (rank " + std::to_string(v.shape.size()) +
                                ", more than 4 axes after the batch axis), which " + sanitize(cur->op_type) +
                                " cannot take as a tensor in nnfold");
    Shape s;
    NF_RETURN_IF_ERROR(ncnn_shape_of(v.shape, s).with_context(where()));
    return const_blob(v.c, s, blob);
}

Status Importer::operand_blob(size_t k, const Dims& out, int& blob) {
    const Value& v = in(k);
    Shape s;
    NF_RETURN_IF_ERROR(operand_ncnn_shape(v.shape, out, s).with_context(where()));
    if (v.is_const)
        return const_blob(v.c, s, blob);
    return reshape_blob(v.blob, s, blob);
}

// ---------------------------------------------------------------------------------------------
// Importer: node outputs

Status Importer::define_runtime(size_t k, int blob, const Dims& shape, int dtype) {
    if (k >= cur->outputs.size() || cur->outputs[k].empty())
        return Status::ok();  // optional output not used
    const std::string& name = cur->outputs[k];
    if (high_rank(shape) && !rank_aware_)
        return unsupported_here("output " + quote(name) + " has shape " + dims_str(shape) + " (rank " +
                                std::to_string(shape.size()) + ", more than 4 axes after the batch axis), which " +
                                sanitize(cur->op_type) + " cannot produce in nnfold (docs/shapes-and-files.md)");
    int b = blob;
    // a data-dependent extent (NonMaxSuppression's count) is -1 in `shape`; the blob's dynamic
    // shape stands as it is (consumers of such a value are refused in translate_node)
    const bool dynamic = g.blobs[b].shape.dynamic;
    Shape s;
    if (!dynamic)
        NF_RETURN_IF_ERROR(ncnn_shape_of(shape, s).with_context(where() + " output " + quote(name)));
    if (!dynamic && g.blobs[b].shape != s) {
        if (g.blobs[b].shape.total() != s.total())
            return internal_error(where() + ": output " + quote(name) + " computed as " + g.blobs[b].shape.str() +
                                  " but ONNX expects " + dims_str(shape));
        NF_RETURN_IF_ERROR(reshape_blob(blob, s, b));
    }
    if (blob_is_temp_[b]) {
        blob_names_.erase(g.blobs[b].name);
        std::string n = unique_blob_name(ncnn_name(name, true));
        blob_names_.insert(n);
        if (n != name)
            g.original_names[n] = name;
        g.blobs[b].name = n;
        blob_is_temp_[b] = 0;
    }
    Value v;
    v.defined = true;
    v.shape = shape;
    v.dtype = dtype;
    v.blob = b;
    values_[name] = std::move(v);
    return Status::ok();
}

Status Importer::define_const(size_t k, Tensor t) {
    if (k >= cur->outputs.size() || cur->outputs[k].empty())
        return Status::ok();
    if (t.numel() > kMaxFoldElements)
        return resource_limit(where() + ": folding gives a constant of " + std::to_string(t.numel()) +
                              " elements, above nnfold's limit of " + std::to_string(kMaxFoldElements));
    Value v;
    v.defined = true;
    v.is_const = true;
    v.shape = t.dims;
    v.dtype = t.dtype;
    t.name = cur->outputs[k];
    v.c = std::move(t);
    values_[cur->outputs[k]] = std::move(v);
    return Status::ok();
}

Status Importer::define_alias(size_t k, const Value& v) {
    if (k >= cur->outputs.size() || cur->outputs[k].empty())
        return Status::ok();
    if (v.is_const) {
        Tensor t = v.c;
        return define_const(k, std::move(t));
    }
    Value copy = v;
    values_[cur->outputs[k]] = std::move(copy);
    return Status::ok();
}

}  // namespace onnx
}  // namespace nnfold
