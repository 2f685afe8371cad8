#include "passes/cut.h"

#include <set>

#include "analysis/analysis.h"
#include "core/strings.h"

namespace nnfold {

Status cut_graph(Graph& g, const std::string& start, const std::string& end,
                 const std::map<std::string, Shape>& input_shapes, Warnings& warnings) {
    g.compact();
    NF_RETURN_IF_ERROR(g.validate());
    if (g.layers.empty())
        return invalid_argument("the model has no layers to cut");
    int first = 0, last = (int)g.layers.size() - 1;
    if (!start.empty()) {
        first = g.find_layer(start);
        if (first < 0)
            return invalid_argument("cutstart: the model has no layer named " + quote(start));
    }
    if (!end.empty()) {
        last = g.find_layer(end);
        if (last < 0)
            return invalid_argument("cutend: the model has no layer named " + quote(end));
    }
    if (first > last)
        return invalid_argument("cutstart " + quote(g.layers[first].name) + " comes after cutend " +
                                quote(g.layers[last].name) + " in the model");
    if (first == 0 && last == (int)g.layers.size() - 1)
        return Status::ok();

    std::vector<Shape> shapes;
    Status st = infer_shapes(g, input_shapes, shapes);
    if (!st) {
        warnings.add("cut: shapes could not be inferred, new inputs declare none: " + st.message());
        shapes.assign(g.blobs.size(), Shape());
    }

    std::vector<char> keep(g.layers.size(), 0), produced(g.blobs.size(), 0);
    for (int i = first; i <= last; i++) {
        keep[i] = 1;
        for (int t : g.layers[i].tops)
            produced[t] = 1;
    }
    std::set<std::string> names;
    for (int i = first; i <= last; i++)
        names.insert(g.layers[i].name);
    // blobs the range reads but does not produce: keep their Input layer, or make one
    std::vector<LayerNode> new_inputs;
    std::set<int> entering;
    for (int i = first; i <= last; i++)
        for (int b : g.layers[i].bottoms) {
            if (produced[b] || entering.count(b))
                continue;
            entering.insert(b);
            int p = g.producer(b);
            if (p >= 0 && g.layers[p].type == "Input" && g.layers[p].tops.size() == 1) {
                keep[p] = 1;
                names.insert(g.layers[p].name);
                continue;
            }
            LayerNode in;
            in.type = "Input";
            in.name = g.blobs[b].name;
            for (int k = 1; names.count(in.name); k++)
                in.name = g.blobs[b].name + "_input" + std::to_string(k);
            names.insert(in.name);
            in.tops = {b};
            const Shape& s = shapes[b];
            if (s.known()) {
                in.params.set_int(0, s.w);
                if (s.dims >= 2)
                    in.params.set_int(1, s.h);
                if (s.dims == 4)
                    in.params.set_int(11, s.d);
                if (s.dims >= 3)
                    in.params.set_int(2, s.c);
            }
            new_inputs.push_back(std::move(in));
        }
    for (size_t i = 0; i < g.layers.size(); i++)
        if (!keep[i])
            g.erase_layer((int)i);
    for (size_t k = 0; k < new_inputs.size(); k++)
        g.insert_layer((int)k, std::move(new_inputs[k]));
    g.compact();
    return g.validate();
}

}  // namespace nnfold
