// Embind declarations of the nnfold module (the npm package and the page). Only declarations and
// small conversions: the API lives in src/api (ModelHandle), the idiomatic JavaScript in
// wasm/js/index.mjs.
//
// Boundary rules (docs/errors.md):
// - No C++ exception and no JS exception crosses a call: every method runs under guard() and
//   returns a result object, {value} or {error: true, code, message}, which the JS layer turns into
//   an Error with `code` (error_code_name) and the core's message. std::bad_alloc (a heap that
//   cannot grow) becomes resource_limit.
// - Options arrive as JSON text written by the JS layer (plain data, validated there).
// - Tensors and byte arrays cross in one copy: the JS layer writes into, or slices from, a
//   typed-array view of the wasm heap (typed_memory_view) that it uses at once, before anything
//   else can grow (and so detach) the heap.
// - Progress callbacks are JS functions the JS layer wraps so they never throw; returning false
//   cancels the operation.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <map>
#include <string>
#include <vector>

#include "api/model.h"
#include "core/allocator.h"
#include "core/json.h"
#include "core/parallel.h"
#include "core/strings.h"
#include "layers/layer.h"
#include "version.h"

using emscripten::val;
using namespace nnfold;

namespace {

val error_result(const Status& st) {
    val o = val::object();
    o.set("error", true);
    o.set("warnings", val("[]"));
    o.set("code", std::string(error_code_name(st.code())));
    o.set("message", st.message());
    return o;
}

// Runs `fn` (which sets `value`) under guard(); returns {value} or {error, code, message}.
template <typename F>
val result_of(F&& fn) {
    val value = val::undefined();
    Status st = guard([&]() -> Status { return fn(value); });
    if (!st)
        return error_result(st);
    val o = val::object();
    o.set("error", false);
    o.set("value", value);
    return o;
}

// Parses JSON written by the JS layer.
Status parse_json(const std::string& text, json& out) {
    out = json::parse(text, nullptr, false);
    if (out.is_discarded())
        return invalid_argument("malformed options (internal JSON)");
    return Status::ok();
}

Status shape_from_json(const json& j, Shape& s, const std::string& what) {
    if (!j.is_array() || j.empty() || j.size() > 4)
        return invalid_argument(what + ": a shape is 1 to 4 positive integers, outermost first");
    std::vector<int> list;
    for (auto& v : j) {
        if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 0x7fffffff)
            return invalid_argument(what + ": a shape is 1 to 4 positive integers, outermost first");
        list.push_back((int)v.get<int64_t>());
    }
    s = Shape::from_list(list);
    if (!s.valid())
        return invalid_argument(what + ": shape too large");
    return Status::ok();
}

Status shapes_from_json(const json& j, std::map<std::string, Shape>& out) {
    if (j.is_null())
        return Status::ok();
    if (!j.is_object())
        return invalid_argument("shapes must be an object {inputName: [c, h, w]}");
    for (auto it = j.begin(); it != j.end(); ++it) {
        Shape s;
        NF_RETURN_IF_ERROR(shape_from_json(it.value(), s, "shape of input " + quote(it.key())));
        out[it.key()] = s;
    }
    return Status::ok();
}

// {name, shape, dtype, dim_names} per input/output; tensors of the io map (ONNX import, .io.json)
// also carry `blob` (the ncnn blob) and `layout` ("NHWC" or ""), their shape being the original
// one. dim_names: one entry per entry of `shape` (none when the shape is unknown), the exporter's
// symbolic name or null (always null for ncnn blobs, which name no dimension).
json io_json(const std::vector<IoInfo>& list) {
    json arr = json::array();
    for (auto& io : list) {
        json shape = io.mapped ? json(io.dims) : shape_to_json(io.shape);
        json names = json::array();
        if (shape.is_array())
            for (size_t k = 0; k < shape.size(); k++)
                names.push_back(k < io.dim_names.size() && !io.dim_names[k].empty() ? json(io.dim_names[k]) : json(nullptr));
        json e = {{"name", io.name}, {"shape", shape}, {"dtype", io.dtype}, {"dim_names", names}};
        if (io.mapped) {
            e["blob"] = io.blob;
            e["layout"] = io.layout;
        }
        arr.push_back(e);
    }
    return arr;
}

