#include "api/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "analysis/analysis.h"
#include "core/allocator.h"
#include "core/json.h"
#include "core/strings.h"
#include "io/ncnn_io.h"
#include "io/onnx/onnx_import.h"
#include "layers/layer.h"
#include "passes/cut.h"
#include "passes/optimizer.h"
#include "runtime/random.h"
#include "runtime/verify.h"

namespace nnfold {

Status guard(const std::function<Status()>& fn) {
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        return resource_limit("out of memory: the model or its tensors do not fit in the available memory "
                              "(WebAssembly allows at most 4 GB)");
    } catch (const std::length_error& e) {
        return resource_limit(std::string("a size is too large: ") + e.what());
    } catch (const std::exception& e) {
        return internal_error(std::string("unexpected exception: ") + e.what());
    } catch (...) {
        return internal_error("unexpected exception");
    }
}

ModelHandle::ModelHandle() = default;
ModelHandle::~ModelHandle() = default;

Status ModelHandle::check_shapes(const std::map<std::string, Shape>& shapes) const {
    auto ins = graph_.input_blobs();
    for (auto& kv : shapes) {
        int b = graph_.find_blob(kv.first);
        if (b < 0 || std::find(ins.begin(), ins.end(), b) == ins.end()) {
            std::string names;
            for (int i : ins)
                names += (names.empty() ? "" : ", ") + quote(graph_.blobs[i].name);
            return invalid_argument("a shape was given for " + quote(kv.first) + ", which is not an input of the model" +
                                    " (inputs: " + names + ")");
        }
        if (!kv.second.valid())
            return invalid_argument("shape " + kv.second.str() + " for input " + quote(kv.first) +
                                    " is not valid (1 to 4 positive dimensions, outermost first)");
    }
    return Status::ok();
}

Status ModelHandle::load_ncnn(const std::string& param_text, const uint8_t* bin, size_t bin_size, bool has_bin,
                              const LoadOptions& opt) {
    return load_impl(param_text, bin, bin_size, has_bin ? Weights::File : Weights::Random, opt);
}

Status ModelHandle::load_structure(const std::string& param_text, const uint8_t* bin, size_t bin_size, bool has_bin,
                                   const LoadOptions& opt) {
    return load_impl(param_text, bin, bin_size, has_bin ? Weights::File : Weights::None, opt);
}

Status ModelHandle::load_impl(const std::string& param_text, const uint8_t* bin, size_t bin_size, Weights weights,
                              const LoadOptions& opt) {
    if (loaded_)
        return invalid_argument("this model handle is already loaded");
    Graph g;
    Warnings w;
    Status st = read_param(param_text, g, w, opt.param_name);
    if (st && weights == Weights::File)
        st = read_bin(bin, bin_size, g, w, opt.bin_name);
    else if (st && weights == Weights::Random)
        st = randomize_weights(g, opt.seed);
    if (!st) {
        warnings_ = std::move(w);
        return st;
    }
    structure_only_ = weights == Weights::None;
    IoMap io;
    if (!opt.io_json.empty()) {
        st = IoMap::from_json(opt.io_json, io).with_context(opt.io_json_name);
        if (!st) {
            warnings_ = std::move(w);
            return st;
        }
    }
    NF_RETURN_IF_ERROR(finish_load(std::move(g), std::move(w), opt));
    if (!io.empty()) {
        st = set_io_map(io).with_context(opt.io_json_name + " (given with " + opt.param_name + ")");
        if (!st) {
            loaded_ = false;
            graph_ = Graph();
            return st;
        }
    }
    return Status::ok();
}

