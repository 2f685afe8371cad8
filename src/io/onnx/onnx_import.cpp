// The ONNX import driver (Importer::run), in steps: decode; take the initializers and the inputs'
// shapes; sort the nodes and check every operator is supported (one error listing them all);
// apply the ONNX-level rewrites (onnx_rewrite.h: the Erf form of GELU, Transpose pairs, tf2onnx
// input Transposes; each logged); then translate node by node in topological order: nodes whose
// inputs are all constants fold at import, the rest become ncnn layers (onnx_ops_*.cpp). Finally
// dead layers are dropped, Split layers inserted where a blob has several consumers (as ncnn's
// converters do), and nnfold's own shape inference must agree with the shape every translator
// expected for every blob.
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
#include "io/onnx/onnx_rewrite.h"
#include "io/onnx/onnx_shape_ops.h"
#include "layers/layer.h"
#include "model/split_insert.h"

namespace nnfold {

bool looks_like_onnx(const uint8_t* data, size_t size) {
    // ModelProto field 1 (ir_version, varint) is written first by every ONNX serializer: tag 0x08.
    return size >= 2 && data[0] == 0x08 && data[1] < 0x80;
}

namespace onnx {

const std::map<std::string, OpFn>& op_table() {
    static const std::map<std::string, OpFn> t = [] {
        std::map<std::string, OpFn> m;
        register_elementwise_ops(m);
        register_nn_ops(m);
        register_shape_ops(m);
        register_rnn_ops(m);
        register_control_ops(m);
        register_scatter_ops(m);
        register_logic_ops(m);
        register_cumsum_ops(m);
        register_attention_ops(m);
        register_index_ops(m);
        register_einsum_ops(m);
        register_gather_ops(m);
        register_expand_ops(m);
        register_clip_ops(m);
        return m;
    }();
    return t;
}

OpFn wrap_op(std::map<std::string, OpFn>& t, const std::string& op, OpFn fn) {
    auto it = t.find(op);
    OpFn prior = it != t.end() ? it->second : nullptr;
    t[op] = fn;
    return prior;
}

bool fold_only_op(const std::string& op) {
    static const std::set<std::string> s = {"Constant", "ConstantOfShape", "Shape", "Size", "Range",
                                            "Not", "And", "Or", "Sign",
                                            "ScatterElements", "Scatter", "GatherElements"};
    return s.count(op) > 0;
}

// ---------------------------------------------------------------------------------------------
// run() and its steps, in order

Status Importer::run() {
    check_opset();
    std::map<std::string, Tensor> consts;
    NF_RETURN_IF_ERROR(collect_initializers(consts));
    std::vector<const ValueInfo*> inputs;
    std::map<std::string, Dims> input_shapes;
    NF_RETURN_IF_ERROR(resolve_input_shapes(consts, inputs, input_shapes));
    if (model.outputs.empty())
        return invalid_model("the ONNX graph declares no outputs");

    std::vector<Node> nodes = model.nodes;
    append_outer_refs(nodes);
    std::set<std::string> available;
    for (auto& kv : consts)
        available.insert(kv.first);
    for (auto& kv : input_shapes)
        available.insert(kv.first);
    NF_RETURN_IF_ERROR(topo_sort(nodes, available));
    NF_RETURN_IF_ERROR(check_supported(nodes, available));

    std::map<std::string, std::vector<int>> absorbed;
    RewriteContext rc(nodes, model, consts, input_shapes, absorbed);
    run_onnx_rewrites(rc, opt, rewrites);

    define_constants(consts);
    NF_RETURN_IF_ERROR(define_inputs(inputs, input_shapes, absorbed));
    NF_RETURN_IF_ERROR(translate(nodes));
    NF_RETURN_IF_ERROR(define_outputs());
    return finish();
}

// The opset of the default domain; a warning outside the range nnfold implements.
void Importer::check_opset() {
    auto it = model.opsets.find("");
    opset = it != model.opsets.end() ? it->second : 1;
    if (opset < 9)
        warn.add("the model uses opset " + std::to_string(opset) +
                 "; nnfold implements the operators of opsets 9 to 17 (older attribute forms may be rejected)");
    if (opset > 17)
        warn.add("the model uses opset " + std::to_string(opset) +
                 "; nnfold implements opsets 9 to 17 and the later forms of Reduce*, Split, Pad and Resize it knows");
}

// Constants: the initializers (Constant nodes fold during translation).
Status Importer::collect_initializers(std::map<std::string, Tensor>& consts) {
    for (auto& t : model.initializers) {
        if (t.name.empty())
            return invalid_model("an initializer has no name");
        consts[t.name] = t;
    }
    return Status::ok();
}

// The graph inputs and their full ONNX shapes (old IR versions list initializers as inputs too:
// those stay constants).
Status Importer::resolve_input_shapes(const std::map<std::string, Tensor>& consts,
                                      std::vector<const ValueInfo*>& inputs, std::map<std::string, Dims>& shapes) {
    for (auto& vi : model.inputs) {
        if (consts.count(vi.name))
            continue;
        if (vi.name.empty())
            return invalid_model("a graph input has no name");
        inputs.push_back(&vi);
        Dims shape;
        auto ov = opt.input_shapes.find(vi.name);
        if (ov != opt.input_shapes.end())
            NF_RETURN_IF_ERROR(given_input_shape(vi, ov->second, shape));
        else
            NF_RETURN_IF_ERROR(declared_input_shape(vi, shape));
        for (int64_t d : shape)
            if (d <= 0 || d > 0x7fffffff)
                return invalid_argument("input " + quote(vi.name) + ": shape " + dims_str(shape) +
                                        " must have positive dimensions");
        // integer and boolean inputs (token ids, masks) are held as float32 values inside the
        // graph like every runtime tensor (docs/shapes-and-files.md); their type stays in the IoMap
        if (vi.elem_type != kFloat && vi.elem_type != kUndefined && vi.elem_type != kInt32 &&
            vi.elem_type != kInt64 && vi.elem_type != kBool)
            return unsupported("input " + quote(vi.name) + " has element type " + data_type_name(vi.elem_type) +
                               "; nnfold runs float32, int32, int64 and bool inputs");
        shapes[vi.name] = shape;
    }
    return Status::ok();
}

// A shape the caller gave (OnnxImportOptions::input_shapes): it must have the declared rank; a
// declared dimension it overrides is a warning.
Status Importer::given_input_shape(const ValueInfo& vi, const Dims& given, Dims& shape) {
    shape = given;
    if (vi.has_shape && vi.dims.size() != shape.size())
        return invalid_argument("input " + quote(vi.name) + " has " + std::to_string(vi.dims.size()) +
                                " dimensions; the given shape " + dims_str(shape) + " has " +
                                std::to_string(shape.size()));
    for (size_t k = 0; vi.has_shape && k < shape.size(); k++)
        if (vi.dims[k] >= 0 && vi.dims[k] != shape[k])
            warn.add("input " + quote(vi.name) + ": dimension " + std::to_string(k) + " declared " +
                     std::to_string(vi.dims[k]) + " overridden with " + std::to_string(shape[k]));
    return Status::ok();
}

// The declared shape: a symbolic batch dimension is taken as 1 (with a warning), any other
// symbolic dimension needs a shape from the caller.
Status Importer::declared_input_shape(const ValueInfo& vi, Dims& shape) {
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
    if (missing.empty())
        return Status::ok();
    std::string m;
    for (auto& s : missing)
        m += (m.empty() ? "" : ", ") + s;
    return invalid_argument("input " + quote(vi.name) + " has symbolic dimension" + (missing.size() > 1 ? "s " : " ") +
                            m + "; give its full shape (e.g. --shape " + vi.name + "=1,3,224,224)");
}

// Before any work, on the nodes that matter: every operator is supported (one error listing them
// all, at most five nodes each) and every graph output is produced.
Status Importer::check_supported(const std::vector<Node>& nodes, const std::set<std::string>& available) {
    std::map<std::string, std::vector<std::string>> bad;
    for (int i : live_nodes(nodes, model)) {
        const Node& n = nodes[i];
        bool default_domain = n.domain.empty() || n.domain == "ai.onnx";
        std::string key = default_domain ? n.op_type : n.domain + "." + n.op_type;
        bool internal = n.op_type.compare(0, 7, "nnfold.") == 0;  // only rewrites make these
        if (!default_domain || internal || (!op_table().count(n.op_type) && !fold_only_op(n.op_type)))
            bad[key].push_back(node_label(n));
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
    return Status::ok();
}

void Importer::define_constants(const std::map<std::string, Tensor>& consts) {
    for (auto& kv : consts) {
        Value v;
        v.defined = true;
        v.is_const = true;
        v.shape = kv.second.dims;
        v.dtype = kv.second.dtype;
        v.c = kv.second;
        values_[kv.first] = std::move(v);
    }
}

// Input layers, in the ONNX input order, and their IoMap entries (an absorbed NHWC input keeps
// its declared NHWC shape there).
Status Importer::define_inputs(const std::vector<const ValueInfo*>& inputs, const std::map<std::string, Dims>& shapes,
                               const std::map<std::string, std::vector<int>>& absorbed) {
    cur = nullptr;
    for (const ValueInfo* vi : inputs) {
        const Dims& shape = shapes.at(vi->name);
        Shape s;
        NF_RETURN_IF_ERROR(ncnn_shape_of(shape, s).with_context("input " + quote(vi->name)));
        int b = add_blob(ncnn_name(vi->name, true), s, false);
        if (g.blobs[b].name != vi->name)
            g.original_names[g.blobs[b].name] = vi->name;
        int l = emit("Input", "", {}, {b}, shape_params(s));
        rename_layer(l, g.blobs[b].name);
        Value v;
        v.defined = true;
        v.shape = shape;
        v.dtype = vi->elem_type == kUndefined ? kFloat : vi->elem_type;
        v.blob = b;
        values_[vi->name] = v;
        IoEntry e;
        e.name = vi->name;
        if (v.dtype != kFloat)
            e.dtype = data_type_name(v.dtype);  // int32, int64 or bool
        for (auto& p : vi->dim_params)
            if (!p.empty())
                e.dim_names = vi->dim_params;  // the exporter's names, "" where fixed
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
    return Status::ok();
}

// The live nodes in order.
Status Importer::translate(const std::vector<Node>& nodes) {
    for (int i : live_nodes(nodes, model)) {
        cur = &nodes[i];
        NF_RETURN_IF_ERROR(translate_node(nodes[i]));
    }
    cur = nullptr;
    return Status::ok();
}

// One node: folded when its inputs are all constants and the op has a folder, a constant when it
// asks only for a (static) shape, else its translator emits layers.
Status Importer::translate_node(const Node& n) {
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
        for (int64_t d : vit->second.shape)
            if (d < 0)
                return unsupported_here("input " + quote(x) + " has a data-dependent shape " +
                                        dims_str(vit->second.shape) +
                                        " (a NonMaxSuppression result); nnfold gives it only as a graph output");
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
            return Status::ok();
        }
    }
    auto op = op_table().find(n.op_type);
    if (op == op_table().end()) {
        if (n.op_type == "Shape" || n.op_type == "Size")
            return fold_shape_query(n);
        return unsupported_here("needs constant inputs (it cannot run on tensors computed at run time)");
    }
    // Operator translators read constant inputs' values directly: a constant whose element type
    // nnfold does not decode (string, complex, undefined) has none (libFuzzer finding: MatMul
    // with an initializer of data_type 0 read past its empty value list).
    for (size_t k = 0; k < cin.size(); k++)
        if (cin[k] && !cin[k]->has_data())
            return unsupported_here("constant input " + quote(n.inputs[k]) + " has element type " +
                                    data_type_name(cin[k]->dtype) + ", which nnfold cannot use");
    // Tensors above 4 axes (the layout rule, onnx_importer.h): only operators that know their
    // folded view may read them, through their high-rank translator.
    OpFn fn = op->second;
    for (size_t k = 0; k < n.inputs.size(); k++) {
        // (a constant of that rank read as values, ScatterND's indices say, is fine; read as a
        // blob it is refused by input_blob)
        if (n.inputs[k].empty() || values_.at(n.inputs[k]).is_const || !high_rank(values_.at(n.inputs[k]).shape))
            continue;
        fn = high_rank_translator(n.op_type);
        if (!fn)
            return unsupported_here("input " + quote(n.inputs[k]) + " has shape " +
                                    dims_str(values_.at(n.inputs[k]).shape) + " (rank " +
                                    std::to_string(values_.at(n.inputs[k]).shape.size()) +
                                    ", more than 4 axes after the batch axis), which " + sanitize(n.op_type) +
                                    " cannot take in nnfold (docs/shapes-and-files.md lists the operators that can)");
        break;
    }
    rank_aware_ = high_rank_aware_op(n.op_type);
    Status st = fn(*this, n);
    rank_aware_ = false;
    NF_RETURN_IF_ERROR(st);
    for (auto& o : n.outputs)
        if (!o.empty() && !values_.count(o))
            return internal_error(where() + ": output " + quote(o) + " was not defined");
    return Status::ok();
}

// Shape and Size of a runtime value: shapes are static, so the result is a constant.
Status Importer::fold_shape_query(const Node& n) {
    if (n.inputs.empty() || n.inputs[0].empty())
        return invalid_here("missing input");
    return define_const(0, shape_query(n, values_.at(n.inputs[0]).shape));
}

// The graph outputs' IoMap entries (a constant output gets a MemoryData).
Status Importer::define_outputs() {
    for (auto& o : model.outputs) {
        auto vit = values_.find(o.name);
        if (vit == values_.end())
            return internal_error("graph output " + quote(o.name) + " was not defined");
        Value& v = vit->second;
        int b = v.blob;
        Shape s;
        if (!v.is_const && g.blobs[b].shape.dynamic)
            s = g.blobs[b].shape;  // a data-dependent extent: -1 in the io map's shape
        else
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
                if (o.dims[k] >= 0 && v.shape[k] >= 0 && o.dims[k] != v.shape[k])
                    warn.add("graph output " + quote(o.name) + " is declared " + dims_str(o.dims) + " but computes " +
                             dims_str(v.shape));
        }
        io.outputs.push_back(std::move(e));
    }
    return Status::ok();
}

// Dead layers dropped, Splits inserted, the graph validated and its shapes checked.
Status Importer::finish() {
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

// ---------------------------------------------------------------------------------------------
// Emitting weights and finishing the graph

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
    auto top_name = [&](int b, size_t k) {
        std::string tn = unique_blob_name(g.blobs[b].name.substr(0, 230) + "_splitncnn_" + std::to_string(k));
        blob_names_.insert(tn);
        return tn;
    };
    nnfold::insert_splits(g, top_name, [](int, const LayerNode&, const std::vector<std::pair<int, int>>&) {});
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

std::vector<std::string> onnx_translated_operators() {
    std::vector<std::string> ops;
    for (auto& kv : onnx::op_table())
        if (kv.first.compare(0, 7, "nnfold.") != 0)  // internal nodes of the rewrites
            ops.push_back(kv.first);
    return ops;
}

std::vector<std::string> onnx_folded_operators() { return onnx::folded_operators(); }

Status import_onnx(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& w, const OnnxImportOptions& opt) {
    std::vector<OnnxRewriteRecord> rewrites;
    return import_onnx(data, size, g, io, w, opt, rewrites);
}

Status import_onnx(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& w, const OnnxImportOptions& opt,
                   std::vector<OnnxRewriteRecord>& rewrites) {
    auto fail = [&](Status st) {
        g = Graph();
        io = IoMap();
        rewrites.clear();
        return st;
    };
    g = Graph();
    io = IoMap();
    rewrites.clear();
    try {
        onnx::Model m;
        NF_RETURN_IF_ERROR(onnx::decode_model(data, size, m));
        onnx::Importer im(m, g, io, w, opt);
        Status st = im.run();
        if (!st)
            return fail(st);
        rewrites = std::move(im.rewrites);
        return st;
    } catch (const onnx::MissingInput& e) {
        return fail(invalid_model(std::string("malformed ONNX model: ") + e.what()));
    } catch (const std::bad_alloc&) {
        return fail(resource_limit("out of memory while importing the ONNX model"));
    } catch (const std::exception& e) {
        return fail(internal_error(std::string("ONNX import: ") + e.what()));
    }
}

}  // namespace nnfold