json dims_json(const std::vector<int64_t>& d) { return d.empty() ? json(nullptr) : json(d); }

// {inputName: [d0, d1, ...]} (full ONNX shapes, any rank up to 8)
Status onnx_shapes_from_json(const json& j, std::map<std::string, std::vector<int64_t>>& out) {
    if (j.is_null())
        return Status::ok();
    if (!j.is_object())
        return invalid_argument("shapes must be an object {inputName: [d0, d1, ...]}");
    for (auto it = j.begin(); it != j.end(); ++it) {
        const json& v = it.value();
        if (!v.is_array() || v.empty() || v.size() > 8)
            return invalid_argument("shape of input " + quote(it.key()) + ": 1 to 8 positive integers, outermost first");
        std::vector<int64_t> dims;
        for (auto& d : v) {
            if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 0x7fffffff)
                return invalid_argument("shape of input " + quote(it.key()) + ": 1 to 8 positive integers, outermost first");
            dims.push_back(d.get<int64_t>());
        }
        out[it.key()] = dims;
    }
    return Status::ok();
}

json warnings_json(const Warnings& w) { return json(w.items); }

// The JS function, called as fn(done, total); the JS layer makes it return a boolean and never throw.
ProgressFn progress_from(val fn) {
    if (fn.isUndefined() || fn.isNull())
        return nullptr;
    return [fn](int done, int total) { return fn(done, total).as<bool>(); };
}

class WasmModel {
public:
    // paramPtr/binPtr: bytes the JS layer copied into malloc'ed heap memory (it frees them).
    val loadNcnn(uintptr_t param_ptr, size_t param_len, uintptr_t bin_ptr, size_t bin_len, bool has_bin,
                 const std::string& opts) {
        bool structure_only = false;
        val r = result_of([&](val& v) -> Status {
            LoadOptions lo;
            NF_RETURN_IF_ERROR(load_options(opts, lo, &structure_only));
            std::string text((const char*)param_ptr, param_len);
            const uint8_t* bin = (const uint8_t*)bin_ptr;
            NF_RETURN_IF_ERROR(structure_only ? model_.load_structure(text, bin, bin_len, has_bin, lo)
                                              : model_.load_ncnn(text, bin, bin_len, has_bin, lo));
            v = val(dump_json(warnings_json(model_.warnings())));
            return Status::ok();
        });
        // say how much this model needs and how full the heap is
        if (r["error"].as<bool>() && r["code"].as<std::string>() == "resource_limit") {
            struct mallinfo mi = mallinfo();
            r.set("message", r["message"].as<std::string>() + " (the .bin holds " + format_bytes(bin_len) +
                                 "; the WebAssembly heap has " + format_bytes((uint32_t)mi.uordblks) +
                                 " in use of at most 4 GB: dispose models no longer needed)");
        }
        // warnings found before a failure still matter (the CLI prints them before the error)
        if (r["error"].as<bool>())
            r.set("warnings", val(dump_json(warnings_json(model_.warnings()))));
        return r;
    }

    val loadOnnx(uintptr_t ptr, size_t len, const std::string& opts) {
        return result_of([&](val& v) -> Status {
            LoadOptions lo;
            NF_RETURN_IF_ERROR(load_options(opts, lo, nullptr, true));
            NF_RETURN_IF_ERROR(model_.load_onnx((const uint8_t*)ptr, len, lo));
            v = val(dump_json(warnings_json(model_.warnings())));
            return Status::ok();
        });
    }

    // {inputs: [{name, shape}], outputs: [...], simd, warnings}
    val ioJson() {
        return result_of([&](val& v) -> Status {
            json j;
            j["inputs"] = io_json(model_.inputs());
            j["outputs"] = io_json(model_.outputs());
            j["simd"] = model_.uses_simd();
            v = val(dump_json(j));
            return Status::ok();
        });
    }