Status ModelHandle::load_onnx(const uint8_t* data, size_t size, const LoadOptions& opt) {
    if (loaded_)
        return invalid_argument("this model handle is already loaded");
    // `shapes` and `onnx_shapes` both give full ONNX shapes by ONNX input name
    std::map<std::string, std::vector<int64_t>> given = opt.onnx_shapes;
    for (auto& kv : opt.shapes) {
        if (given.count(kv.first))
            continue;
        if (!kv.second.valid())
            return invalid_argument("shape " + kv.second.str() + " for input " + quote(kv.first) +
                                    " is not valid (positive dimensions, outermost first)");
        std::vector<int64_t> dims;
        for (int d : kv.second.to_list())
            dims.push_back(d);
        given[kv.first] = dims;
    }
    Graph g;
    IoMap io;
    Warnings w;
    Status st = import_onnx_model(data, size, g, io, w, given);
    for (auto& kv : given) {
        if (!st || io.find_input(kv.first))
            continue;
        std::string names;
        for (auto& e : io.inputs)
            names += (names.empty() ? "" : ", ") + quote(e.name);
        st = invalid_argument("a shape was given for " + quote(kv.first) + ", which is not an input of the model" +
                              " (inputs: " + names + ")");
    }
    if (!st) {
        warnings_ = std::move(w);
        return st;
    }
    // the import fixed every input's shape (in the Input layers); ncnn-side shapes stay empty
    LoadOptions rest = opt;
    rest.shapes.clear();
    NF_RETURN_IF_ERROR(finish_load(std::move(g), std::move(w), rest));
    st = set_io_map(io);
    if (!st) {
        loaded_ = false;
        graph_ = Graph();
        return internal_error("ONNX import produced an inconsistent io map: " + st.message());
    }
    return Status::ok();
}

Status ModelHandle::set_io_map(const IoMap& io) {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    NF_RETURN_IF_ERROR(io.validate());
    auto ins = graph_.input_blobs();
    for (auto* list : {&io.inputs, &io.outputs})
        for (auto& e : *list) {
            int b = graph_.find_blob(e.blob);
            if (b < 0)
                return invalid_model("blob " + quote(e.blob) + " (for " + quote(e.name) + ") is not in the model");
            if (list == &io.inputs && std::find(ins.begin(), ins.end(), b) == ins.end())
                return invalid_model("blob " + quote(e.blob) + " (for input " + quote(e.name) +
                                     ") is not an input of the model");
        }
    io_ = io;
    return Status::ok();
}

namespace {

// The entry of `list` named `name` (original name first, then ncnn blob), or null.
const IoEntry* find_mapped(const std::vector<IoEntry>& list, const std::string& name) {
    for (auto& e : list)
        if (e.name == name)
            return &e;
    for (auto& e : list)
        if (e.blob == name)
            return &e;
    return nullptr;
}

// The Shape for an original (ONNX) shape: itself when it has at most 4 dims, else unknown.
Shape shape_of_dims(const std::vector<int64_t>& dims) {
    if (dims.empty() || dims.size() > 4)
        return Shape();
    std::vector<int> list;
    for (int64_t d : dims) {
        if (d <= 0 || d > 0x7fffffff)
            return Shape();
        list.push_back((int)d);
    }
    Shape s = Shape::from_list(list);
    return s.valid() ? s : Shape();
}

IoInfo mapped_info(const IoEntry& e) {
    IoInfo r;
    r.name = e.name;
    r.shape = shape_of_dims(e.shape);
    r.dims = e.shape;
    r.mapped = true;
    r.blob = e.blob;
    r.layout = e.layout;
    r.dtype = e.dtype;
    r.dim_names = e.dim_names;
    return r;
}

IoInfo plain_info(const std::string& name, const Shape& s) {
    IoInfo r;
    r.name = name;
    r.shape = s;
    r.blob = name;
    if (s.known())
        for (int d : s.to_list())
            r.dims.push_back(d);
    return r;
}

}  // namespace

std::vector<int64_t> ModelHandle::presented_dims(const std::string& name, const Mat& m) const {
    if (const IoEntry* e = io_.find_output(name)) {
        // a data-dependent extent (-1: NonMaxSuppression's count) as this run produced it
        std::vector<int64_t> d = e->shape;
        uint64_t known = 1;
        for (int64_t x : d)
            known *= x > 0 ? (uint64_t)x : 1;
        for (int64_t& x : d)
            if (x < 0)
                x = (int64_t)((m.data ? (uint64_t)m.total_floats() : 0) / known);
        return d;
    }
    if (const IoEntry* e = io_.find_input(name))
        return e->shape;
    std::vector<int64_t> r;
    if (m.dims)
        for (int d : m.shape().to_list())
            r.push_back(d);
    return r;
}

