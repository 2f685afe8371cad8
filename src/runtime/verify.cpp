#include "runtime/verify.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "core/json.h"
#include "core/strings.h"
#include "runtime/net.h"
#include "runtime/random.h"

namespace nnfold {

namespace {

bool is_detection_head(const std::string& type) {
    return type == "DetectionOutput" || type == "YoloDetectionOutput" || type == "Yolov3DetectionOutput";
}

// The index of the largest value of a class vector (one extent above 1), else -1.
int top1_index(const Mat& m) {
    if (m.empty() || m.int8)
        return -1;
    Shape s = m.shape();
    int big = 0;
    for (int e : s.to_list())
        big += e > 1;
    if (big != 1)
        return -1;
    size_t n = (size_t)s.total();
    const float* p = m.data;  // one extent above 1: the values are contiguous whatever the packing
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (p[i] > p[best])
            best = i;
    return (int)best;
}

BlobDiff diff(const std::string& name, const Mat& a, const Mat& b) {
    BlobDiff d;
    d.name = name;
    d.shape_a = a.shape();
    d.shape_b = b.shape();
    if (a.empty() != b.empty() || d.shape_a != d.shape_b) {
        d.err = INFINITY;
        d.note = "shapes differ";
        return d;
    }
    d.err = a.empty() ? 0.0 : relative_error(a.data, b.data, a.total_floats());
    if (std::isinf(d.err))
        d.note = "NaN in one model only";
    d.top1_a = top1_index(a);
    d.top1_b = top1_index(b);
    return d;
}

Status load_net(const Graph& g, const VerifyOptions& opt, const char* which, Net& net) {
    NetOptions no;
    no.use_simd = opt.use_simd;
    Status st = net.load(g, no);
    if (!st)
        return st.with_context(std::string("model ") + which);
    net.set_cancel_flag(opt.cancel);
    return Status::ok();
}

Status run(Net& net, const std::map<std::string, Mat>& inputs, const std::vector<std::string>& wanted, const char* which,
           std::map<std::string, Mat>& out) {
    Status st = net.run(inputs, wanted, out);
    if (!st)
        return st.with_context(std::string("running model ") + which);
    return Status::ok();
}

}  // namespace

double relative_error(const float* ref, const float* got, size_t n) {
    double maxref = 0, maxdiff = 0;
    for (size_t i = 0; i < n; i++) {
        double a = ref[i], b = got[i];
        if (std::isnan(a) != std::isnan(b))
            return INFINITY;
        if (std::isnan(a))
            continue;
        if (std::isinf(a) || std::isinf(b)) {
            if (a != b)
                return INFINITY;
            continue;
        }
        maxref = std::max(maxref, std::fabs(a));
        maxdiff = std::max(maxdiff, std::fabs(a - b));
    }
    return maxdiff / std::max(maxref, 1e-6);
}

Status verify_models(const Graph& ga, const Graph& gb, const VerifyOptions& opt, VerifyResult& r) {
    r = VerifyResult();
    r.tolerance = opt.tolerance;
    r.seed = opt.seed;
    r.accuracy = opt.accuracy;
    Net a, b;
    NF_RETURN_IF_ERROR(load_net(ga, opt, "A", a));
    NF_RETURN_IF_ERROR(load_net(gb, opt, "B", b));
    const Graph& A = a.graph();
    const Graph& B = b.graph();

    // the same inputs for both, drawn in A's input order
    std::vector<std::string> in_a = a.input_names(), in_b = b.input_names();
    if (std::set<std::string>(in_a.begin(), in_a.end()) != std::set<std::string>(in_b.begin(), in_b.end())) {
        std::string la, lb;
        for (auto& n : in_a)
            la += (la.empty() ? "" : ", ") + quote(n);
        for (auto& n : in_b)
            lb += (lb.empty() ? "" : ", ") + quote(n);
        return invalid_argument("the models have different inputs (A: " + la + "; B: " + lb + ")");
    }
    for (auto& kv : opt.input_shapes)
        if (std::find(in_a.begin(), in_a.end(), kv.first) == in_a.end())
            return invalid_argument("a shape was given for " + quote(kv.first) + ", which is not an input");
    std::map<std::string, Mat> inputs;
    std::map<std::string, Shape> in_shapes;
    Rng rng(opt.seed);
    for (auto& name : in_a) {
        auto it = opt.input_shapes.find(name);
        Shape sa = it != opt.input_shapes.end() ? it->second : a.declared_input_shape(name);
        Shape sb = it != opt.input_shapes.end() ? it->second : b.declared_input_shape(name);
        if (!sa.known() && sb.known())
            sa = sb;
        if (!sa.known())
            return invalid_argument("input " + quote(name) + " declares no shape; give one with --shape " + name +
                                    "=c,h,w");
        if (sb.known() && sb != sa)
            return invalid_argument("input " + quote(name) + " is " + sa.str() + " in model A and " + sb.str() +
                                    " in model B");
        Mat m;
        NF_RETURN_IF_ERROR(m.create(sa));
        fill_uniform(m, rng);
        inputs[name] = m;
        in_shapes[name] = sa;
    }

    // outputs by name; detection outputs judged by their heads' inputs: the head keeps its name
    // and type in B (passes never fuse it), its k-th input is compared with A's k-th input, whatever
    // B calls it (a pass may have removed a Flatten before it)
    std::vector<std::string> out_a = a.output_names();
    std::vector<std::string> wanted_b;
    std::vector<std::pair<std::string, std::string>> heads_in;  // (A name, B name or "")
    std::set<std::string> judged_by_head;
    for (auto& n : out_a) {
        int p = A.producer(A.find_blob(n));
        if (p >= 0 && is_detection_head(A.layers[p].type)) {
            judged_by_head.insert(n);
            int q = B.find_layer(A.layers[p].name);
            bool same = q >= 0 && B.layers[q].type == A.layers[p].type &&
                        B.layers[q].bottoms.size() == A.layers[p].bottoms.size();
            for (size_t k = 0; k < A.layers[p].bottoms.size(); k++) {
                std::string an = A.blobs[A.layers[p].bottoms[k]].name;
                std::string bn = same ? B.blobs[B.layers[q].bottoms[k]].name : std::string();
                bool dup = false;
                for (auto& h : heads_in)
                    dup = dup || h.first == an;
                if (!dup)
                    heads_in.push_back({an, bn});
            }
        }
        if (B.find_blob(n) >= 0)
            wanted_b.push_back(n);
    }
    std::vector<std::string> wanted_a = out_a;
    for (auto& h : heads_in) {
        wanted_a.push_back(h.first);
        if (!h.second.empty())
            wanted_b.push_back(h.second);
    }
    // progress: two runs for the outputs, then two per divergence batch (counted below)
    int done = 0, total = 2;
    auto step = [&]() -> Status {
        done++;
        if (opt.progress && !opt.progress(done, std::max(total, done)))
            return Status(ErrorCode::Cancelled, "verify cancelled");
        return Status::ok();
    };
    std::map<std::string, Mat> ra, rb;
    NF_RETURN_IF_ERROR(run(a, inputs, wanted_a, "A", ra));
    NF_RETURN_IF_ERROR(step());
    NF_RETURN_IF_ERROR(run(b, inputs, wanted_b, "B", rb));
    NF_RETURN_IF_ERROR(step());

    bool missing = false;
    for (auto& n : out_a) {
        BlobDiff d;
        if (!rb.count(n)) {
            d.name = n;
            d.shape_a = ra[n].shape();
            d.err = INFINITY;
            d.note = "model B has no blob of this name";
            missing = true;
        } else {
            d = diff(n, ra[n], rb[n]);
        }
        if (judged_by_head.count(n)) {
            d.judged = false;
            d.note = "detection output (judged by its inputs)";
        }
        r.outputs.push_back(d);
    }
    for (auto& n : b.output_names()) {
        if (std::find(out_a.begin(), out_a.end(), n) != out_a.end())
            continue;
        BlobDiff d;
        d.name = n;
        d.err = INFINITY;
        d.note = "an output of model B only";
        missing = true;
        r.outputs.push_back(d);
    }
    for (auto& h : heads_in) {
        BlobDiff d;
        if (h.second.empty() || !rb.count(h.second)) {
            d.name = h.first;
            d.err = INFINITY;
            d.note = "model B has no detection head of the same name reading it";
            missing = true;
        } else {
            d = diff(h.first, ra[h.first], rb[h.second]);
            if (h.second != h.first)
                d.note += (d.note.empty() ? "" : "; ") + std::string("called ") + quote(h.second) + " in model B";
        }
        r.head_inputs.push_back(d);
    }
    r.max_err = 0;
    for (auto* list : {&r.outputs, &r.head_inputs})
        for (auto& d : *list)
            if (d.judged)
                r.max_err = std::max(r.max_err, d.err);
    r.passed = !missing && (opt.accuracy || r.max_err <= opt.tolerance);
    ra.clear();
    rb.clear();

    if (!opt.find_divergence || opt.accuracy)
        return Status::ok();
    // shared blobs in A's execution order, in runs that fit the memory budget
    std::vector<Shape> shapes;
    Status st = infer_shapes(A, in_shapes, shapes);
    if (!st)
        return st.with_context("model A");
    std::vector<std::string> shared;
    std::vector<uint64_t> bytes;
    for (auto& l : A.layers) {
        // data-dependent detection results differ on near-ties; their inputs are compared
        if (l.type == "Input" || is_detection_head(l.type))
            continue;
        for (int t : l.tops) {
            if (shapes[t].dynamic)
                continue;
            if (B.find_blob(A.blobs[t].name) < 0)
                continue;
            int pb = B.producer(B.find_blob(A.blobs[t].name));
            if (pb < 0)
                continue;
            shared.push_back(A.blobs[t].name);
            bytes.push_back(shapes[t].known() ? shapes[t].total() * 4 : 0);
        }
    }
    {
        // number of runs the budget allows (an upper bound: the search stops at a divergence)
        uint64_t used = 0;
        int batches = shared.empty() ? 0 : 1;
        for (size_t k = 0, in_batch = 0; k < shared.size(); k++, in_batch++) {
            if (in_batch > 0 && used + bytes[k] > opt.memory_budget) {
                batches++;
                used = 0;
                in_batch = 0;
            }
            used += bytes[k];
        }
        total = 2 + 2 * batches;
    }
    size_t pos = 0;
    while (pos < shared.size() && !r.diverged) {
        std::vector<std::string> batch;
        uint64_t used = 0;
        while (pos < shared.size() && (batch.empty() || used + bytes[pos] <= opt.memory_budget)) {
            batch.push_back(shared[pos]);
            used += bytes[pos];
            pos++;
        }
        NF_RETURN_IF_ERROR(run(a, inputs, batch, "A", ra));
        NF_RETURN_IF_ERROR(step());
        NF_RETURN_IF_ERROR(run(b, inputs, batch, "B", rb));
        NF_RETURN_IF_ERROR(step());
        for (auto& n : batch) {
            BlobDiff d = diff(n, ra[n], rb[n]);
            r.blobs_compared++;
            if (d.err > opt.tolerance) {
                r.diverged = true;
                r.diverge_blob = n;
                r.diverge_err = d.err;
                int la = A.producer(A.find_blob(n)), lb = B.producer(B.find_blob(n));
                r.diverge_layer = A.layers[la].name;
                r.diverge_type = A.layers[la].type;
                r.diverge_layer_b = lb >= 0 ? B.layers[lb].name : "";
                break;
            }
        }
        ra.clear();
        rb.clear();
    }
    return Status::ok();
}

std::string verify_json(const VerifyResult& r) {
    using oj = nlohmann::ordered_json;
    auto num = [](double v) { return std::isfinite(v) ? oj(v) : oj(nullptr); };
    auto blob = [&](const BlobDiff& d) {
        oj o = oj::object();
        o["name"] = d.name;
        o["shape_a"] = d.shape_a.known() ? oj(d.shape_a.to_list()) : oj(nullptr);
        o["shape_b"] = d.shape_b.known() ? oj(d.shape_b.to_list()) : oj(nullptr);
        o["err"] = num(d.err);
        o["judged"] = d.judged;
        if (!d.note.empty())
            o["note"] = d.note;
        if (d.top1_a >= 0) {
            o["top1_a"] = d.top1_a;
            o["top1_b"] = d.top1_b;
        }
        return o;
    };
    oj j = oj::object();
    j["passed"] = r.passed;
    j["tolerance"] = r.tolerance;
    j["max_err"] = num(r.max_err);
    j["seed"] = r.seed;
    j["outputs"] = oj::array();
    for (auto& d : r.outputs)
        j["outputs"].push_back(blob(d));
    j["head_inputs"] = oj::array();
    for (auto& d : r.head_inputs)
        j["head_inputs"].push_back(blob(d));
    j["blobs_compared"] = r.blobs_compared;
    if (r.diverged) {
        oj d = oj::object();
        d["blob"] = r.diverge_blob;
        d["layer"] = r.diverge_layer;
        d["type"] = r.diverge_type;
        d["layer_b"] = r.diverge_layer_b;
        d["err"] = num(r.diverge_err);
        j["first_divergence"] = d;
    } else {
        j["first_divergence"] = nullptr;
    }
    if (r.accuracy)
        j["accuracy"] = true;
    return j.dump(-1, ' ', false, oj::error_handler_t::replace);
}

}  // namespace nnfold