    val setInputShapes(const std::string& shapes_json) {
        return result_of([&](val& v) -> Status {
            json j;
            NF_RETURN_IF_ERROR(parse_json(shapes_json, j));
            std::map<std::string, Shape> shapes;
            NF_RETURN_IF_ERROR(shapes_from_json(j, shapes));
            return model_.set_input_shapes(shapes);
        });
    }

    val infoJson() {
        return result_of([&](val& v) -> Status {
            v = val(model_.info_json());
            return Status::ok();
        });
    }

    val graphJson() {
        return result_of([&](val& v) -> Status {
            v = val(model_.graph_json());
            return Status::ok();
        });
    }

    // Writes the ncnn files into this object; the JS layer slices paramView()/binView() and then
    // calls clearFiles(). Returns {warnings, io_json} as JSON (io_json: the OUT.io.json text for a
    // model with an io map, else null).
    val toNcnn(int fp16) {
        return result_of([&](val& v) -> Status {
            clearFiles();
            Warnings w;
            NF_RETURN_IF_ERROR(model_.to_ncnn(fp16, param_out_, bin_out_, w));
            json j;
            j["warnings"] = warnings_json(w);
            std::string io = model_.io_json();
            j["io_json"] = io.empty() ? json(nullptr) : json(io);
            v = val(dump_json(j));
            return Status::ok();
        });
    }
    val paramView() { return val(emscripten::typed_memory_view(param_out_.size(), (const uint8_t*)param_out_.data())); }
    val binView() { return val(emscripten::typed_memory_view(bin_out_.size(), bin_out_.data())); }
    void clearFiles() {
        param_out_ = std::string();
        bin_out_ = std::vector<uint8_t>();
    }

    // Allocates the tensor for input `name` in the pending inputs and returns a Float32Array view
    // of it for the JS layer to fill at once.
    val prepareInput(const std::string& name, const std::string& shape_json) {
        return result_of([&](val& v) -> Status {
            json j;
            NF_RETURN_IF_ERROR(parse_json(shape_json, j));
            Shape s;
            NF_RETURN_IF_ERROR(shape_from_json(j, s, "input " + quote(name)));
            Mat m;
            NF_RETURN_IF_ERROR(m.create(s));
            pending_[name] = m;
            v = val(emscripten::typed_memory_view(m.total_floats(), m.data));
            return Status::ok();
        });
    }
    void clearInputs() { pending_.clear(); }

    // Seeded random values for every input, as the pending inputs (nf.randomInputs, profile).
    // Returns the names in input order.
    val randomInputs(double seed) {
        return result_of([&](val& v) -> Status {
            pending_.clear();
            // every input is missing from the cleared map: the values of ModelHandle::random_inputs
            NF_RETURN_IF_ERROR(model_.fill_missing_inputs((uint32_t)seed, pending_));
            json names = json::array();
            for (auto& io : model_.inputs())
                names.push_back(io.name);
            v = val(dump_json(names));
            return Status::ok();
        });
    }
    // A view of a pending input (after randomInputs), with its shape: {view, shape}.
    val inputView(const std::string& name) {
        return result_of([&](val& v) -> Status {
            auto it = pending_.find(name);
            if (it == pending_.end())
                return invalid_argument("no pending input " + quote(name));
            val o = val::object();
            o.set("shape", val(dump_json(dims_json(model_.presented_dims(name, it->second)))));
            o.set("view", val(emscripten::typed_memory_view(it->second.total_floats(), it->second.data)));
            v = o;
            return Status::ok();
        });
    }