Status ModelHandle::finish_load(Graph g, Warnings w, const LoadOptions& opt) {
    g.compact();
    graph_ = std::move(g);
    warnings_ = std::move(w);
    Status st = check_shapes(opt.shapes);
    if (!st) {
        graph_ = Graph();
        return st;
    }
    shapes_ = opt.shapes;
    use_simd_ = opt.use_simd;
    loaded_ = true;
    return Status::ok();
}

Status ModelHandle::set_input_shapes(const std::map<std::string, Shape>& shapes) {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    for (auto& kv : shapes)
        if (const IoEntry* e = find_mapped(io_.inputs, kv.first))
            return invalid_argument("input " + quote(e->name) + " of an imported model has the fixed shape " +
                                    dims_str(e->shape) + "; give other ONNX shapes when loading the .onnx");
    NF_RETURN_IF_ERROR(check_shapes(shapes));
    shapes_ = shapes;
    return Status::ok();
}

Shape ModelHandle::input_shape(const std::string& name) const {
    auto it = shapes_.find(name);
    if (it != shapes_.end())
        return it->second;
    int b = graph_.find_blob(name);
    if (b < 0)
        return Shape();
    int p = graph_.producer(b);
    if (p < 0 || graph_.layers[p].type != "Input")
        return Shape();
    return declared_input_shape(graph_.layers[p].params);
}

std::vector<IoInfo> ModelHandle::inputs() const {
    std::vector<IoInfo> r;
    for (int b : graph_.input_blobs()) {
        const std::string& name = graph_.blobs[b].name;
        const IoEntry* e = nullptr;
        for (auto& x : io_.inputs)
            if (x.blob == name)
                e = &x;
        r.push_back(e ? mapped_info(*e) : plain_info(name, input_shape(name)));
    }
    return r;
}

std::vector<IoInfo> ModelHandle::outputs() const {
    std::vector<IoInfo> r;
    // a mapped model's outputs are the original ones, in their order
    if (!io_.outputs.empty()) {
        for (auto& e : io_.outputs)
            r.push_back(mapped_info(e));
        return r;
    }
    std::vector<Shape> shapes;
    if (!infer_shapes(graph_, shapes_, shapes))
        shapes.assign(graph_.blobs.size(), Shape());
    for (int b : graph_.output_blobs())
        r.push_back(plain_info(graph_.blobs[b].name, shapes[b]));
    return r;
}

std::vector<std::string> ModelHandle::output_names() const {
    std::vector<std::string> r;
    if (!io_.outputs.empty()) {
        for (auto& e : io_.outputs)
            r.push_back(e.name);
        return r;
    }
    for (int b : graph_.output_blobs())
        r.push_back(graph_.blobs[b].name);
    return r;
}

std::string ModelHandle::info_json() const {
    ModelSummary s = summarize(graph_, shapes_);
    std::vector<Shape> blob_shapes;
    if (!infer_shapes(graph_, shapes_, blob_shapes))
        blob_shapes.assign(graph_.blobs.size(), Shape());
    if (io_.empty())
        return summary_json(graph_, s, blob_shapes);
    // the summary (ncnn blobs) plus the original inputs and outputs (the .io.json content)
    json j = json::parse(summary_json(graph_, s, blob_shapes), nullptr, false);
    j["io"] = json::parse(io_.to_json(), nullptr, false);
    return dump_json(j);
}

