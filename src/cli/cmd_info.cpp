// nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/allocator.h"
#include "core/json.h"
#include "io/ncnn_io.h"
#include "runtime/analysis.h"

namespace nnfold {
namespace cli {

static const char* kInfoHelp =
    "usage: nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]\n"
    "       nnfold info MODEL.onnx [--json] [--shape NAME=d0,d1,...]\n"
    "\n"
    "Shows layers by type, inputs and outputs with inferred shapes, weight sizes and the\n"
    "estimated peak memory (live tensors + weights). With a .bin, its storage is checked too.\n";

int cmd_info(int argc, char** argv) {
    Args a;
    if (!parse_args(argc, argv, 2, {"help", "json"}, {"shape"}, a))
        return kUsage;
    if (a.has("help")) {
        fputs(kInfoHelp, stdout);
        return kOk;
    }
    if (a.positional.empty() || a.positional.size() > 2) {
        fputs(kInfoHelp, stderr);
        return kUsage;
    }
    const bool onnx = is_onnx_path(a.positional[0]);
    std::map<std::string, Shape> shapes;
    Status st = onnx ? Status::ok() : parse_shapes(a.all("shape"), shapes);
    if (!st) {
        report("info", st);
        return kUsage;
    }
    Graph g;
    IoMap io;
    Warnings warnings;
    if (onnx) {
        if (a.positional.size() > 1) {
            fputs(kInfoHelp, stderr);
            return kUsage;
        }
        CliModel m;
        st = load_cli_model(a.positional[0], "null", 0, a.all("shape"), m, warnings);
        g = std::move(m.g);
        io = std::move(m.io);
    } else {
        std::vector<uint8_t> text;
        st = read_file(a.positional[0], text);
        if (st)
            st = read_param(std::string(text.begin(), text.end()), g, warnings, a.positional[0]);
        if (st && a.positional.size() > 1 && a.positional[1] != "null") {
            std::vector<uint8_t> bin;
            st = read_file(a.positional[1], bin);
            if (st)
                st = read_bin(bin.data(), bin.size(), g, warnings, a.positional[1]);
        }
        std::vector<uint8_t> iot;
        if (st && read_file(io_json_path(a.positional[0]), iot))
            st = IoMap::from_json(std::string(iot.begin(), iot.end()), io).with_context(io_json_path(a.positional[0]));
    }
    print_warnings(warnings);
    if (!st)
        return report("info", st);
    ModelSummary s = summarize(g, shapes);
    std::vector<Shape> blob_shapes;
    if (!infer_shapes(g, shapes, blob_shapes))
        blob_shapes.assign(g.blobs.size(), Shape());
    if (a.has("json")) {
        if (io.empty()) {
            printf("%s\n", summary_json(g, s, blob_shapes).c_str());
        } else {
            // the summary plus the original (ONNX) inputs and outputs
            json j = json::parse(summary_json(g, s, blob_shapes), nullptr, false);
            j["io"] = json::parse(io.to_json(), nullptr, false);
            printf("%s\n", dump_json(j).c_str());
        }
        return kOk;
    }
    printf("%s: %d layers, %llu weight values (%s in .bin)\n", a.positional[0].c_str(), s.layers,
           (unsigned long long)s.weight_values, format_bytes(s.weights_file_bytes).c_str());
    auto dims = [](const std::vector<int64_t>& d) {
        std::string r = "[";
        for (size_t k = 0; k < d.size(); k++)
            r += (k ? "," : "") + std::to_string(d[k]);
        return r + "]";
    };
    if (!io.empty()) {
        for (auto& e : io.inputs)
            printf("  input  %-24s %s%s (ncnn blob %s %s)\n", e.name.c_str(), dims(e.shape).c_str(),
                   e.layout.empty() ? "" : (" " + e.layout).c_str(), e.blob.c_str(), e.ncnn_shape.str().c_str());
        for (auto& e : io.outputs)
            printf("  output %-24s %s (ncnn blob %s %s)\n", e.name.c_str(), dims(e.shape).c_str(), e.blob.c_str(),
                   e.ncnn_shape.str().c_str());
    } else {
        for (auto& x : s.inputs)
            printf("  input  %-24s %s\n", x.name.c_str(), x.shape.str().c_str());
        for (auto& x : s.outputs)
            printf("  output %-24s %s\n", x.name.c_str(), x.shape.str().c_str());
    }
    if (s.shapes_known)
        printf("estimated peak memory: %s\n", format_bytes(s.memory_bytes).c_str());
    else
        printf("shapes unknown: %s\n", s.shape_error.c_str());
    printf("layers by type:\n");
    for (auto& kv : s.layers_by_type)
        printf("  %-24s %d\n", kv.first.c_str(), kv.second);
    printf("layers:\n");
    for (auto& l : g.layers) {
        std::string tops;
        for (int t : l.tops)
            tops += (tops.empty() ? "" : " ") + g.blobs[t].name + blob_shapes[t].str();
        printf("  %-24s %-24s -> %s\n", l.type.c_str(), l.name.c_str(), tops.c_str());
    }
    return kOk;
}

}  // namespace cli
}  // namespace nnfold