    // Runs on the pending inputs (which are then dropped). Outputs stay here until clearOutputs();
    // returns {outputs: [{name, shape}], peak_bytes, ms}.
    val run(const std::string& wanted_json) {
        return result_of([&](val& v) -> Status {
            clearOutputs();
            json j;
            NF_RETURN_IF_ERROR(parse_json(wanted_json, j));
            std::vector<std::string> wanted;
            for (auto& n : j)
                if (n.is_string())
                    wanted.push_back(n.get<std::string>());
            std::map<std::string, Mat> in;
            in.swap(pending_);
            RunStats stats;
            NF_RETURN_IF_ERROR(model_.run(in, wanted, outputs_, &stats));
            // the names only: outputs() would infer every blob's shape again on each run
            std::vector<std::string> order = wanted.empty() ? model_.output_names() : wanted;
            json r;
            r["outputs"] = json::array();
            for (auto& n : order)
                r["outputs"].push_back({{"name", n}, {"shape", outputs_[n].dims ? dims_json(model_.presented_dims(n, outputs_[n])) : json(nullptr)}});
            r["peak_bytes"] = stats.peak_bytes;
            r["ms"] = stats.total_ms;
            v = val(dump_json(r));
            return Status::ok();
        });
    }
    val outputView(const std::string& name) {
        return result_of([&](val& v) -> Status {
            auto it = outputs_.find(name);
            if (it == outputs_.end())
                return invalid_argument("no output " + quote(name) + " from the last run");
            v = val(emscripten::typed_memory_view(it->second.empty() ? 0 : it->second.total_floats(), it->second.data));
            return Status::ok();
        });
    }
    void clearOutputs() { outputs_.clear(); }

    // Per-layer times over `runs` runs on the pending inputs.
    val profile(int runs, val progress) {
        return result_of([&](val& v) -> Status {
            std::map<std::string, Mat> in;
            in.swap(pending_);
            ProfileResult pr;
            NF_RETURN_IF_ERROR(model_.profile(in, runs, pr, progress_from(progress)));
            json j;
            j["runs"] = pr.runs;
            j["run_ms"] = pr.run_ms;
            j["peak_bytes"] = pr.peak_bytes;
            j["layers"] = json::array();
            for (auto& l : pr.layers)
                j["layers"].push_back({{"index", l.index}, {"name", l.name}, {"type", l.type},
                                       {"ms_mean", l.ms_mean}, {"ms_min", l.ms_min}});
            v = val(dump_json(j));
            return Status::ok();
        });
    }

    val optimize(const std::string& opts, val progress) {
        return result_of([&](val& v) -> Status {
            json j;
            NF_RETURN_IF_ERROR(parse_json(opts, j));
            OptimizeRequest req;
            req.fp16 = j.value("fp16", false);
            req.explain = j.value("explain", false);
            if (j.contains("passes") && j["passes"].is_array())
                for (auto& p : j["passes"])
                    req.passes.push_back(p.get<std::string>());
            if (j.contains("keep") && j["keep"].is_array())
                for (auto& k : j["keep"])
                    req.keep.push_back(k.get<std::string>());
            req.cut_start = j.value("cutStart", std::string());
            req.cut_end = j.value("cutEnd", std::string());
            std::string report;
            NF_RETURN_IF_ERROR(model_.optimize(req, report, progress_from(progress)));
            v = val(report);
            return Status::ok();
        });
    }