namespace {

// A float for JSON: NaN and infinities have no JSON form.
json json_float(float f) { return std::isfinite(f) ? json(f) : json(nullptr); }

// One param for drawing: ints and floats as numbers (the type from the layer's param table, else
// from how the token was written), arrays capped at 64 elements with their full length beside.
json param_json(const std::string& type, int id, const ParamValue& v) {
    const ParamSpec* spec = find_param_spec(type, id);
    json p;
    p["id"] = id;
    p["name"] = spec ? json(spec->name) : json(nullptr);
    switch (v.kind) {
    case ParamValue::Kind::Scalar: {
        bool as_float = spec ? spec->type == ParamType::Float : v.is_float;
        p["value"] = as_float ? json_float(bits_to_float(v.bits)) : json(v.bits);
        break;
    }
    case ParamValue::Kind::Array: {
        const size_t kMax = 64;
        json arr = json::array();
        for (size_t i = 0; i < v.array.size() && i < kMax; i++) {
            bool as_float = spec ? spec->type == ParamType::FloatArray
                                 : (i < v.array_is_float.size() && v.array_is_float[i]);
            arr.push_back(as_float ? json_float(bits_to_float(v.array[i])) : json(v.array[i]));
        }
        p["value"] = arr;
        p["length"] = v.array.size();
        break;
    }
    case ParamValue::Kind::String: p["value"] = v.str; break;
    case ParamValue::Kind::None: p["value"] = nullptr; break;
    }
    return p;
}

}  // namespace

std::string ModelHandle::graph_json() const {
    std::vector<Shape> shapes;
    if (!infer_shapes(graph_, shapes_, shapes))
        shapes.assign(graph_.blobs.size(), Shape());
    std::vector<int> producer(graph_.blobs.size(), -1);
    std::vector<std::vector<int>> consumers(graph_.blobs.size());
    for (int i = 0; i < (int)graph_.layers.size(); i++) {
        const LayerNode& l = graph_.layers[i];
        if (l.erased)
            continue;
        for (int t : l.tops)
            producer[t] = i;
        for (int b : l.bottoms)
            consumers[b].push_back(i);
    }
    json nodes = json::array();
    for (int i = 0; i < (int)graph_.layers.size(); i++) {
        const LayerNode& l = graph_.layers[i];
        if (l.erased)
            continue;
        json n;
        n["id"] = i;
        n["type"] = l.type;
        n["name"] = l.name;
        json params = json::array();
        for (int id = 0; id < kMaxParamId; id++)
            if (l.params.has(id))
                params.push_back(param_json(l.type, id, l.params.at(id)));
        n["params"] = params;
        uint64_t wb = 0;
        for (auto& w : l.weights)
            wb += w.file_bytes();
        n["weights_bytes"] = wb;
        n["bottoms"] = l.bottoms;
        n["tops"] = l.tops;
        nodes.push_back(n);
    }
    json edges = json::array();
    for (int b = 0; b < (int)graph_.blobs.size(); b++) {
        json e;
        e["id"] = b;
        e["name"] = graph_.blobs[b].name;
        e["shape"] = shape_to_json(shapes[b]);
        e["from"] = producer[b];
        e["to"] = consumers[b];
        edges.push_back(e);
    }
    json j;
    j["nodes"] = nodes;
    j["edges"] = edges;
    return dump_json(j);
}

Status ModelHandle::to_ncnn(int fp16, std::string& param, std::vector<uint8_t>& bin, Warnings& warnings) {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    if (structure_only_)
        return invalid_argument("this model was loaded without weights (structure only) and cannot be written");
    // Shape hints where inference succeeds (as `nnfold convert`); failure only drops the hints.
    Status shape_st = annotate_shapes(graph_, shapes_);
    if (!shape_st)
        warnings.add("shape hints not written: " + shape_st.message());
    BinWriteOptions bo;
    bo.fp16 = fp16 < 0 ? fp16_default_ : fp16 != 0;
    NF_RETURN_IF_ERROR(write_param(graph_, param, warnings));
    return write_bin(graph_, bin, bo, warnings);
}

