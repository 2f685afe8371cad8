// The optimizer driver: selects passes, runs the pipeline round after round to a fixed point,
// removes erased layers after every pass (compact), re-infers shapes for the next pass, checks the
// graph stays valid, and keeps the log.
#include "passes/optimizer.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "analysis/weight_specs.h"
#include "core/json.h"
#include "core/strings.h"
#include "layers/layer.h"
#include "passes/registry.h"
#include "version.h"

namespace nnfold {

namespace {

// Every rewrite removes a layer or turns one into a simpler type once, so a round that changes
// something brings the graph closer to the fixed point; this bound only guards against a bug.
constexpr int kMaxRounds = 1000;

void model_stats(const Graph& g, const std::map<std::string, Shape>& shapes, ModelStats& s) {
    ModelSummary sum = summarize(g, shapes);
    s.layers = sum.layers;
    s.weights_bytes = sum.weights_file_bytes;
    s.memory_known = sum.shapes_known;
    s.memory_bytes = sum.shapes_known ? sum.memory_bytes : 0;
}

// Every layer has the weight arrays its params ask for: on input (else the caller passed a graph
// without weights: InvalidArgument), and after every pass (a pass that changed a param such as
// bias_term must have changed the arrays too: Internal).
Status check_weights(const Graph& g, const std::string& pass, bool input = false) {
    for (auto& l : g.layers) {
        if (l.erased)
            continue;
        std::vector<WeightSpec> specs;
        Status st = weight_specs_for(l, specs);
        if (!st)
            return input ? st : internal_error("after " + pass + ": " + st.message());
        bool ok = specs.size() == l.weights.size();
        for (size_t i = 0; ok && i < specs.size(); i++)
            ok = specs[i].count == l.weights[i].count() && specs[i].tagged == l.weights[i].tagged();
        if (!ok && input)
            return invalid_argument(layer_desc(l.name, l.type) + " has weight arrays that do not match its params "
                                    "(were the weights loaded?)");
        if (!ok)
            return internal_error("after " + pass + ": " + layer_desc(l.name, l.type) +
                                  " has weight arrays that do not match its params");
    }
    return Status::ok();
}

std::string join_names(const std::vector<std::string>& v) {
    std::string s;
    for (auto& n : v)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

class Driver {
public:
    Driver(Graph& g, const OptimizeOptions& opt, Warnings& w) : g_(g), opt_(opt), warnings_(w), ctx_(g) {}

    Status run(const std::vector<const Pass*>& passes, OptimizeReport& report);

private:
    // Re-infers shapes and the protected blobs; false when shape inference fails.
    bool refresh();
    std::vector<std::string> io_names() const;

    Graph& g_;
    const OptimizeOptions& opt_;
    Warnings& warnings_;
    PassContext ctx_;
    std::map<std::string, std::string> protected_names_;  // blob name -> why
    bool shape_warning_ = false;
};

std::vector<std::string> Driver::io_names() const {
    std::vector<std::string> r;
    for (int b : g_.input_blobs())
        r.push_back("in:" + g_.blobs[b].name);
    std::vector<std::string> outs;
    for (int b : g_.output_blobs())
        outs.push_back("out:" + g_.blobs[b].name);
    std::sort(outs.begin(), outs.end());
    r.insert(r.end(), outs.begin(), outs.end());
    return r;
}

bool Driver::refresh() {
    Status st = infer_shapes(g_, opt_.input_shapes, ctx_.shapes);
    if (!st) {
        ctx_.shapes.assign(g_.blobs.size(), Shape());
        if (!shape_warning_) {
            warnings_.add("shape inference failed, passes that need shapes are skipped: " + st.message());
            shape_warning_ = true;
        }
    }
    for (auto& s : ctx_.shapes)
        if (!s.known())
            s = Shape();
    ctx_.protected_blob.assign(g_.blobs.size(), 0);
    ctx_.protected_why.assign(g_.blobs.size(), std::string());
    for (size_t b = 0; b < g_.blobs.size(); b++) {
        auto it = protected_names_.find(g_.blobs[b].name);
        if (it != protected_names_.end()) {
            ctx_.protected_blob[b] = 1;
            ctx_.protected_why[b] = it->second;
        }
    }
    return st.is_ok();
}

Status Driver::run(const std::vector<const Pass*>& passes, OptimizeReport& report) {
    // Producers and consumers from the graph's use index while the passes run (each query costs
    // its number of uses, not a scan of the graph: a chain of N removable layers takes O(N) per
    // round, not O(N^2)); off again on every way out, for callers that edit the graph directly.
    struct IndexOn {
        Graph& g;
        explicit IndexOn(Graph& graph) : g(graph) { g.set_use_index(true); }
        ~IndexOn() { g.set_use_index(false); }
    } index_on(g_);
    for (int b : g_.output_blobs())
        protected_names_[g_.blobs[b].name] = "a model output";
    for (auto& k : opt_.keep) {
        if (g_.find_blob(k) >= 0) {
            protected_names_[k] = "kept (keep option)";
            continue;
        }
        // a layer name keeps what the layer reads and writes
        const LayerNode& l = g_.layers[g_.find_layer(k)];
        for (int b : l.bottoms)
            protected_names_[g_.blobs[b].name] = "kept (keep option, layer " + quote(k) + ")";
        for (int t : l.tops)
            protected_names_[g_.blobs[t].name] = "kept (keep option, layer " + quote(k) + ")";
    }

    report.passes.clear();
    for (const Pass* p : passes)
        report.passes.push_back(PassRecord{p->name(), {}});

    bool shapes_ok = refresh();
    const std::vector<std::string> io = io_names();
    for (int round = 1;; round++) {
        if (round > kMaxRounds)
            return internal_error("the optimizer did not reach a fixed point after " + std::to_string(kMaxRounds) +
                                  " rounds");
        report.rounds = round;
        report.skipped.clear();
        report.refused_unknown_shapes = 0;
        bool changed = false;
        for (size_t pi = 0; pi < passes.size(); pi++) {
            const Pass& pass = *passes[pi];
            if (opt_.cancel && *opt_.cancel)
                return Status(ErrorCode::Cancelled, "optimization cancelled");
            if (opt_.progress)
                opt_.progress(OptimizeProgress{round, (int)pi, (int)passes.size(), pass.name()});
            bool dirty = false;
            for (size_t i = 0; i < g_.layers.size(); i++) {
                if (g_.layers[i].erased)
                    continue;
                Candidate c;
                MatchResult m = pass.match(ctx_, (int)i, c);
                if (m.kind == MatchResult::None)
                    continue;
                std::vector<std::string> names;
                for (int l : c.layers)
                    names.push_back(g_.layers[l].name);
                if (names.empty())
                    names.push_back(g_.layers[i].name);
                if (m.kind == MatchResult::Blocked) {
                    // the passes' common wording for "shapes would let me decide"
                    if (m.reason.find("give input shapes") != std::string::npos)
                        report.refused_unknown_shapes++;
                    if (opt_.explain)
                        report.skipped.push_back(SkipRecord{pass.name(), names, m.reason});
                    continue;
                }
                std::string detail;
                Status st = pass.rewrite(ctx_, c, detail);
                if (!st) {
                    // a rewrite refuses (leaving the graph unchanged) when its arithmetic would not
                    // be finite; anything else is a bug
                    if (st.code() != ErrorCode::Unsupported)
                        return st.with_context(pass.name());
                    if (opt_.explain)
                        report.skipped.push_back(SkipRecord{pass.name(), names, st.message()});
                    continue;
                }
                report.passes[pi].rewrites.push_back(RewriteRecord{names, detail});
                dirty = true;
                if (opt_.check_use_index) {
                    Status ci = g_.check_use_index();
                    if (!ci)
                        return internal_error(pass.name() + " (" + join_names(names) + "): " + ci.message());
                }
            }
            if (dirty) {
                changed = true;
                g_.compact();
                Status st = g_.validate();
                if (!st)
                    return internal_error(pass.name() + " left an invalid graph: " + st.message());
                NF_RETURN_IF_ERROR(check_weights(g_, pass.name()));
                // the invariants every rewrite keeps: input and output names, inferable shapes
                if (io_names() != io)
                    return internal_error(pass.name() + " changed the model's input or output names");
                bool ok = refresh();
                if (shapes_ok && !ok)
                    return internal_error(pass.name() + " left a graph whose shapes cannot be inferred");
            }
        }
        if (!changed)
            break;
    }
    report.shapeless_inputs.clear();
    for (int b : g_.input_blobs())
        if (!ctx_.shape(b).known())
            report.shapeless_inputs.push_back(g_.blobs[b].name);
    return Status::ok();
}

}  // namespace

int OptimizeReport::rewrite_count() const {
    int n = 0;
    for (auto& p : passes)
        n += (int)p.rewrites.size();
    return n;
}

std::vector<std::string> optimizer_pass_names() {
    std::vector<std::string> r;
    for (auto& p : pipeline())
        r.push_back(p->name());
    return r;
}

Status optimize(Graph& g, const OptimizeOptions& opt, OptimizeReport& report, Warnings& warnings) {
    report = OptimizeReport();
    std::vector<const Pass*> passes;
    if (opt.passes.empty()) {
        for (auto& p : pipeline())
            passes.push_back(p.get());
    } else {
        std::set<std::string> wanted;
        for (auto& n : opt.passes) {
            if (!find_pass(n))
                return invalid_argument("unknown pass " + quote(n) + "; valid passes: " +
                                        join_names(optimizer_pass_names()));
            wanted.insert(n);
        }
        for (auto& p : pipeline())
            if (wanted.count(p->name()))
                passes.push_back(p.get());
    }

    g.compact();
    NF_RETURN_IF_ERROR(g.validate());
    for (auto& k : opt.keep)
        if (g.find_blob(k) < 0 && g.find_layer(k) < 0)
            return invalid_argument("cannot keep " + quote(k) + ": the model has no blob or layer of that name");
    std::vector<int> inputs = g.input_blobs();
    for (auto& kv : opt.input_shapes) {
        int b = g.find_blob(kv.first);
        bool is_input = false;
        for (int i : inputs)
            is_input = is_input || i == b;
        if (!is_input) {
            std::vector<std::string> names;
            for (int i : inputs)
                names.push_back(g.blobs[i].name);
            return invalid_argument("a shape was given for " + quote(kv.first) + ", which is not an input (inputs: " +
                                    join_names(names) + ")");
        }
        if (!kv.second.valid())
            return invalid_argument("shape " + kv.second.str() + " for input " + quote(kv.first) + " is not valid");
    }
    NF_RETURN_IF_ERROR(check_weights(g, "", true));

    model_stats(g, opt.input_shapes, report.before);
    Driver d(g, opt, warnings);
    NF_RETURN_IF_ERROR(d.run(passes, report));
    // shapes for the writer's hints (ncnnoptimize's shape_inference step); unknown ones stay unknown
    Status st = annotate_shapes(g, opt.input_shapes);
    (void)st;  // already reported by the driver when it fails
    model_stats(g, opt.input_shapes, report.after);
    return Status::ok();
}

std::string report_json(const OptimizeReport& r) {
    // ordered: keys in the order docs/optimizer.md lists them
    using json = nlohmann::ordered_json;
    json j = json::object();
    j["version"] = NNFOLD_VERSION;
    json passes = json::array();
    for (auto& p : r.passes) {
        json rw = json::array();
        for (auto& x : p.rewrites)
            rw.push_back(json{{"layers", x.layers}, {"detail", x.detail}});
        json jp = json::object();
        jp["name"] = p.name;
        jp["rewrites"] = rw;
        passes.push_back(jp);
    }
    j["passes"] = passes;
    json skipped = json::array();
    for (auto& s : r.skipped) {
        json js = json::object();
        js["pass"] = s.pass;
        js["layers"] = s.layers;
        js["reason"] = s.reason;
        skipped.push_back(js);
    }
    j["skipped"] = skipped;
    auto stats = [](const ModelStats& s) {
        json o = json::object();
        o["layers"] = s.layers;
        o["weights_bytes"] = s.weights_bytes;
        o["memory_bytes"] = s.memory_known ? json(s.memory_bytes) : json(nullptr);
        return o;
    };
    j["before"] = stats(r.before);
    j["after"] = stats(r.after);
    json us = json::object();
    us["refused"] = r.refused_unknown_shapes;
    us["inputs"] = r.shapeless_inputs;
    j["unknown_shapes"] = us;
    // invalid UTF-8 in user names is replaced, never thrown on (core/json.h)
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<std::string> report_lines(const OptimizeReport& r) {
    // names come from user files: control characters are escaped so a line stays one line (names
    // are not cut: the report names every layer in full)
    std::vector<std::string> lines;
    for (auto& p : r.passes)
        for (auto& x : p.rewrites)
            lines.push_back(escape_controls(p.name + ": " + join_names(x.layers) + ": " + x.detail));
    for (auto& s : r.skipped)
        lines.push_back(escape_controls(s.pass + ": skipped " + join_names(s.layers) + ": " + s.reason));
    if (r.refused_unknown_shapes > 0) {
        std::string l = "unknown shapes: " + std::to_string(r.refused_unknown_shapes) + " candidate" +
                        (r.refused_unknown_shapes == 1 ? "" : "s") + " refused";
        if (!r.shapeless_inputs.empty())
            l += "; give --shape for: " + join_names(r.shapeless_inputs);
        lines.push_back(escape_controls(l));
    }
    return lines;
}

}  // namespace nnfold