    // Calibration samples for quantize(), built one at a time by the JS layer: beginSample()
    // starts one; sampleInput() allocates one of its inputs (presented shape, as prepareInput)
    // and returns a Float32Array view to fill at once; pictureSample() decodes an encoded PNG/JPEG
    // into a whole sample (ModelHandle::picture_sample). quantize() consumes them all;
    // clearSamples() drops them after a failure.
    void clearSamples() { samples_.clear(); }
    void beginSample() { samples_.emplace_back(); }
    val sampleInput(const std::string& name, const std::string& shape_json) {
        return result_of([&](val& v) -> Status {
            if (samples_.empty())
                return internal_error("sampleInput before beginSample");
            json j;
            NF_RETURN_IF_ERROR(parse_json(shape_json, j));
            Shape s;
            NF_RETURN_IF_ERROR(shape_from_json(j, s, "calibration input " + quote(name)));
            Mat m;
            NF_RETURN_IF_ERROR(m.create(s));
            samples_.back()[name] = m;
            v = val(emscripten::typed_memory_view(m.total_floats(), m.data));
            return Status::ok();
        });
    }
    // opts: {mean: number[], norm: number[], rgb: bool} (checked by the JS layer)
    val pictureSample(uintptr_t ptr, size_t len, const std::string& name, const std::string& opts) {
        return result_of([&](val& v) -> Status {
            json j;
            NF_RETURN_IF_ERROR(parse_json(opts, j));
            PictureToTensor pt;
            for (const char* key : {"mean", "norm"}) {
                if (!j.contains(key) || !j[key].is_array())
                    continue;
                std::vector<float>& dst = key[0] == 'm' ? pt.mean : pt.norm;
                for (auto& x : j[key]) {
                    if (!x.is_number())
                        return invalid_argument(std::string(key) + " must be numbers");
                    dst.push_back(x.get<float>());
                }
            }
            pt.rgb = j.value("rgb", true);
            std::map<std::string, Mat> sample;
            NF_RETURN_IF_ERROR(model_.picture_sample((const uint8_t*)ptr, len, name, pt, sample));
            samples_.push_back(std::move(sample));
            return Status::ok();
        });
    }
    // Quantizes this model on the samples built so far (which are then dropped) into `out`, a
    // fresh handle. opts: {method, keepFp32, maxLayerError, optimize}. Returns {report (the
    // quantize report's JSON text), warnings (out's)} as JSON.
    val quantize(WasmModel& out, const std::string& opts, val progress) {
        std::vector<std::map<std::string, Mat>> samples;
        samples.swap(samples_);
        return result_of([&](val& v) -> Status {
            json j;
            NF_RETURN_IF_ERROR(parse_json(opts, j));
            QuantizeRequest req;
            req.method = j.value("method", std::string("kl"));
            if (j.contains("keepFp32") && j["keepFp32"].is_array())
                for (auto& k : j["keepFp32"])
                    if (k.is_string())
                        req.keep_fp32.push_back(k.get<std::string>());
            req.max_layer_error = j.value("maxLayerError", 0.0);
            req.optimize = j.value("optimize", true);
            std::string report;
            NF_RETURN_IF_ERROR(model_.quantize(samples, req, out.model_, report, progress_from(progress)));
            json r;
            r["report"] = report;
            r["warnings"] = warnings_json(out.model_.warnings());
            v = val(dump_json(r));
            return Status::ok();
        });
    }

    ModelHandle& handle() { return model_; }

private:
    // onnx: shapes are full ONNX shapes (any rank up to 8) into lo.onnx_shapes
    Status load_options(const std::string& opts, LoadOptions& lo, bool* structure_only = nullptr, bool onnx = false) {
        json j;
        NF_RETURN_IF_ERROR(parse_json(opts, j));
        if (structure_only)
            *structure_only = j.value("structureOnly", false);
        lo.seed = j.value("seed", (uint32_t)0);
        lo.use_simd = j.value("simd", true);
        lo.param_name = j.value("paramName", std::string("model.param"));
        lo.bin_name = j.value("binName", std::string("model.bin"));
        if (j.contains("ioJson") && j["ioJson"].is_string()) {
            lo.io_json = j["ioJson"].get<std::string>();
            lo.io_json_name = j.value("ioJsonName", std::string("model.io.json"));
        }
        const json shapes = j.contains("shapes") ? j["shapes"] : json();
        return onnx ? onnx_shapes_from_json(shapes, lo.onnx_shapes) : shapes_from_json(shapes, lo.shapes);
    }

    ModelHandle model_;
    std::map<std::string, Mat> pending_;
    std::map<std::string, Mat> outputs_;
    std::string param_out_;
    std::vector<uint8_t> bin_out_;
    std::vector<std::map<std::string, Mat>> samples_;
};