// A mapped input's values are drawn in its original shape and layout (outermost first), as a
// user would give them; a Mat of that shape (1-D when it has more than 4 dims).
Status ModelHandle::make_input(const IoInfo& io, Rng& rng, Mat& m) const {
    if (io.mapped) {
        uint64_t n = 1;
        for (int64_t d : io.dims)
            n *= (uint64_t)d;
        if (n == 0 || n > 0x7fffffff)
            return invalid_argument("input " + quote(io.name) + " of shape " + dims_str(io.dims) + " is too large");
        NF_RETURN_IF_ERROR(m.create(io.shape.known() ? io.shape : Shape::d1((int)n)));
    } else {
        NF_RETURN_IF_ERROR(m.create(io.shape));
    }
    fill_uniform(m, rng);
    // Integer inputs (token ids, indices) get integers in [0, 7], valid ids for any table of 8 rows
    // or more; booleans 0 or 1. Each takes one uniform draw like a float, so the stream of the
    // other inputs does not change.
    if (io.dtype != "float32") {
        const bool is_bool = io.dtype == "bool";
        const size_t n = m.shape().total();
        for (size_t k = 0; k < n; k++) {
            const float u = m.data[k];  // [-1, 1)
            m.data[k] = is_bool ? (u >= 0.f ? 1.f : 0.f) : std::min(7.f, std::floor((u + 1.f) * 4.f));
        }
    }
    return Status::ok();
}

Status ModelHandle::random_inputs(uint32_t seed, std::vector<std::pair<std::string, Mat>>& out) const {
    out.clear();
    std::map<std::string, Mat> all;
    NF_RETURN_IF_ERROR(fill_missing_inputs(seed, all));
    for (auto& io : inputs())
        out.emplace_back(io.name, all[io.name]);
    return Status::ok();
}

Status ModelHandle::fill_missing_inputs(uint32_t seed, std::map<std::string, Mat>& inputs_map) const {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    Rng rng(seed);
    for (auto& io : inputs()) {
        if (inputs_map.count(io.name) || (io.mapped && inputs_map.count(io.blob)))
            continue;
        if (!io.mapped && !io.shape.known())
            return invalid_argument("input " + quote(io.name) + " declares no shape; give one (shapes option, or --shape " +
                                    io.name + "=c,h,w)");
        Mat m;
        NF_RETURN_IF_ERROR(make_input(io, rng, m));
        inputs_map[io.name] = m;
    }
    return Status::ok();
}

Status ModelHandle::ensure_net() {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    if (structure_only_)
        return invalid_argument("this model was loaded without weights (structure only) and cannot run");
    if (net_)
        return Status::ok();
    // The Net takes the weights it is given; the handle keeps its own copy for to_ncnn/optimize.
    auto net = std::make_unique<Net>();
    NetOptions nopt;
    nopt.use_simd = use_simd_;
    try {
        NF_RETURN_IF_ERROR(net->load(graph_, nopt));
    } catch (const std::bad_alloc&) {
        return resource_limit("out of memory preparing the model to run: the runtime needs its own copy of the " +
                              format_bytes(weights_bytes(graph_)) + " of weights");
    }
    net_ = std::move(net);
    return Status::ok();
}

bool ModelHandle::uses_simd() const {
    if (net_)
        return net_->uses_simd();
    if (!use_simd_ || !build_has_simd())
        return false;
    for (auto& l : graph_.layers) {
        const LayerTypeInfo* info = find_layer_type(l.type);
        if (!l.erased && info && info->create_optimized)
            return true;
    }
    return false;
}

// Mapped inputs: original shape/layout -> the ncnn blob; others as they are.
Status ModelHandle::blob_inputs(const std::map<std::string, Mat>& in, std::map<std::string, Mat>& blobs_in) const {
    blobs_in.clear();
    for (auto& kv : in) {
        const IoEntry* e = find_mapped(io_.inputs, kv.first);
        if (!e) {
            blobs_in[kv.first] = kv.second;
            continue;
        }
        size_t n = kv.second.empty() ? 0 : kv.second.total_floats();
        if (n != e->numel())
            return shape_mismatch("input " + quote(e->name) + " has " + std::to_string(n) + " values; its shape " +
                                  dims_str(e->shape) + " needs " + std::to_string(e->numel()));
        Mat m;
        NF_RETURN_IF_ERROR(io_to_ncnn(*e, kv.second.data, n, m));
        blobs_in[e->blob] = m;
    }
    return Status::ok();
}

