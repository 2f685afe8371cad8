#include "cli/reports.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/allocator.h"
#include "core/json.h"
#include "core/strings.h"
#include "analysis/analysis.h"

namespace nnfold {
namespace cli {

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

std::string info_text(const ModelHandle& model, const std::string& label) {
    const Graph& g = model.graph();
    const IoMap& io_map = model.io_map();
    ModelSummary s = summarize(g, model.input_shapes());
    std::vector<Shape> blob_shapes;
    if (!infer_shapes(g, model.input_shapes(), blob_shapes))
        blob_shapes.assign(g.blobs.size(), Shape());
    std::string out;
    appendf(out, "%s: %d layers, %llu weight values (%s in .bin)\n", label.c_str(), s.layers,
            (unsigned long long)s.weight_values, format_bytes(s.weights_file_bytes).c_str());
    if (!io_map.empty()) {
        // original names and shapes, with the ncnn blob each one maps to
        for (auto& e : io_map.inputs)
            appendf(out, "  input  %-24s %s%s (ncnn blob %s %s)\n", e.name.c_str(), dims_str(e.shape).c_str(),
                    e.layout.empty() ? "" : (" " + e.layout).c_str(), e.blob.c_str(), e.ncnn_shape.str().c_str());
        for (auto& e : io_map.outputs)
            appendf(out, "  output %-24s %s (ncnn blob %s %s)\n", e.name.c_str(), dims_str(e.shape).c_str(),
                    e.blob.c_str(), e.ncnn_shape.str().c_str());
    } else {
        for (auto& io : s.inputs)
            appendf(out, "  input  %-24s %s\n", io.name.c_str(), io.shape.str().c_str());
        for (auto& io : s.outputs)
            appendf(out, "  output %-24s %s\n", io.name.c_str(), io.shape.str().c_str());
    }
    if (s.shapes_known)
        appendf(out, "estimated peak memory: %s\n", format_bytes(s.memory_bytes).c_str());
    else
        appendf(out, "shapes unknown: %s\n", s.shape_error.c_str());
    appendf(out, "layers by type:\n");
    for (auto& kv : s.layers_by_type)
        appendf(out, "  %-24s %d\n", kv.first.c_str(), kv.second);
    appendf(out, "layers:\n");
    for (auto& l : g.layers) {
        if (l.erased)
            continue;
        std::string tops;
        for (int t : l.tops)
            tops += (tops.empty() ? "" : " ") + g.blobs[t].name + blob_shapes[t].str();
        appendf(out, "  %-24s %-24s -> %s\n", l.type.c_str(), l.name.c_str(), tops.c_str());
    }
    return out;
}

std::string run_summary_json(const std::vector<std::string>& order, const std::map<std::string, Mat>& outputs,
                             const std::map<std::string, std::string>& files, const RunStats& stats, bool simd,
                             const std::map<std::string, std::vector<int64_t>>& dims, int threads) {
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
        auto d = dims.find(name);
        o["shape"] = d != dims.end() ? json(d->second) : shape_to_json(m.shape());
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
    summary["threads"] = threads;
    return dump_json(summary, 2) + "\n";
}

}  // namespace cli
}  // namespace nnfold
