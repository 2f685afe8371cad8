#include "analysis/analysis.h"

#include "analysis/weight_specs.h"
#include "core/json.h"
#include "core/strings.h"
#include "layers/layer.h"

namespace nnfold {

Status infer_shapes(const Graph& g, const std::map<std::string, Shape>& input_shapes, std::vector<Shape>& shapes) {
    shapes.assign(g.blobs.size(), Shape());
    for (auto& kv : input_shapes) {
        int b = g.find_blob(kv.first);
        if (b < 0)
            return invalid_argument("no blob named " + quote(kv.first) + " to give a shape to");
        if (!kv.second.valid())
            return invalid_argument("shape " + kv.second.str() + " for " + quote(kv.first) + " is not valid");
    }
    for (auto& layer : g.layers) {
        if (layer.erased)
            continue;
        std::string who = layer_desc(layer.name, layer.type);
        if (layer.type == "Input") {
            for (int t : layer.tops) {
                auto it = input_shapes.find(g.blobs[t].name);
                shapes[t] = it != input_shapes.end() ? it->second : declared_input_shape(layer.params);
            }
            continue;
        }
        std::vector<Shape> in;
        bool known = true;
        for (int b : layer.bottoms) {
            in.push_back(shapes[b]);
            if (!shapes[b].known())
                known = false;
        }
        if (!known)
            continue;
        std::unique_ptr<Layer> impl = create_layer(layer.type, false);
        if (!impl)
            return unsupported(who + ": unknown layer type");
        impl->name = layer.name;
        Status st = impl->load_param(layer.params);
        if (!st)
            return st.with_context(who);
        std::vector<Shape> out(layer.tops.size());
        st = impl->infer_shape(in, out);
        if (!st) {
            std::string ins;
            for (size_t i = 0; i < in.size(); i++)
                ins += (i ? ", " : "") + in[i].str();
            return st.with_context(who + " with input" + (in.size() > 1 ? "s " : " ") + ins);
        }
        if (out.size() != layer.tops.size())
            return internal_error(who + ": shape inference gave " + std::to_string(out.size()) + " shapes for " +
                                  std::to_string(layer.tops.size()) + " tops");
        for (size_t i = 0; i < out.size(); i++) {
            if (out[i].dynamic) {
                shapes[layer.tops[i]] = out[i];
                continue;
            }
            if (!out[i].valid())
                return shape_mismatch(who + ": output shape " + out[i].str() + " is empty or too large");
            shapes[layer.tops[i]] = out[i];
        }
    }
    return Status::ok();
}

Status annotate_shapes(Graph& g, const std::map<std::string, Shape>& input_shapes) {
    std::vector<Shape> shapes;
    Status st = infer_shapes(g, input_shapes, shapes);
    for (size_t i = 0; i < g.blobs.size(); i++)
        g.blobs[i].shape = (st && shapes[i].known()) ? shapes[i] : Shape();
    return st;
}

uint64_t estimate_peak_memory(const Graph& g, const std::vector<Shape>& shapes) {
    std::vector<int> last_use(g.blobs.size(), -1);
    for (int i = 0; i < (int)g.layers.size(); i++) {
        if (g.layers[i].erased)
            continue;
        for (int b : g.layers[i].bottoms)
            last_use[b] = i;
    }
    uint64_t live = 0, peak = 0;
    for (int i = 0; i < (int)g.layers.size(); i++) {
        const LayerNode& l = g.layers[i];
        if (l.erased)
            continue;
        for (int t : l.tops) {
            if (shapes[t].dynamic)
                continue;  // data-dependent (detections): small, not counted
            if (!shapes[t].known())
                return 0;
            live += shapes[t].total() * 4;
        }
        if (live > peak)
            peak = live;
        for (int b : l.bottoms)
            if (last_use[b] == i && shapes[b].known())
                live -= shapes[b].total() * 4;
        // outputs (never consumed) stay live to the end
    }
    return peak;
}

namespace {

template <class Bytes>
uint64_t sum_weights(const Graph& g, Bytes bytes) {
    uint64_t n = 0;
    for (auto& l : g.layers)
        if (!l.erased)
            for (auto& w : l.weights)
                n += bytes(w);
    return n;
}

}  // namespace

uint64_t weights_bytes(const Graph& g) {
    return sum_weights(g, [](const WeightArray& w) { return (uint64_t)w.count() * 4; });
}

uint64_t weights_file_bytes(const Graph& g) {
    return sum_weights(g, [](const WeightArray& w) { return w.file_bytes(); });
}

ModelSummary summarize(const Graph& g, const std::map<std::string, Shape>& input_shapes) {
    ModelSummary s;
    for (auto& l : g.layers) {
        if (l.erased)
            continue;
        s.layers++;
        s.layers_by_type[l.type]++;
        if (!l.weights.empty()) {
            for (auto& w : l.weights) {
                s.weight_values += w.count();
                s.weights_file_bytes += w.file_bytes();
            }
        } else {
            // structure only: sizes as fp32 from the layer's weight specs
            std::vector<WeightSpec> specs;
            if (weight_specs_for(l, specs))
                for (auto& sp : specs) {
                    s.weight_values += sp.count;
                    s.weights_file_bytes += sp.count * 4 + (sp.tagged ? 4 : 0);
                }
        }
    }
    std::vector<Shape> shapes;
    Status st = infer_shapes(g, input_shapes, shapes);
    if (st) {
        s.shapes_known = true;
        for (int b : g.output_blobs())
            if (!shapes[b].known() && !shapes[b].dynamic)
                s.shapes_known = false;
        if (!s.shapes_known)
            s.shape_error = "an input has no declared shape; give one with --shape NAME=c,h,w";
    } else {
        s.shape_error = st.message();
        shapes.assign(g.blobs.size(), Shape());
    }
    if (s.shapes_known)
        s.memory_bytes = estimate_peak_memory(g, shapes) + s.weight_values * 4;
    for (int b : g.input_blobs())
        s.inputs.push_back({g.blobs[b].name, shapes[b]});
    for (int b : g.output_blobs())
        s.outputs.push_back({g.blobs[b].name, shapes[b]});
    return s;
}

std::string summary_json(const Graph& g, const ModelSummary& s, const std::vector<Shape>& shapes) {
    json j;
    j["layers"] = s.layers;
    j["layers_by_type"] = s.layers_by_type;
    j["weight_values"] = s.weight_values;
    j["weights_file_bytes"] = s.weights_file_bytes;
    j["memory_bytes"] = s.memory_bytes;
    j["shapes_known"] = s.shapes_known;
    if (!s.shape_error.empty())
        j["shape_error"] = s.shape_error;
    for (const char* key : {"inputs", "outputs"}) {
        json arr = json::array();
        for (auto& io : (std::string(key) == "inputs" ? s.inputs : s.outputs))
            arr.push_back({{"name", io.name}, {"shape", shape_to_json(io.shape)}});
        j[key] = arr;
    }
    json layers = json::array();
    for (auto& l : g.layers) {
        if (l.erased)
            continue;
        uint64_t wb = 0;
        for (auto& w : l.weights)
            wb += w.file_bytes();
        json jl = {{"type", l.type}, {"name", l.name}, {"weights_bytes", wb}};
        jl["bottoms"] = json::array();
        for (int b : l.bottoms)
            jl["bottoms"].push_back(g.blobs[b].name);
        jl["tops"] = json::array();
        jl["top_shapes"] = json::array();
        for (int t : l.tops) {
            jl["tops"].push_back(g.blobs[t].name);
            jl["top_shapes"].push_back(shape_to_json(t < (int)shapes.size() ? shapes[t] : Shape()));
        }
        layers.push_back(jl);
    }
    j["layer_list"] = layers;
    return dump_json(j);
}

}  // namespace nnfold