Status ModelHandle::run(const std::map<std::string, Mat>& in, const std::vector<std::string>& wanted,
                        std::map<std::string, Mat>& out, RunStats* stats) {
    NF_RETURN_IF_ERROR(ensure_net());
    if (io_.empty())
        return net_->run(in, wanted, out, stats);
    std::map<std::string, Mat> blobs_in;
    NF_RETURN_IF_ERROR(blob_inputs(in, blobs_in));
    std::vector<std::string> names = wanted.empty() ? output_names() : wanted;
    std::vector<std::string> blobs;
    for (auto& n : names) {
        const IoEntry* e = find_mapped(io_.outputs, n);
        blobs.push_back(e ? e->blob : n);
    }
    std::map<std::string, Mat> raw;
    NF_RETURN_IF_ERROR(net_->run(blobs_in, blobs, raw, stats));
    out.clear();
    for (size_t k = 0; k < names.size(); k++) {
        const IoEntry* e = find_mapped(io_.outputs, names[k]);
        const Mat& m = raw[blobs[k]];
        if (!e) {
            out[names[k]] = m;
            continue;
        }
        std::vector<float> vals;
        NF_RETURN_IF_ERROR(io_from_ncnn(*e, m, vals));
        if (e->ncnn_shape.dynamic) {
            // data-dependent rows: the Mat as produced (an empty one when nothing was selected)
            out[names[k]] = m;
            continue;
        }
        Shape s = shape_of_dims(e->shape);
        Mat o;
        NF_RETURN_IF_ERROR(o.create(s.known() ? s : Shape::d1((int)vals.size())));
        if (!vals.empty())
            std::memcpy(o.data, vals.data(), vals.size() * sizeof(float));
        out[names[k]] = o;
    }
    return Status::ok();
}

Status ModelHandle::profile(const std::map<std::string, Mat>& given, int runs, ProfileResult& result,
                            const ProgressFn& progress) {
    if (runs < 1 || runs > 100000)
        return invalid_argument("profile runs must be between 1 and 100000, got " + std::to_string(runs));
    NF_RETURN_IF_ERROR(ensure_net());
    std::map<std::string, Mat> in;
    NF_RETURN_IF_ERROR(blob_inputs(given, in));
    result = ProfileResult();
    std::map<std::string, Mat> out;
    RunStats st;
    // one untimed warm-up run (first-touch allocation, and V8's tier-up of hot wasm functions)
    NF_RETURN_IF_ERROR(net_->run(in, {}, out, &st));
    if (progress && !progress(0, runs))
        return Status(ErrorCode::Cancelled, "profile cancelled");
    const Graph& g = net_->graph();
    std::map<int, std::pair<double, double>> acc;  // layer -> (sum, min)
    for (int r = 0; r < runs; r++) {
        out.clear();
        NF_RETURN_IF_ERROR(net_->run(in, {}, out, &st));
        result.run_ms.push_back(st.total_ms);
        result.peak_bytes = std::max(result.peak_bytes, st.peak_bytes);
        for (auto& lt : st.layers) {
            auto it = acc.find(lt.layer);
            if (it == acc.end())
                acc[lt.layer] = {lt.ms, lt.ms};
            else {
                it->second.first += lt.ms;
                it->second.second = std::min(it->second.second, lt.ms);
            }
        }
        if (progress && !progress(r + 1, runs))
            return Status(ErrorCode::Cancelled, "profile cancelled");
    }
    result.runs = runs;
    for (auto& kv : acc) {
        ProfileResult::LayerProfile lp;
        lp.index = kv.first;
        lp.name = g.layers[kv.first].name;
        lp.type = g.layers[kv.first].type;
        lp.ms_mean = kv.second.first / runs;
        lp.ms_min = kv.second.second;
        result.layers.push_back(lp);
    }
    return Status::ok();
}

