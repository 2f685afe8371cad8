// quantize_graph (quant/quantize.h): ncnn2table's calibration (quant/calibration.h) over fp32 runs
// of the model, then ncnn2int8's rewrite (quant/int8_rewrite.h), then a measurement of what the
// int8 model gives against the fp32 one on the same samples.
//
// Passes over the calibration set (each one fp32 run per sample, activations kept only for the
// sample at hand, so memory stays at one run's worth whatever the set's size):
//   A  absmax of every quantizable layer's input
//   B  KL and EQ: the 2048-bin histograms of those inputs (needs A's absmax, as ncnn2table)
//   EQ per layer, the layer's input and output on the first 50 samples, then the scale search
//   C  per layer, its int8 form (dequantized output) against its fp32 output on the same input
//   D  the int8 model against the fp32 model: per-output error, top-1 agreement (in C's loop,
//      on C's fp32 run, unless max_layer_error must first decide which layers stay fp32)
#include "quant/quantize.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <memory>
#include <cstring>
#include <set>

#include "analysis/analysis.h"
#include "core/json.h"
#include "core/strings.h"
#include "quant/calibration.h"
#include "quant/eq.h"
#include "quant/int8_rewrite.h"
#include "runtime/net.h"
#include "runtime/verify.h"

namespace nnfold {

bool parse_calibration_method(const std::string& s, CalibrationMethod& out) {
    if (s == "kl")
        out = CalibrationMethod::KL;
    else if (s == "aciq")
        out = CalibrationMethod::ACIQ;
    else if (s == "eq")
        out = CalibrationMethod::EQ;
    else
        return false;
    return true;
}

const char* calibration_method_name(CalibrationMethod m) {
    switch (m) {
    case CalibrationMethod::KL: return "kl";
    case CalibrationMethod::ACIQ: return "aciq";
    case CalibrationMethod::EQ: return "eq";
    }
    return "?";
}

namespace {

using quant::Int8Candidate;

// Per candidate layer: what calibration found and what was decided.
struct LayerState {
    Int8Candidate c;
    std::string name, bottom, top;
    float absmax = 0.f;
    int count = 0;  // elements of the input (ACIQ's N: ncnn takes the last sample's)
    std::vector<uint64_t> histogram;
    std::vector<float> weight_scales;
    float bottom_scale = 0.f;
    bool int8 = false;
    std::string reason;  // why fp32
    double error = 0;    // worst relative error of the int8 layer over the set
    bool measured = false;
    float top_scale = 0.f;
};

struct Progress {
    const QuantizeProgress& fn;
    int done = 0, total = 0;
    Status step() {
        done++;
        if (fn && !fn(std::min(done, total), total))
            return Status(ErrorCode::Cancelled, "quantization cancelled");
        return Status::ok();
    }
};

Status check_samples(const Graph& g, const std::vector<CalibrationSample>& samples,
                     const std::map<std::string, Shape>& given) {
    if (samples.empty())
        return invalid_argument("quantization needs at least one calibration sample");
    std::vector<int> ins = g.input_blobs();
    std::string names;
    for (int b : ins)
        names += (names.empty() ? "" : ", ") + quote(g.blobs[(size_t)b].name);
    for (size_t s = 0; s < samples.size(); s++) {
        const std::string who = "calibration sample " + std::to_string(s + 1);
        for (auto& kv : samples[s]) {
            bool found = false;
            for (int b : ins)
                found = found || g.blobs[(size_t)b].name == kv.first;
            if (!found)
                return invalid_argument(who + " gives " + quote(kv.first) + ", which is not an input of the model (inputs: " +
                                        names + ")");
        }
        for (int b : ins) {
            const std::string& name = g.blobs[(size_t)b].name;
            auto it = samples[s].find(name);
            if (it == samples[s].end() || it->second.empty())
                return invalid_argument(who + " has no value for input " + quote(name));
            if (it->second.int8 || it->second.elempack != 1)
                return invalid_argument(who + ": input " + quote(name) + " must be a plain fp32 tensor");
            Shape want;
            int p = g.producer(b);
            auto gs = given.find(name);
            if (gs != given.end())
                want = gs->second;
            else if (p >= 0)
                want = declared_input_shape(g.layers[(size_t)p].params);
            if (!want.known() && s > 0)
                want = samples[0].at(name).shape();  // no declared shape: every sample as the first
            if (want.known() && it->second.shape() != want)
                return invalid_argument(who + ": input " + quote(name) + " has shape " + it->second.shape().str() +
                                        ", the model takes " + want.str());
        }
    }
    return Status::ok();
}

json number_or_null(double v) {
    if (!std::isfinite(v))
        return nullptr;
    return v;
}

uint64_t graph_bytes(const Graph& g) {
    uint64_t n = 0;
    for (auto& l : g.layers)
        if (!l.erased)
            for (auto& w : l.weights)
                n += w.file_bytes();
    return n;
}

// One class vector: a 1-D [N] output, N >= 2 (a detection list [6, n] or a map is not one).
bool class_vector(const Mat& m) {
    return m.dims == 1 && m.w >= 2 && !m.int8;
}
// Index of the largest value (the first one on ties).
size_t argmax(const Mat& m) {
    size_t n = m.total_floats(), best = 0;
    for (size_t i = 1; i < n; i++)
        if (m.data[i] > m.data[best])
            best = i;
    return best;
}

}  // namespace

Status quantize_graph(const Graph& fp32, const std::vector<CalibrationSample>& samples, const QuantizeOptions& opt,
                      Graph& out, std::string& report_json, Warnings& warnings, const QuantizeProgress& progress) {
    const int already = quant::first_int8_layer(fp32);
    if (already >= 0) {
        const LayerNode& l = fp32.layers[(size_t)already];
        return unsupported("the model is already quantized: " + layer_desc(l.name, l.type) +
                           (quant::quantizable_type(l.type) ? " has int8_scale_term " +
                                                                  std::to_string(quant::int8_scale_term(l))
                                                            : std::string(" is an int8 layer")));
    }
    std::vector<Int8Candidate> cands;
    NF_RETURN_IF_ERROR(quant::find_candidates(fp32, cands));
    if (cands.empty())
        return unsupported("no Convolution/ConvolutionDepthWise/InnerProduct to quantize");
    for (auto& name : opt.keep_fp32)
        if (fp32.find_layer(name) < 0)
            return invalid_argument("keep_fp32 names " + quote(name) + ", which is no layer of the model");
    NF_RETURN_IF_ERROR(check_samples(fp32, samples, opt.input_shapes));

    std::vector<LayerState> layers;
    for (auto& c : cands) {
        LayerState s;
        s.c = c;
        const LayerNode& node = fp32.layers[(size_t)c.layer];
        s.name = node.name;
        if (!c.skip.empty())
            s.reason = c.skip;
        else if (std::find(opt.keep_fp32.begin(), opt.keep_fp32.end(), node.name) != opt.keep_fp32.end())
            s.reason = "kept fp32 (keep_fp32)";
        if (node.bottoms.size() == 1 && node.tops.size() == 1) {
            s.bottom = fp32.blobs[(size_t)node.bottoms[0]].name;
            s.top = fp32.blobs[(size_t)node.tops[0]].name;
        }
        layers.push_back(std::move(s));
    }
    bool any = false;
    for (auto& s : layers)
        any = any || s.reason.empty();
    if (!any) {
        std::string why;
        for (auto& s : layers)
            why += (why.empty() ? "" : "; ") + layer_desc(s.name, s.c.type) + ": " + s.reason;
        return unsupported("nothing to quantize: every Convolution/ConvolutionDepthWise/InnerProduct stays fp32 (" + why +
                           ")");
    }

    Net net;
    NF_RETURN_IF_ERROR(net.load(fp32));
    const std::vector<std::string> outputs = net.output_names();
    std::vector<std::string> wanted_bottoms;
    std::vector<std::string> wanted_all = outputs;
    for (auto& s : layers)
        if (s.reason.empty()) {
            wanted_bottoms.push_back(s.bottom);
            wanted_all.push_back(s.bottom);
            wanted_all.push_back(s.top);
        }
    auto dedupe = [](std::vector<std::string>& v) {
        std::vector<std::string> r;
        std::set<std::string> seen;
        for (auto& x : v)
            if (seen.insert(x).second)
                r.push_back(x);
        v = r;
    };
    dedupe(wanted_bottoms);
    dedupe(wanted_all);

    const int n = (int)samples.size();
    const bool histograms = opt.method != CalibrationMethod::ACIQ;
    int eq_layers = 0;
    for (auto& s : layers)
        eq_layers += s.reason.empty() && opt.method == CalibrationMethod::EQ ? 1 : 0;
    const int passes = 2 + (histograms ? 1 : 0) + (opt.max_layer_error > 0 ? 1 : 0);  // A, B, C, D
    Progress prog{progress, 0, n * passes + eq_layers};
    // (0, total) first, so that a front end can show the whole length before the first run
    if (progress && !progress(0, prog.total))
        return Status(ErrorCode::Cancelled, "quantization cancelled");
    auto sample_error = [](int i, const Status& st) {
        return st.with_context("calibration sample " + std::to_string(i + 1));
    };

    // one pass over the samples: `use` sees each sample's inputs of the quantizable layers
    auto over_samples = [&](const std::function<void(std::map<std::string, Mat>&)>& use) -> Status {
        for (int i = 0; i < n; i++) {
            std::map<std::string, Mat> got;
            Status st = net.run(samples[(size_t)i], wanted_bottoms, got);
            if (!st)
                return sample_error(i, st);
            use(got);
            NF_RETURN_IF_ERROR(prog.step());
        }
        return Status::ok();
    };

    // A: absmax of each input
    NF_RETURN_IF_ERROR(over_samples([&](std::map<std::string, Mat>& got) {
        for (auto& s : layers) {
            if (!s.reason.empty())
                continue;
            const Mat& m = got.at(s.bottom);
            s.absmax = std::max(s.absmax, quant::absmax(m.data, m.total_floats()));
            s.count = (int)m.total_floats();
        }
    }));
    for (auto& s : layers) {
        if (!s.reason.empty())
            continue;
        if (!std::isfinite(s.absmax))
            s.reason = "its input is not finite on the calibration set";
        else if (s.absmax == 0.f)
            s.reason = "its input is zero on every calibration sample (no scale to calibrate)";
    }

    // B: histograms (KL, and EQ's starting point)
    if (histograms) {
        for (auto& s : layers)
            if (s.reason.empty())
                s.histogram.assign(quant::kHistogramBins, 0);
        NF_RETURN_IF_ERROR(over_samples([&](std::map<std::string, Mat>& got) {
            for (auto& s : layers) {
                if (!s.reason.empty())
                    continue;
                const Mat& m = got.at(s.bottom);
                quant::accumulate_histogram(m.data, m.total_floats(), s.absmax, s.histogram);
            }
        }));
    }

    // scales
    for (auto& s : layers) {
        if (!s.reason.empty())
            continue;
        const std::vector<float>& w = fp32.layers[(size_t)s.c.layer].weights[0].data;
        if (opt.method == CalibrationMethod::ACIQ) {
            s.weight_scales = quant::weight_scales_aciq(w.data(), s.c.rows, s.c.row_size, s.c.qmax);
            // ln(1) = 0: a one-element input would make ncnn's clip infinite; its absmax is the clip
            s.bottom_scale = s.count > 1 ? quant::aciq_scale(s.absmax, s.count) : 127 / s.absmax;
        } else {
            s.weight_scales = quant::weight_scales_absmax(w.data(), s.c.rows, s.c.row_size, s.c.qmax);
            uint64_t sum = 0;
            for (uint64_t h : s.histogram)
                sum += h;
            s.bottom_scale = sum == 0 ? 127 / s.absmax : quant::kl_scale(s.histogram, s.absmax);
        }
    }

    auto alloc = std::make_shared<Allocator>();

    // EQ: each weight scale, then the bottom scale, searched on the layer's own input and output
    if (opt.method == CalibrationMethod::EQ) {
        const int ne = std::min(n, quant::kEqMaxSamples);
        for (auto& s : layers) {
            if (!s.reason.empty())
                continue;
            std::vector<Mat> ins((size_t)ne), outs((size_t)ne);
            for (int i = 0; i < ne; i++) {
                std::map<std::string, Mat> got;
                Status st = net.run(samples[(size_t)i], {s.bottom, s.top}, got);
                if (!st)
                    return sample_error(i, st);
                ins[(size_t)i] = got.at(s.bottom);
                outs[(size_t)i] = got.at(s.top);
            }
            const LayerNode& node = fp32.layers[(size_t)s.c.layer];
            NF_RETURN_IF_ERROR(quant::eq_weight_scales(node, s.c, s.bottom_scale, ins, outs, alloc.get(),
                                                       s.weight_scales, [&] {
                                                           return !progress || progress(prog.done, prog.total);
                                                       })
                                   .with_context(layer_desc(s.name, s.c.type)));
            NF_RETURN_IF_ERROR(quant::eq_bottom_scale(node, s.c, s.weight_scales, ins, outs, alloc.get(), s.bottom_scale)
                                   .with_context(layer_desc(s.name, s.c.type)));
            NF_RETURN_IF_ERROR(prog.step());
        }
    }

    // the table's precision (ncnn2table writes "%f", ncnn2int8 reads it back)
    for (auto& s : layers) {
        if (!s.reason.empty())
            continue;
        for (float& w : s.weight_scales)
            w = quant::table_round(w);
        s.bottom_scale = quant::table_round(s.bottom_scale);
        bool ok = std::isfinite(s.bottom_scale) && s.bottom_scale > 0;
        for (float w : s.weight_scales)
            ok = ok && std::isfinite(w) && w > 0;
        if (!ok)
            s.reason = "its scales are out of range (input absmax " + std::to_string(s.absmax) + ")";
        else
            s.int8 = true;
    }

    // The rewrite (ncnn2int8): the layers decided int8, then the requantize fusion.
    Graph g;
    auto rewrite = [&]() -> Status {
        g = fp32;
        int int8_count = 0;
        for (auto& s : layers)
            if (s.int8) {
                NF_RETURN_IF_ERROR(
                    quant::quantize_layer(g.layers[(size_t)s.c.layer], s.c, s.weight_scales, s.bottom_scale));
                int8_count++;
            }
        if (int8_count == 0)
            warnings.add("no layer was quantized: every candidate stays fp32 (see the report's reasons)");
        if (opt.fuse_requantize)
            quant::fuse_requantize(g);
        for (auto& s : layers) {
            const LayerNode& l = g.layers[(size_t)s.c.layer];
            s.top_scale = quant::int8_scale_term(l) > 100 ? l.weights.back().data[0] : 0.f;
        }
        return Status::ok();
    };

    // D's measure: the int8 model's outputs against the fp32 ones of the same sample
    std::map<std::string, double> out_err;
    std::map<std::string, int> top1_same;
    std::set<std::string> is_class;
    for (auto& o : outputs) {
        out_err[o] = 0;
        top1_same[o] = 0;
        is_class.insert(o);
    }
    Net qnet;
    auto compare_outputs = [&](int i, const std::map<std::string, Mat>& ref_out) -> Status {
        std::map<std::string, Mat> got;
        Status st = qnet.run(samples[(size_t)i], outputs, got);
        if (!st)
            return sample_error(i, st.with_context("the quantized model"));
        for (auto& o : outputs) {
            const Mat& ref = ref_out.at(o);
            const Mat& m = got.at(o);
            double e = m.total_floats() == ref.total_floats() ? relative_error(ref.data, m.data, ref.total_floats())
                                                              : INFINITY;
            out_err[o] = std::max(out_err[o], e);
            if (!class_vector(ref) || m.total_floats() != ref.total_floats())
                is_class.erase(o);
            else if (argmax(ref) == argmax(m))
                top1_same[o]++;
        }
        return Status::ok();
    };
    // Without an error bound the int8 layers are known before C, so C's fp32 run of each sample also
    // serves D (no fp32 outputs are kept across samples); with one, D runs after C decides.
    const bool merged = !(opt.max_layer_error > 0);
    if (merged) {
        NF_RETURN_IF_ERROR(rewrite());
        NF_RETURN_IF_ERROR(qnet.load(g).with_context("the quantized model"));
    }

    // C: each int8 layer alone against its fp32 output
    {
        std::vector<std::unique_ptr<Layer>> q(layers.size());
        for (size_t k = 0; k < layers.size(); k++)
            if (layers[k].int8)
                NF_RETURN_IF_ERROR(quant::build_int8_layer(fp32.layers[(size_t)layers[k].c.layer], layers[k].c,
                                                           layers[k].weight_scales, layers[k].bottom_scale,
                                                           alloc.get(), q[k]));
        for (int i = 0; i < n; i++) {
            std::map<std::string, Mat> got;
            Status st = net.run(samples[(size_t)i], wanted_all, got);
            if (!st)
                return sample_error(i, st);
            for (size_t k = 0; k < layers.size(); k++) {
                LayerState& s = layers[k];
                if (!s.int8)
                    continue;
                Mat o;
                st = quant::forward_layer(*q[k], got.at(s.bottom), alloc.get(), o);
                if (!st)
                    return sample_error(i, st.with_context(layer_desc(s.name, s.c.type) + " (int8)"));
                const Mat& ref = got.at(s.top);
                double e = o.total_floats() == ref.total_floats()
                               ? relative_error(ref.data, o.data, ref.total_floats())
                               : INFINITY;
                s.error = std::max(s.error, e);
                s.measured = true;
            }
            if (merged)
                NF_RETURN_IF_ERROR(compare_outputs(i, got));
            NF_RETURN_IF_ERROR(prog.step());
        }
    }

    if (!merged) {
        for (auto& s : layers)
            if (s.int8 && !(s.error <= opt.max_layer_error)) {
                s.int8 = false;
                s.reason = "error " + std::to_string(s.error) + " above max_layer_error " +
                           std::to_string(opt.max_layer_error);
            }
        NF_RETURN_IF_ERROR(rewrite());
        NF_RETURN_IF_ERROR(qnet.load(g).with_context("the quantized model"));
        // D: the int8 model against the fp32 one
        for (int i = 0; i < n; i++) {
            std::map<std::string, Mat> ref;
            Status st = net.run(samples[(size_t)i], outputs, ref);
            if (!st)
                return sample_error(i, st);
            NF_RETURN_IF_ERROR(compare_outputs(i, ref));
            NF_RETURN_IF_ERROR(prog.step());
        }
    }

    json rep;
    rep["method"] = calibration_method_name(opt.method);
    rep["samples"] = n;
    json jl = json::array();
    for (auto& s : layers) {
        json l;
        l["name"] = s.name;
        l["type"] = s.c.type;
        l["int8"] = s.int8;
        l["reason"] = s.int8 ? std::string() : s.reason;
        l["bottom_scale"] = s.int8 ? number_or_null(s.bottom_scale) : json(nullptr);
        if (s.int8 && !s.weight_scales.empty()) {
            auto mm = std::minmax_element(s.weight_scales.begin(), s.weight_scales.end());
            l["weight_scale_min"] = number_or_null(*mm.first);
            l["weight_scale_max"] = number_or_null(*mm.second);
        } else {
            l["weight_scale_min"] = nullptr;
            l["weight_scale_max"] = nullptr;
        }
        l["top_scale"] = s.top_scale > 0 ? number_or_null(s.top_scale) : json(nullptr);
        l["error"] = s.measured ? number_or_null(s.error) : json(nullptr);
        jl.push_back(l);
    }
    rep["layers"] = jl;
    json jo = json::array();
    for (auto& o : outputs) {
        json e;
        e["name"] = o;
        e["error"] = number_or_null(out_err[o]);
        e["top1_agreement"] = is_class.count(o) ? json((double)top1_same[o] / n) : json(nullptr);
        jo.push_back(e);
    }
    rep["outputs"] = jo;
    rep["bytes_before"] = graph_bytes(fp32);
    rep["bytes_after"] = graph_bytes(g);
    report_json = dump_json(rep);
    out = std::move(g);
    return Status::ok();
}

}  // namespace nnfold
