// The ONNX import driver: decode, check every operator is supported (one error listing them all),
// rewrite a few ONNX-level patterns (tf2onnx input Transposes, Transpose pairs, the Erf form of
// GELU), then translate node by node in topological order: nodes whose inputs are all constants
// fold at import, the rest become ncnn layers (onnx_ops_*.cpp). Finally dead layers are dropped,
// Split layers inserted where a blob has several consumers (as ncnn's converters do), and nnfold's
// own shape inference must agree with the shape every translator expected for every blob.
#include "io/onnx/onnx_import.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <new>

#include "analysis/analysis.h"
#include "analysis/weight_specs.h"
#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "layers/layer.h"

namespace nnfold {

bool looks_like_onnx(const uint8_t* data, size_t size) {
    // ModelProto field 1 (ir_version, varint) is written first by every ONNX serializer: tag 0x08.
    return size >= 2 && data[0] == 0x08 && data[1] < 0x80;
}

namespace onnx {

// ---------------------------------------------------------------------------------------------
// shape helpers

std::string dims_str(const Dims& d) {
    std::string s = "[";
    for (size_t k = 0; k < d.size(); k++)
        s += (k ? "," : "") + std::to_string(d[k]);
    return s + "]";
}

static Status list_to_shape(const Dims& t, Shape& out, const Dims& original) {
    if (t.size() > 4)
        return unsupported("tensor of shape " + dims_str(original) +
                           ": ncnn blobs have at most 4 dimensions after the batch axis of 1");
    std::vector<int> l;
    for (int64_t v : t) {
        if (v <= 0)
            return unsupported("tensor of shape " + dims_str(original) + ": empty tensors are not supported");
        if (v > 0x7fffffff)
            return resource_limit("tensor of shape " + dims_str(original) + " is too large");
        l.push_back((int)v);
    }
    if (l.empty())
        l.push_back(1);
    out = Shape::from_list(l);
    if (!out.valid())
        return resource_limit("tensor of shape " + dims_str(original) + " is too large");
    return Status::ok();
}

Status ncnn_shape_of(const Dims& s, Shape& out) {
    Dims t = s;
    if (drops_batch(t))
        t.erase(t.begin());
    return list_to_shape(t, out, s);
}

Status operand_ncnn_shape(const Dims& a, const Dims& out, Shape& result) {
    if (a.size() > out.size())
        return internal_error("operand rank above output rank");
    Dims t(out.size() - a.size(), 1);
    t.insert(t.end(), a.begin(), a.end());
    if (drops_batch(out))
        t.erase(t.begin());
    return list_to_shape(t, result, a);
}

bool broadcast_shapes(const Dims& a, const Dims& b, Dims& out) {
    size_t r = std::max(a.size(), b.size());
    out.assign(r, 1);
    for (size_t k = 0; k < r; k++) {
        int64_t da = k < r - a.size() ? 1 : a[k - (r - a.size())];
        int64_t db = k < r - b.size() ? 1 : b[k - (r - b.size())];
        if (da != db && da != 1 && db != 1)
            return false;
        out[k] = da == 1 ? db : da;
    }
    return true;
}

bool norm_axis(int64_t axis, size_t rank, int& out) {
    int64_t r = (int64_t)rank;
    if (axis < -r || axis >= r)
        return false;
    out = (int)(axis < 0 ? axis + r : axis);
    return true;
}

const std::map<std::string, OpFn>& op_table() {
    static const std::map<std::string, OpFn> t = [] {
        std::map<std::string, OpFn> m;
        register_elementwise_ops(m);
        register_nn_ops(m);
        register_shape_ops(m);
        return m;
    }();
    return t;
}

// Ops that only ever fold (their inputs must be constant, or their result depends only on shapes).
static bool fold_only_op(const std::string& op) {
    static const std::set<std::string> s = {"Constant", "ConstantOfShape", "Shape", "Size", "Range", "Tile",
                                            "Not", "And", "Or", "Mod", "Sign"};
    return s.count(op) > 0;
}

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

void Importer::rename_layer(int layer, const std::string& name) {
    layer_names_.erase(g.layers[layer].name);
    std::string u = name;
    int k = 1;
    while (layer_names_.count(u))
        u = name.substr(0, 240) + "_" + std::to_string(k++);
    layer_names_.insert(u);
    g.layers[layer].name = u;
}

int Importer::emit(const std::string& type, const std::string& suffix, const std::vector<int>& bottoms,
                   const std::vector<int>& tops, const ParamDict& pd) {
    std::string base;
    if (cur)
        base = !cur->name.empty() ? cur->name : (!cur->outputs.empty() ? cur->outputs[0] : type);
    else
        base = type;
    std::string orig = suffix.empty() ? base : base + "_" + suffix;
    std::string n = ncnn_name(orig, false);
    std::string u = n;
    int k = 1;
    while (layer_names_.count(u))
        u = n.substr(0, 240) + "_" + std::to_string(k++);
    layer_names_.insert(u);
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

Status Importer::set_weights(int layer, std::vector<std::vector<float>> arrays) {
    LayerNode& l = g.layers[layer];
    std::vector<WeightSpec> specs;
    NF_RETURN_IF_ERROR(weight_specs_for(l, specs).with_context(layer_desc(l.name, l.type)));
    if (specs.size() != arrays.size())
        return internal_error(layer_desc(l.name, l.type) + ": " + std::to_string(arrays.size()) +
                              " weight arrays for " + std::to_string(specs.size()) + " specs");
    l.weights.clear();
    for (size_t k = 0; k < specs.size(); k++) {
        if (arrays[k].size() != specs[k].count)
            return internal_error(layer_desc(l.name, l.type) + ": weight array " + specs[k].name + " has " +
                                  std::to_string(arrays[k].size()) + " values, expected " +
                                  std::to_string(specs[k].count));
        l.weights.push_back(specs[k].tagged ? WeightArray::tagged_f32(std::move(arrays[k]))
                                            : WeightArray::untagged(std::move(arrays[k])));
    }
    return Status::ok();
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
    ParamDict pd;
    pd.set_int(0, s.w);
    if (s.dims >= 2)
        pd.set_int(1, s.h);
    if (s.dims >= 4)
        pd.set_int(11, s.d);
    if (s.dims >= 3)
        pd.set_int(2, s.c);
    const Node* saved = cur;
    cur = nullptr;
    int l = emit("MemoryData", "", {}, {blob}, pd);
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
    ParamDict pd;
    // ncnn Reshape: 0=w 1=h 11=d 2=c; the number of given dims sets the output rank.
    pd.set_int(0, s.w);
    if (s.dims >= 2)
        pd.set_int(1, s.h);
    if (s.dims >= 4)
        pd.set_int(11, s.d);
    if (s.dims >= 3)
        pd.set_int(2, s.c);
    emit("Reshape", "reshape", {blob}, {out}, pd);
    return Status::ok();
}

Status Importer::input_blob(size_t k, int& blob) {
    const Value& v = in(k);
    if (!v.is_const) {
        blob = v.blob;
        return Status::ok();
    }
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
    Shape s;
    NF_RETURN_IF_ERROR(ncnn_shape_of(shape, s).with_context(where() + " output " + quote(name)));
    int b = blob;
    if (g.blobs[b].shape != s) {
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

// ---------------------------------------------------------------------------------------------
// ONNX-level rewrites before translation

namespace {

struct NodeGraph {
    std::map<std::string, int> producer;                  // value -> node index
    std::map<std::string, std::vector<int>> consumers;    // value -> node indices (one per use)
    std::set<std::string> graph_outputs;

    NodeGraph(const std::vector<Node>& nodes, const Model& m) {
        for (size_t i = 0; i < nodes.size(); i++) {
            for (auto& o : nodes[i].outputs)
                if (!o.empty())
                    producer[o] = (int)i;
            for (auto& x : nodes[i].inputs)
                if (!x.empty())
                    consumers[x].push_back((int)i);
        }
        for (auto& o : m.outputs)
            graph_outputs.insert(o.name);
    }
    // Single use, not a graph output.
    bool only_use(const std::string& v, int& node) const {
        auto it = consumers.find(v);
        if (it == consumers.end() || it->second.size() != 1 || graph_outputs.count(v))
            return false;
        node = it->second[0];
        return true;
    }
};

bool get_perm(const Node& n, Dims& perm) {
    const Attribute* a = n.attr("perm");
    if (!a)
        return false;
    perm = a->ints;
    return true;
}

}  // namespace

// Kahn's algorithm; the ONNX spec requires sorted nodes but not every exporter complies.
static Status topo_sort(std::vector<Node>& nodes, const std::set<std::string>& available) {
    std::map<std::string, int> producer;
    for (size_t i = 0; i < nodes.size(); i++)
        for (auto& o : nodes[i].outputs)
            if (!o.empty()) {
                if (producer.count(o))
                    return invalid_model("value " + quote(o) + " is produced by two nodes");
                producer[o] = (int)i;
            }
    std::vector<int> pending(nodes.size(), 0);
    std::map<int, std::vector<int>> users;
    for (size_t i = 0; i < nodes.size(); i++) {
        std::set<int> deps;
        for (auto& x : nodes[i].inputs) {
            if (x.empty())
                continue;
            auto it = producer.find(x);
            if (it != producer.end())
                deps.insert(it->second);
            else if (!available.count(x))
                return invalid_model("node " + quote(nodes[i].name) + " (" + sanitize(nodes[i].op_type) +
                                     ") reads " + quote(x) + ", which no node, input or initializer provides");
        }
        pending[i] = (int)deps.size();
        for (int d : deps)
            users[d].push_back((int)i);
    }
    std::vector<int> order, ready;
    for (size_t i = 0; i < nodes.size(); i++)
        if (pending[i] == 0)
            ready.push_back((int)i);
    std::reverse(ready.begin(), ready.end());
    while (!ready.empty()) {
        int i = ready.back();
        ready.pop_back();
        order.push_back(i);
        std::vector<int> next;
        for (int u : users[i])
            if (--pending[u] == 0)
                next.push_back(u);
        std::sort(next.rbegin(), next.rend());
        ready.insert(ready.end(), next.begin(), next.end());
    }
    if (order.size() != nodes.size())
        return invalid_model("the ONNX graph has a cycle");
    std::vector<Node> sorted;
    sorted.reserve(nodes.size());
    for (int i : order)
        sorted.push_back(std::move(nodes[i]));
    nodes = std::move(sorted);
    return Status::ok();
}

// Nodes that contribute to a graph output, in order.
static std::vector<int> live_nodes(const std::vector<Node>& nodes, const Model& m) {
    std::set<std::string> needed;
    for (auto& o : m.outputs)
        needed.insert(o.name);
    std::vector<char> live(nodes.size(), 0);
    for (size_t i = nodes.size(); i-- > 0;) {
        bool any = false;
        for (auto& o : nodes[i].outputs)
            if (!o.empty() && needed.count(o))
                any = true;
        if (!any)
            continue;
        live[i] = 1;
        for (auto& x : nodes[i].inputs)
            if (!x.empty())
                needed.insert(x);
    }
    std::vector<int> r;
    for (size_t i = 0; i < nodes.size(); i++)
        if (live[i])
            r.push_back((int)i);
    return r;
}

// Transpose(p) -> Transpose(q) with the middle value used once: one Transpose with perm p[q[k]]
// (an Identity when that is the identity). tf2onnx leaves such pairs around layout changes.
static void merge_transpose_pairs(std::vector<Node>& nodes, const Model& m) {
    bool changed = true;
    while (changed) {
        changed = false;
        NodeGraph ng(nodes, m);
        for (size_t i = 0; i < nodes.size(); i++) {
            Node& a = nodes[i];
            Dims p, q;
            if (a.op_type != "Transpose" || a.outputs.size() != 1 || !get_perm(a, p))
                continue;
            int j;
            if (!ng.only_use(a.outputs[0], j) || nodes[j].op_type != "Transpose" || !get_perm(nodes[j], q) ||
                q.size() != p.size())
                continue;
            Node& b = nodes[j];
            Dims r(q.size());
            bool identity = true, valid = true;
            for (size_t k = 0; k < q.size(); k++) {
                if (q[k] < 0 || q[k] >= (int64_t)p.size()) {
                    valid = false;
                    break;
                }
                r[k] = p[q[k]];
                identity = identity && r[k] == (int64_t)k;
            }
            if (!valid)
                continue;
            b.inputs[0] = a.inputs[0];
            if (identity) {
                b.op_type = "Identity";
                b.attrs.clear();
            } else {
                for (auto& at : b.attrs)
                    if (at.name == "perm")
                        at.ints = r;
            }
            a.outputs[0].clear();  // dead now
            a.op_type = "Identity";
            changed = true;
            break;
        }
    }
}

static bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol; }

// The Erf form of GELU, as PyTorch exports nn.GELU():
//   y = x * 0.5 * (1 + erf(x / sqrt(2)))   in any of the usual association orders
// becomes one "Gelu" node (ONNX opset 20's operator; translated to ncnn GELU).
void fuse_gelu(std::vector<Node>& nodes, const Model& m, const std::function<const Tensor*(const std::string&)>& konst) {
    auto scalar = [&](const std::string& name, double& v) {
        const Tensor* t = konst(name);
        if (!t || t->numel() != 1 || !t->has_data())
            return false;
        v = t->at(0);
        return true;
    };
    bool changed = true;
    while (changed) {
        changed = false;
        NodeGraph ng(nodes, m);
        for (size_t ei = 0; ei < nodes.size() && !changed; ei++) {
            Node& erf = nodes[ei];
            if (erf.op_type != "Erf" || erf.inputs.size() != 1 || erf.outputs.size() != 1)
                continue;
            // x / sqrt(2) or x * (1 / sqrt(2))
            auto pit = ng.producer.find(erf.inputs[0]);
            if (pit == ng.producer.end())
                continue;
            const Node& scale = nodes[pit->second];
            double c;
            std::string x;
            if (scale.op_type == "Div" && scale.inputs.size() == 2 && scalar(scale.inputs[1], c) &&
                near(c, std::sqrt(2.0), 1e-4))
                x = scale.inputs[0];
            else if (scale.op_type == "Mul" && scale.inputs.size() == 2 && scalar(scale.inputs[1], c) &&
                     near(c, std::sqrt(0.5), 1e-4))
                x = scale.inputs[0];
            else if (scale.op_type == "Mul" && scale.inputs.size() == 2 && scalar(scale.inputs[0], c) &&
                     near(c, std::sqrt(0.5), 1e-4))
                x = scale.inputs[1];
            else
                continue;
            int ai, mi, m2i;
            if (!ng.only_use(erf.outputs[0], ai))
                continue;
            const Node& add = nodes[ai];
            if (add.op_type != "Add" || add.inputs.size() != 2)
                continue;
            std::string one = add.inputs[0] == erf.outputs[0] ? add.inputs[1] : add.inputs[0];
            if (!scalar(one, c) || c != 1.0)
                continue;
            if (!ng.only_use(add.outputs[0], mi))
                continue;
            Node& m1 = nodes[mi];
            if (m1.op_type != "Mul" || m1.inputs.size() != 2)
                continue;
            std::string other = m1.inputs[0] == add.outputs[0] ? m1.inputs[1] : m1.inputs[0];
            int final_node = -1;
            if (other == x) {
                // (x * (1 + erf)) * 0.5
                if (ng.only_use(m1.outputs[0], m2i)) {
                    const Node& m2 = nodes[m2i];
                    std::string h = m2.inputs.size() == 2 ? (m2.inputs[0] == m1.outputs[0] ? m2.inputs[1] : m2.inputs[0]) : "";
                    if (m2.op_type == "Mul" && scalar(h, c) && c == 0.5)
                        final_node = m2i;
                }
            } else if (scalar(other, c) && c == 0.5) {
                // ((1 + erf) * 0.5) * x
                if (ng.only_use(m1.outputs[0], m2i)) {
                    const Node& m2 = nodes[m2i];
                    std::string h = m2.inputs.size() == 2 ? (m2.inputs[0] == m1.outputs[0] ? m2.inputs[1] : m2.inputs[0]) : "";
                    if (m2.op_type == "Mul" && h == x)
                        final_node = m2i;
                }
            } else {
                // (x * 0.5) * (1 + erf)
                auto hp = ng.producer.find(other);
                int hi;
                if (hp != ng.producer.end() && ng.only_use(other, hi)) {
                    const Node& half = nodes[hp->second];
                    if (half.op_type == "Mul" && half.inputs.size() == 2) {
                        std::string hx = half.inputs[0], hc = half.inputs[1];
                        if (!(hx == x && scalar(hc, c) && c == 0.5)) {
                            std::swap(hx, hc);
                        }
                        if (hx == x && scalar(hc, c) && c == 0.5)
                            final_node = mi;
                    }
                }
            }
            if (final_node < 0)
                continue;
            // Rewrite: the final node computes Gelu(x); the other nodes become dead.
            Node& f = nodes[final_node];
            f.op_type = "Gelu";
            f.domain.clear();
            f.inputs = {x};
            f.attrs.clear();
            changed = true;
        }
    }
}


static const std::set<std::string>& layout_free_unary() {
    static const std::set<std::string> s = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "HardSigmoid",
                                            "HardSwish", "Abs", "Neg", "Sqrt", "Exp", "Log", "Erf", "Clip",
                                            "Identity", "Gelu"};
    return s;
}

static const std::set<std::string>& layout_free_binary() {
    static const std::set<std::string> s = {"Add", "Sub", "Mul", "Div", "Pow", "Min", "Max"};
    return s;
}

// tf2onnx puts the model's NHWC input through elementwise preprocessing and then
// Transpose(0,3,1,2). When every path from an input ends in such a Transpose after only
// layout-free elementwise nodes (other operands scalars or per-channel vectors on the last axis),
// the input is taken as NCHW directly: the Transposes become Identity, per-channel constants are
// re-shaped to [C,1,1], and the IoMap entry records layout NHWC (io_to_ncnn transposes).
static Status absorb_input_transposes(std::vector<Node>& nodes, const Model& m,
                                      std::map<std::string, Tensor>& consts, std::map<std::string, Dims>& input_shapes,
                                      std::map<std::string, std::vector<int>>& absorbed, Warnings& warn) {
    for (auto& [name, shape] : input_shapes) {
        if (shape.size() != 4)
            continue;
        NodeGraph ng(nodes, m);
        std::vector<int> chain, transposes;
        std::vector<std::string> work = {name};
        std::set<std::string> seen;
        bool ok = true;
        while (!work.empty() && ok) {
            std::string v = work.back();
            work.pop_back();
            if (!seen.insert(v).second)
                continue;
            if (ng.graph_outputs.count(v)) {
                ok = false;
                break;
            }
            auto it = ng.consumers.find(v);
            if (it == ng.consumers.end())
                continue;
            for (int ni : it->second) {
                const Node& n = nodes[ni];
                Dims perm;
                if (n.op_type == "Transpose" && get_perm(n, perm) && perm == Dims{0, 3, 1, 2}) {
                    transposes.push_back(ni);
                    continue;
                }
                bool unary = layout_free_unary().count(n.op_type) > 0;
                bool binary = layout_free_binary().count(n.op_type) > 0;
                if (!unary && !binary) {
                    ok = false;
                    break;
                }
                // every other input must be a constant: a scalar or a vector along the last axis
                for (size_t k = 0; k < n.inputs.size(); k++) {
                    const std::string& x = n.inputs[k];
                    if (x.empty() || seen.count(x) || x == v)
                        continue;
                    auto ct = consts.find(x);
                    if (ct == consts.end()) {
                        // a runtime operand from elsewhere: only fine if it is also in the chain
                        // (checked when we reach it); otherwise the layouts would mix
                        bool in_chain = false;
                        for (auto& w : work)
                            in_chain = in_chain || w == x;
                        if (!in_chain) {
                            ok = false;
                            break;
                        }
                        continue;
                    }
                    const Dims& d = ct->second.dims;
                    if (d.size() > 4) {
                        ok = false;
                        break;
                    }
                    for (size_t q = 0; q + 1 < d.size(); q++)
                        if (d[q] != 1)
                            ok = false;
                    if (!d.empty() && d.back() != 1 && d.back() != shape[3])
                        ok = false;
                }
                if (!ok)
                    break;
                if (n.outputs.size() != 1) {
                    ok = false;
                    break;
                }
                chain.push_back(ni);
                work.push_back(n.outputs[0]);
            }
        }
        if (!ok || transposes.empty())
            continue;
        // rewrite
        for (int ni : chain) {
            Node& n = nodes[ni];
            for (auto& x : n.inputs) {
                auto ct = consts.find(x);
                if (x.empty() || ct == consts.end())
                    continue;
                const Dims& d = ct->second.dims;
                if (d.empty() || d.back() == 1)
                    continue;  // scalar-like: broadcasts the same in NCHW
                std::string nn = x + "_nchw";
                if (!consts.count(nn)) {
                    Tensor t = ct->second;
                    t.name = nn;
                    t.dims = {d.back(), 1, 1};
                    consts[nn] = std::move(t);
                }
                x = nn;
            }
        }
        for (int ni : transposes) {
            nodes[ni].op_type = "Identity";
            nodes[ni].attrs.clear();
        }
        shape = Dims{shape[0], shape[3], shape[1], shape[2]};
        absorbed[name] = {0, 3, 1, 2};
        (void)warn;
    }
    return Status::ok();
}

}  // namespace onnx

namespace onnx {

Status Importer::run() {
    // opset of the default domain
    auto it = model.opsets.find("");
    opset = it != model.opsets.end() ? it->second : 1;
    if (opset < 9)
        warn.add("the model uses opset " + std::to_string(opset) +
                 "; nnfold implements the operators of opsets 9 to 17 (older attribute forms may be rejected)");
    if (opset > 17)
        warn.add("the model uses opset " + std::to_string(opset) +
                 "; nnfold implements opsets 9 to 17 and the later forms of Reduce*, Split, Pad and Resize it knows");

    // constants: initializers, then Constant nodes fold during translation
    std::map<std::string, Tensor> consts;
    for (auto& t : model.initializers) {
        if (t.name.empty())
            return invalid_model("an initializer has no name");
        consts[t.name] = t;
    }
    // graph inputs (old IR versions list initializers as inputs too: those stay constants)
    std::map<std::string, Dims> input_shapes;
    std::vector<const ValueInfo*> inputs;
    for (auto& vi : model.inputs) {
        if (consts.count(vi.name))
            continue;
        if (vi.name.empty())
            return invalid_model("a graph input has no name");
        inputs.push_back(&vi);
        Dims shape;
        auto ov = opt.input_shapes.find(vi.name);
        if (ov != opt.input_shapes.end()) {
            shape = ov->second;
            if (vi.has_shape && vi.dims.size() != shape.size())
                return invalid_argument("input " + quote(vi.name) + " has " + std::to_string(vi.dims.size()) +
                                        " dimensions; the given shape " + dims_str(shape) + " has " +
                                        std::to_string(shape.size()));
            for (size_t k = 0; vi.has_shape && k < shape.size(); k++)
                if (vi.dims[k] >= 0 && vi.dims[k] != shape[k])
                    warn.add("input " + quote(vi.name) + ": dimension " + std::to_string(k) + " declared " +
                             std::to_string(vi.dims[k]) + " overridden with " + std::to_string(shape[k]));
        } else {
            if (!vi.has_shape)
                return invalid_argument("input " + quote(vi.name) +
                                        " declares no shape; give one (e.g. --shape " + vi.name + "=1,3,224,224)");
            shape = vi.dims;
            std::vector<std::string> missing;
            for (size_t k = 0; k < shape.size(); k++) {
                if (shape[k] >= 0)
                    continue;
                std::string pname = vi.dim_params[k].empty() ? "?" : vi.dim_params[k];
                if (k == 0) {
                    shape[k] = 1;
                    warn.add("input " + quote(vi.name) + ": symbolic batch dimension '" + pname + "' taken as 1");
                } else {
                    missing.push_back(std::to_string(k) + " ('" + pname + "')");
                }
            }
            if (!missing.empty()) {
                std::string m;
                for (auto& s : missing)
                    m += (m.empty() ? "" : ", ") + s;
                return invalid_argument("input " + quote(vi.name) + " has symbolic dimension" +
                                        (missing.size() > 1 ? "s " : " ") + m +
                                        "; give its full shape (e.g. --shape " + vi.name + "=1,3,224,224)");
            }
        }
        for (int64_t d : shape)
            if (d <= 0 || d > 0x7fffffff)
                return invalid_argument("input " + quote(vi.name) + ": shape " + dims_str(shape) +
                                        " must have positive dimensions");
        if (vi.elem_type != kFloat && vi.elem_type != kUndefined)
            return unsupported("input " + quote(vi.name) + " has element type " + data_type_name(vi.elem_type) +
                               "; nnfold runs float32 inputs only");
        input_shapes[vi.name] = shape;
    }
    if (model.outputs.empty())
        return invalid_model("the ONNX graph declares no outputs");

    std::vector<Node> nodes = model.nodes;
    std::set<std::string> available;
    for (auto& kv : consts)
        available.insert(kv.first);
    for (auto& kv : input_shapes)
        available.insert(kv.first);
    NF_RETURN_IF_ERROR(topo_sort(nodes, available));

    // Supported-operator check on the nodes that matter, before any work: one error listing them all.
    {
        std::vector<int> live = live_nodes(nodes, model);
        std::map<std::string, std::vector<std::string>> bad;
        for (int i : live) {
            const Node& n = nodes[i];
            std::string key = n.domain.empty() || n.domain == "ai.onnx" ? n.op_type : n.domain + "." + n.op_type;
            bool known = (n.domain.empty() || n.domain == "ai.onnx") &&
                         (op_table().count(n.op_type) > 0 || fold_only_op(n.op_type));
            if (!known)
                bad[key].push_back(n.name.empty() ? (n.outputs.empty() ? std::string("?") : n.outputs[0]) : n.name);
        }
        if (!bad.empty()) {
            std::string msg = "unsupported ONNX operator" + std::string(bad.size() > 1 ? "s" : "") + ": ";
            bool first = true;
            for (auto& kv : bad) {
                msg += (first ? "" : "; ") + sanitize(kv.first) + " (";
                first = false;
                for (size_t k = 0; k < kv.second.size() && k < 5; k++)
                    msg += (k ? ", " : "") + quote(kv.second[k]);
                if (kv.second.size() > 5)
                    msg += ", and " + std::to_string(kv.second.size() - 5) + " more";
                msg += ")";
            }
            return unsupported(msg);
        }
        for (auto& o : model.outputs) {
            bool produced = available.count(o.name) > 0;
            for (auto& n : nodes)
                for (auto& x : n.outputs)
                    produced = produced || x == o.name;
            if (!produced)
                return invalid_model("graph output " + quote(o.name) + " is not produced by any node");
        }
    }

    // ONNX-level rewrites
    fuse_gelu(nodes, model, [&](const std::string& n) -> const Tensor* {
        auto c = consts.find(n);
        if (c != consts.end())
            return &c->second;
        // Constant nodes
        for (auto& nd : nodes)
            if (nd.op_type == "Constant" && nd.outputs.size() == 1 && nd.outputs[0] == n) {
                const Attribute* a = nd.attr("value");
                if (a && a->t.size() == 1)
                    return &a->t[0];
                const Attribute* f = nd.attr("value_float");
                if (f) {
                    static thread_local Tensor tmp;
                    tmp = Tensor();
                    tmp.dtype = kFloat;
                    tmp.f = {f->f};
                    return &tmp;
                }
            }
        return nullptr;
    });
    merge_transpose_pairs(nodes, model);
    std::map<std::string, std::vector<int>> absorbed;
    if (opt.absorb_input_transpose)
        NF_RETURN_IF_ERROR(absorb_input_transposes(nodes, model, consts, input_shapes, absorbed, warn));

    for (auto& kv : consts) {
        Value v;
        v.defined = true;
        v.is_const = true;
        v.shape = kv.second.dims;
        v.dtype = kv.second.dtype;
        v.c = kv.second;
        values_[kv.first] = std::move(v);
    }

    // Input layers, in the ONNX input order.
    cur = nullptr;
    for (const ValueInfo* vi : inputs) {
        const Dims& shape = input_shapes[vi->name];
        Shape s;
        NF_RETURN_IF_ERROR(ncnn_shape_of(shape, s).with_context("input " + quote(vi->name)));
        std::string bn = ncnn_name(vi->name, true);
        int b = add_blob(bn, s, false);
        if (g.blobs[b].name != vi->name)
            g.original_names[g.blobs[b].name] = vi->name;
        ParamDict pd;
        pd.set_int(0, s.w);
        if (s.dims >= 2)
            pd.set_int(1, s.h);
        if (s.dims >= 4)
            pd.set_int(11, s.d);
        if (s.dims >= 3)
            pd.set_int(2, s.c);
        int l = emit("Input", "", {}, {b}, pd);
        rename_layer(l, g.blobs[b].name);
        Value v;
        v.defined = true;
        v.shape = shape;
        v.dtype = kFloat;
        v.blob = b;
        values_[vi->name] = v;
        IoEntry e;
        e.name = vi->name;
        e.blob = g.blobs[b].name;
        auto ab = absorbed.find(vi->name);
        if (ab != absorbed.end()) {
            e.perm = ab->second;
            e.shape = {shape[0], shape[2], shape[3], shape[1]};  // as declared (NHWC)
            e.layout = "NHWC";
        } else {
            e.shape = shape;  // held in its declared order (layout "")
        }
        e.ncnn_shape = s;
        io.inputs.push_back(std::move(e));
    }

    // Translate the live nodes in order.
    std::vector<int> live = live_nodes(nodes, model);
    for (int i : live) {
        const Node& n = nodes[i];
        cur = &n;
        std::vector<const Tensor*> cin;
        bool all_const = true;
        for (auto& x : n.inputs) {
            if (x.empty()) {
                cin.push_back(nullptr);
                continue;
            }
            auto vit = values_.find(x);
            if (vit == values_.end())
                return internal_error(where() + ": input " + quote(x) + " is not defined");
            cin.push_back(vit->second.is_const ? &vit->second.c : nullptr);
            all_const = all_const && vit->second.is_const;
        }
        if (all_const) {
            std::vector<Tensor> outs;
            bool done = false;
            NF_RETURN_IF_ERROR(fold_node(n, opset, cin, outs, done).with_context(where()));
            if (done) {
                for (size_t k = 0; k < outs.size() && k < n.outputs.size(); k++)
                    NF_RETURN_IF_ERROR(define_const(k, std::move(outs[k])));
                continue;
            }
        }
        auto op = op_table().find(n.op_type);
        if (op == op_table().end()) {
            if (n.op_type == "Shape" || n.op_type == "Size") {
                // static shapes: the result is a constant
                if (n.inputs.empty() || n.inputs[0].empty())
                    return invalid_here("missing input");
                const Value& v = values_.at(n.inputs[0]);
                Tensor t;
                t.dtype = kInt64;
                if (n.op_type == "Size") {
                    int64_t p = 1;
                    for (int64_t d : v.shape)
                        p *= d;
                    t.i = {p};
                } else {
                    int r = (int)v.shape.size();
                    int64_t start = attr_i("start", 0), end = attr_i("end", r);
                    if (start < 0)
                        start += r;
                    if (end < 0)
                        end += r;
                    start = std::max<int64_t>(0, std::min<int64_t>(start, r));
                    end = std::max<int64_t>(start, std::min<int64_t>(end, r));
                    t.i.assign(v.shape.begin() + start, v.shape.begin() + end);
                    t.dims = {end - start};
                }
                NF_RETURN_IF_ERROR(define_const(0, std::move(t)));
                continue;
            }
            return unsupported_here("needs constant inputs (it cannot run on tensors computed at run time)");
        }
        // Operator translators read constant inputs' values directly: a constant whose element type
        // nnfold does not decode (string, complex, undefined) has none (libFuzzer finding: MatMul
        // with an initializer of data_type 0 read past its empty value list).
        for (size_t k = 0; k < cin.size(); k++)
            if (cin[k] && !cin[k]->has_data())
                return unsupported_here("constant input " + quote(n.inputs[k]) + " has element type " +
                                        data_type_name(cin[k]->dtype) + ", which nnfold cannot use");
        NF_RETURN_IF_ERROR(op->second(*this, n));
        for (auto& o : n.outputs)
            if (!o.empty() && !values_.count(o))
                return internal_error(where() + ": output " + quote(o) + " was not defined");
    }
    cur = nullptr;

    // Outputs.
    for (auto& o : model.outputs) {
        auto vit = values_.find(o.name);
        if (vit == values_.end())
            return internal_error("graph output " + quote(o.name) + " was not defined");
        Value& v = vit->second;
        int b = v.blob;
        Shape s;
        NF_RETURN_IF_ERROR(ncnn_shape_of(v.shape, s).with_context("graph output " + quote(o.name)));
        if (v.is_const) {
            Tensor t = v.c;
            t.name = o.name;
            NF_RETURN_IF_ERROR(const_blob(t, s, b));
            warn.add("graph output " + quote(o.name) + " is a constant");
        }
        IoEntry e;
        e.name = o.name;
        e.blob = g.blobs[b].name;
        e.shape = v.shape;
        e.ncnn_shape = s;
        e.dtype = v.dtype == kBool ? "bool" : is_integer_type(v.dtype) ? data_type_name(v.dtype) : "float32";
        if (o.has_shape && o.dims.size() == v.shape.size()) {
            for (size_t k = 0; k < v.shape.size(); k++)
                if (o.dims[k] >= 0 && o.dims[k] != v.shape[k])
                    warn.add("graph output " + quote(o.name) + " is declared " + dims_str(o.dims) + " but computes " +
                             dims_str(v.shape));
        }
        io.outputs.push_back(std::move(e));
    }

    remove_dead_layers();
    insert_splits();
    NF_RETURN_IF_ERROR(g.validate().with_context("imported graph"));
    NF_RETURN_IF_ERROR(verify_shapes());
    if (!extension_types_.empty()) {
        std::string t;
        for (auto& x : extension_types_)
            t += (t.empty() ? "" : ", ") + x;
        warn.add("the imported model uses nnfold extension layers (" + t +
                 "); stock ncnn cannot load it without custom layers of these types");
    }
    return io.validate();
}

void Importer::remove_dead_layers() {
    std::set<int> keep;
    for (auto& e : io.outputs)
        keep.insert(g.find_blob(e.blob));
    std::vector<char> used(g.blobs.size(), 0);
    for (int b : keep)
        if (b >= 0)
            used[b] = 1;
    for (size_t i = g.layers.size(); i-- > 0;) {
        LayerNode& l = g.layers[i];
        bool live = l.type == "Input";
        for (int t : l.tops)
            live = live || used[t];
        if (!live) {
            l.erased = true;
            continue;
        }
        for (int b : l.bottoms)
            used[b] = 1;
    }
    g.compact();
}

void Importer::insert_splits() {
    std::set<std::string> names;
    for (auto& l : g.layers)
        names.insert(l.name);
    int seq = 0;
    for (int b = 0; b < (int)g.blobs.size(); b++) {
        std::vector<std::pair<int, int>> uses;
        for (int i = 0; i < (int)g.layers.size(); i++)
            for (int s = 0; s < (int)g.layers[i].bottoms.size(); s++)
                if (g.layers[i].bottoms[s] == b)
                    uses.push_back({i, s});
        if (uses.size() < 2)
            continue;
        int prod = g.producer(b);
        std::string sname;
        do {
            sname = "splitncnn_" + std::to_string(seq++);
        } while (names.count(sname));
        names.insert(sname);
        LayerNode split;
        split.type = "Split";
        split.name = sname;
        split.bottoms.push_back(b);
        std::string base = g.blobs[b].name.substr(0, 230);
        for (size_t k = 0; k < uses.size(); k++) {
            std::string tn = unique_blob_name(base + "_splitncnn_" + std::to_string(k));
            blob_names_.insert(tn);
            int nbi = g.add_blob(tn, g.blobs[b].shape);
            split.tops.push_back(nbi);
            g.layers[uses[k].first].bottoms[uses[k].second] = nbi;
        }
        g.layers.insert(g.layers.begin() + (prod + 1), std::move(split));
    }
}

Status Importer::verify_shapes() {
    std::vector<Shape> shapes;
    Status st = infer_shapes(g, {}, shapes);
    if (!st)
        return Status(st.code() == ErrorCode::Unsupported ? ErrorCode::Unsupported : ErrorCode::Internal,
                      "the imported graph does not pass nnfold's shape inference: " + st.message());
    for (size_t i = 0; i < g.blobs.size(); i++) {
        if (shapes[i] == g.blobs[i].shape)
            continue;
        int p = g.producer((int)i);
        std::string who = p >= 0 ? layer_desc(g.layers[p].name, g.layers[p].type) : std::string("input");
        return internal_error("ONNX import check failed: " + who + " gives blob " + quote(g.blobs[i].name) +
                              " the shape " + shapes[i].str() + " where the ONNX graph needs " + g.blobs[i].shape.str());
    }
    return Status::ok();
}

}  // namespace onnx

Status import_onnx(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& w, const OnnxImportOptions& opt) {
    g = Graph();
    io = IoMap();
    try {
        onnx::Model m;
        NF_RETURN_IF_ERROR(onnx::decode_model(data, size, m));
        onnx::Importer im(m, g, io, w, opt);
        Status st = im.run();
        if (!st) {
            g = Graph();
            io = IoMap();
        }
        return st;
    } catch (const onnx::MissingInput& e) {
        g = Graph();
        io = IoMap();
        return invalid_model(std::string("malformed ONNX model: ") + e.what());
    } catch (const std::bad_alloc&) {
        g = Graph();
        io = IoMap();
        return resource_limit("out of memory while importing the ONNX model");
    } catch (const std::exception& e) {
        g = Graph();
        io = IoMap();
        return internal_error(std::string("ONNX import: ") + e.what());
    }
}

}  // namespace nnfold