Status ModelHandle::optimize(const OptimizeRequest& req, std::string& report_json, const ProgressFn& progress) {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    if (structure_only_)
        return invalid_argument("this model was loaded without weights (structure only) and cannot be optimized");
    Graph g = graph_;
    Warnings w;
    OptimizeRequest r = req;
    r.input_shapes = shapes_;
    // the io map's blobs are the model's interface: no rewrite may remove or rename them
    for (auto* list : {&io_.inputs, &io_.outputs})
        for (auto& e : *list)
            r.keep_if_present.push_back(e.blob);
    NF_RETURN_IF_ERROR(optimize_graph(g, r, report_json, w, progress));
    graph_ = std::move(g);
    // a cut may remove mapped inputs/outputs: their entries go (the rest stay valid)
    {
        auto ins = graph_.input_blobs();
        auto still = [&](const IoEntry& e, bool input) {
            int b = graph_.find_blob(e.blob);
            return b >= 0 && (!input || std::find(ins.begin(), ins.end(), b) != ins.end());
        };
        IoMap kept;
        for (auto& e : io_.inputs)
            if (still(e, true))
                kept.inputs.push_back(e);
        for (auto& e : io_.outputs)
            if (still(e, false))
                kept.outputs.push_back(e);
        io_ = kept;
    }
    // a cut changes the inputs: shapes given for inputs that are gone no longer apply
    for (auto it = shapes_.begin(); it != shapes_.end();) {
        int b = graph_.find_blob(it->first);
        int p = b < 0 ? -1 : graph_.producer(b);
        if (p < 0 || graph_.layers[p].type != "Input")
            it = shapes_.erase(it);
        else
            ++it;
    }
    for (auto& s : w.items)
        warnings_.add(s);
    fp16_default_ = req.fp16;
    net_.reset();
    return Status::ok();
}

Status optimize_graph(Graph& g, const OptimizeRequest& req, std::string& report, Warnings& warnings,
                      const ProgressFn& progress) {
    std::map<std::string, Shape> shapes = req.input_shapes;
    if (!req.cut_start.empty() || !req.cut_end.empty()) {
        NF_RETURN_IF_ERROR(cut_graph(g, req.cut_start, req.cut_end, shapes, warnings));
        // inputs the cut removed take no shape; new ones declare theirs
        std::map<std::string, Shape> kept;
        for (int b : g.input_blobs())
            if (shapes.count(g.blobs[b].name))
                kept[g.blobs[b].name] = shapes[g.blobs[b].name];
        shapes = kept;
    }
    OptimizeOptions opt;
    opt.passes = req.passes;
    opt.keep = req.keep;
    for (auto& b : req.keep_if_present)
        if (g.find_blob(b) >= 0 && std::find(opt.keep.begin(), opt.keep.end(), b) == opt.keep.end())
            opt.keep.push_back(b);
    opt.explain = req.explain;
    opt.input_shapes = shapes;
    volatile bool cancel = false;
    opt.cancel = &cancel;
    if (progress)
        opt.progress = [&](const OptimizeProgress& p) {
            if (!progress(p.pass_index, p.pass_count))
                cancel = true;
        };
    OptimizeReport r;
    NF_RETURN_IF_ERROR(optimize(g, opt, r, warnings));
    report = report_json(r);
    return Status::ok();
}

Status verify_models(ModelHandle& a, ModelHandle& b, const VerifyRequest& req, std::string& report,
                     const ProgressFn& progress) {
    if (!a.loaded() || !b.loaded())
        return invalid_argument("verify needs two loaded models");
    VerifyOptions opt;
    opt.seed = req.seed;
    opt.tolerance = req.tolerance;
    opt.find_divergence = req.divergence;
    opt.input_shapes = a.input_shapes();
    opt.use_simd = a.uses_simd() || b.uses_simd();
    opt.progress = progress;
    VerifyResult r;
    NF_RETURN_IF_ERROR(verify_models(a.graph(), b.graph(), opt, r));
    report = verify_json(r);
    return Status::ok();
}

Status import_onnx_model(const uint8_t* data, size_t size, Graph& g, IoMap& io, Warnings& warnings,
                         const std::map<std::string, std::vector<int64_t>>& input_shapes) {
    OnnxImportOptions opt;
    opt.input_shapes = input_shapes;
    return import_onnx(data, size, g, io, warnings, opt);
}

}  // namespace nnfold