// opts: {seed, tolerance, divergence} (the JS layer checks their types)
val verify(WasmModel& a, WasmModel& b, const std::string& opts, val progress) {
    return result_of([&](val& v) -> Status {
        json j;
        NF_RETURN_IF_ERROR(parse_json(opts, j));
        VerifyRequest req;
        req.seed = j.value("seed", (uint32_t)0);
        req.tolerance = j.value("tolerance", 1e-4);
        req.divergence = j.value("divergence", true);
        std::string report;
        NF_RETURN_IF_ERROR(verify_models(a.handle(), b.handle(), req, report, progress_from(progress)));
        v = val(report);
        return Status::ok();
    });
}

// {version, simd, features: {optimize, verify, onnx}}. Every build has the optimizer, verification
// and ONNX import; `features` stays in the JS API (Nnfold.features) with all three true.
std::string build_info() {
    json j;
    j["version"] = NNFOLD_VERSION;
    j["simd"] = build_has_simd();
    j["threads"] = build_has_threads();
    j["features"] = {{"optimize", true}, {"verify", true}, {"onnx", true}};
    return dump_json(j);
}

// Live bytes of the C heap (dlmalloc's mallinfo: bytes in allocated chunks) and the heap size.
// The leak test watches `allocated`; `memory.buffer.byteLength` only ever grows.
val heap_stats() {
    struct mallinfo mi = mallinfo();
    val o = val::object();
    // mallinfo's fields are int: read them as unsigned (wasm32 heaps reach 4 GB)
    o.set("allocated", (double)(uint32_t)mi.uordblks);
    o.set("free", (double)(uint32_t)mi.fordblks);
    o.set("arena", (double)(uint32_t)mi.arena);
    return o;
}

// Threads for every later call. In the threaded flavour the JS layer calls this right after start
// (the C++ pool's threads take Workers from the Emscripten pool init() sized; a thread beyond it is
// an error, PTHREAD_POOL_SIZE_STRICT=2, never a wait); the other flavours accept only 1.
val set_threads(int n) {
    return result_of([&](val& value) -> Status {
        NF_RETURN_IF_ERROR(set_num_threads(n));
        value = val(num_threads());
        return Status::ok();
    });
}

// Joins the pool's threads (terminate() in the JS layer, before it ends the Workers).
void shutdown() {
    shutdown_threads();
}

}  // namespace

EMSCRIPTEN_BINDINGS(nnfold) {
    emscripten::class_<WasmModel>("WasmModel")
        .constructor<>()
        .function("loadNcnn", &WasmModel::loadNcnn)
        .function("loadOnnx", &WasmModel::loadOnnx)
        .function("ioJson", &WasmModel::ioJson)
        .function("setInputShapes", &WasmModel::setInputShapes)
        .function("infoJson", &WasmModel::infoJson)
        .function("graphJson", &WasmModel::graphJson)
        .function("toNcnn", &WasmModel::toNcnn)
        .function("paramView", &WasmModel::paramView)
        .function("binView", &WasmModel::binView)
        .function("clearFiles", &WasmModel::clearFiles)
        .function("prepareInput", &WasmModel::prepareInput)
        .function("clearInputs", &WasmModel::clearInputs)
        .function("randomInputs", &WasmModel::randomInputs)
        .function("inputView", &WasmModel::inputView)
        .function("run", &WasmModel::run)
        .function("outputView", &WasmModel::outputView)
        .function("clearOutputs", &WasmModel::clearOutputs)
        .function("profile", &WasmModel::profile)
        .function("optimize", &WasmModel::optimize)
        .function("clearSamples", &WasmModel::clearSamples)
        .function("beginSample", &WasmModel::beginSample)
        .function("sampleInput", &WasmModel::sampleInput)
        .function("pictureSample", &WasmModel::pictureSample)
        .function("quantize", &WasmModel::quantize);
    emscripten::function("verify", &verify);
    emscripten::function("buildInfo", &build_info);
    emscripten::function("heapStats", &heap_stats);
    emscripten::function("setNumThreads", &set_threads);
    emscripten::function("numThreads", &num_threads);
    emscripten::function("shutdownThreads", &shutdown);
}
