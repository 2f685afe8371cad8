#include "api/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>

#include "api/plugins.h"
#include "core/allocator.h"
#include "core/json.h"
#include "core/strings.h"
#include "io/ncnn_io.h"
#include "layers/layer.h"
#include "runtime/analysis.h"
#include "runtime/random.h"

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
    return finish_load(std::move(g), std::move(w), opt);
}

Status ModelHandle::load_onnx(const uint8_t* data, size_t size, const LoadOptions& opt) {
    if (loaded_)
        return invalid_argument("this model handle is already loaded");
    Graph g;
    Warnings w;
    Status st = import_onnx_model(data, size, g, w);
    if (!st) {
        warnings_ = std::move(w);
        return st;
    }
    return finish_load(std::move(g), std::move(w), opt);
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
    for (int b : graph_.input_blobs())
        r.push_back({graph_.blobs[b].name, input_shape(graph_.blobs[b].name)});
    return r;
}

std::vector<IoInfo> ModelHandle::outputs() const {
    std::vector<Shape> shapes;
    if (!infer_shapes(graph_, shapes_, shapes))
        shapes.assign(graph_.blobs.size(), Shape());
    std::vector<IoInfo> r;
    for (int b : graph_.output_blobs())
        r.push_back({graph_.blobs[b].name, shapes[b]});
    return r;
}

std::string ModelHandle::info_json() const {
    ModelSummary s = summarize(graph_, shapes_);
    std::vector<Shape> blob_shapes;
    if (!infer_shapes(graph_, shapes_, blob_shapes))
        blob_shapes.assign(graph_.blobs.size(), Shape());
    return summary_json(graph_, s, blob_shapes);
}

namespace {

// printf into a std::string (the text `nnfold info` has always printed with printf).
template <typename... A>
void appendf(std::string& out, const char* fmt, A... args) {
    int n = std::snprintf(nullptr, 0, fmt, args...);
    if (n <= 0)
        return;
    std::string buf((size_t)n + 1, '\0');
    std::snprintf(&buf[0], buf.size(), fmt, args...);
    buf.resize((size_t)n);
    out += buf;
}

}  // namespace

std::string ModelHandle::info_text(const std::string& label) const {
    ModelSummary s = summarize(graph_, shapes_);
    std::vector<Shape> blob_shapes;
    if (!infer_shapes(graph_, shapes_, blob_shapes))
        blob_shapes.assign(graph_.blobs.size(), Shape());
    std::string out;
    appendf(out, "%s: %d layers, %llu weight values (%s in .bin)\n", label.c_str(), s.layers,
            (unsigned long long)s.weight_values, format_bytes(s.weights_file_bytes).c_str());
    for (auto& io : s.inputs)
        appendf(out, "  input  %-24s %s\n", io.name.c_str(), io.shape.str().c_str());
    for (auto& io : s.outputs)
        appendf(out, "  output %-24s %s\n", io.name.c_str(), io.shape.str().c_str());
    if (s.shapes_known)
        appendf(out, "estimated peak memory: %s\n", format_bytes(s.memory_bytes).c_str());
    else
        appendf(out, "shapes unknown: %s\n", s.shape_error.c_str());
    appendf(out, "layers by type:\n");
    for (auto& kv : s.layers_by_type)
        appendf(out, "  %-24s %d\n", kv.first.c_str(), kv.second);
    appendf(out, "layers:\n");
    for (auto& l : graph_.layers) {
        if (l.erased)
            continue;
        std::string tops;
        for (int t : l.tops)
            tops += (tops.empty() ? "" : " ") + graph_.blobs[t].name + blob_shapes[t].str();
        appendf(out, "  %-24s %-24s -> %s\n", l.type.c_str(), l.name.c_str(), tops.c_str());
    }
    return out;
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

Status ModelHandle::random_inputs(uint32_t seed, std::vector<std::pair<std::string, Mat>>& out) const {
    out.clear();
    if (!loaded_)
        return invalid_argument("no model is loaded");
    Rng rng(seed);
    for (auto& io : inputs()) {
        if (!io.shape.known())
            return invalid_argument("input " + quote(io.name) + " declares no shape; give one (shapes option, or --shape " +
                                    io.name + "=c,h,w)");
        Mat m;
        NF_RETURN_IF_ERROR(m.create(io.shape));
        fill_uniform(m, rng);
        out.emplace_back(io.name, m);
    }
    return Status::ok();
}

Status ModelHandle::fill_missing_inputs(uint32_t seed, std::map<std::string, Mat>& inputs_map) const {
    if (!loaded_)
        return invalid_argument("no model is loaded");
    Rng rng(seed);
    for (auto& io : inputs()) {
        if (inputs_map.count(io.name))
            continue;
        if (!io.shape.known())
            return invalid_argument("input " + quote(io.name) + " declares no shape; give one with --shape " + io.name +
                                    "=c,h,w");
        Mat m;
        NF_RETURN_IF_ERROR(m.create(io.shape));
        fill_uniform(m, rng);
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
        if (!l.erased && info && info->create_simd)
            return true;
    }
    return false;
}

Status ModelHandle::run(const std::map<std::string, Mat>& in, const std::vector<std::string>& wanted,
                        std::map<std::string, Mat>& out, RunStats* stats) {
    NF_RETURN_IF_ERROR(ensure_net());
    return net_->run(in, wanted, out, stats);
}

Status ModelHandle::profile(const std::map<std::string, Mat>& in, int runs, ProfileResult& result,
                            const ProgressFn& progress) {
    if (runs < 1 || runs > 100000)
        return invalid_argument("profile runs must be between 1 and 100000, got " + std::to_string(runs));
    NF_RETURN_IF_ERROR(ensure_net());
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
    NF_RETURN_IF_ERROR(optimize_graph(g, r, report_json, w, progress));
    graph_ = std::move(g);
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

std::string run_summary_json(const std::vector<std::string>& order, const std::map<std::string, Mat>& outputs,
                             const std::map<std::string, std::string>& files, const RunStats& stats, bool simd) {
    json summary;
    summary["outputs"] = json::array();
    for (auto& name : order) {
        auto it = outputs.find(name);
        if (it == outputs.end())
            continue;
        const Mat& m = it->second;
        size_t n = m.total_floats();
        double mn = INFINITY, mx = -INFINITY, sum = 0;
        size_t nonfinite = 0;
        for (size_t i = 0; i < n; i++) {
            float v = m.data[i];
            if (!std::isfinite(v)) {
                nonfinite++;
                continue;
            }
            mn = std::min(mn, (double)v);
            mx = std::max(mx, (double)v);
            sum += v;
        }
        json o;
        o["name"] = name;
        o["shape"] = shape_to_json(m.shape());
        o["min"] = n > nonfinite ? json(mn) : json(nullptr);
        o["max"] = n > nonfinite ? json(mx) : json(nullptr);
        o["mean"] = n > nonfinite ? json(sum / (double)(n - nonfinite)) : json(nullptr);
        o["nonfinite"] = nonfinite;
        json first = json::array();
        for (size_t i = 0; i < n && i < 8; i++)
            first.push_back(std::isfinite(m.data[i]) ? json(m.data[i]) : json(nullptr));
        o["first"] = first;
        auto f = files.find(name);
        if (f != files.end())
            o["file"] = f->second;
        summary["outputs"].push_back(o);
    }
    summary["peak_bytes"] = stats.peak_bytes;
    summary["ms"] = stats.total_ms;
    summary["simd"] = simd;
    return dump_json(summary, 2) + "\n";
}

}  // namespace nnfold
