#include "model/graph.h"

#include <set>

namespace nnfold {

int Graph::find_blob(const std::string& name) const {
    for (size_t i = 0; i < blobs.size(); i++)
        if (blobs[i].name == name)
            return (int)i;
    return -1;
}

int Graph::find_layer(const std::string& name) const {
    for (size_t i = 0; i < layers.size(); i++)
        if (!layers[i].erased && layers[i].name == name)
            return (int)i;
    return -1;
}

int Graph::add_blob(const std::string& name, Shape shape) {
    blobs.push_back(BlobNode{name, shape});
    return (int)blobs.size() - 1;
}

int Graph::add_layer(LayerNode layer) {
    layers.push_back(std::move(layer));
    return (int)layers.size() - 1;
}

int Graph::insert_layer(int position, LayerNode layer) {
    layers.insert(layers.begin() + position, std::move(layer));
    return position;
}

int Graph::producer(int blob) const {
    for (size_t i = 0; i < layers.size(); i++) {
        if (layers[i].erased)
            continue;
        for (int t : layers[i].tops)
            if (t == blob)
                return (int)i;
    }
    return -1;
}

std::vector<int> Graph::consumers(int blob) const {
    std::vector<int> r;
    for (size_t i = 0; i < layers.size(); i++) {
        if (layers[i].erased)
            continue;
        for (int b : layers[i].bottoms)
            if (b == blob)
                r.push_back((int)i);
    }
    return r;
}

void Graph::replace_uses(int from, int to) {
    for (auto& l : layers) {
        if (l.erased)
            continue;
        for (int& b : l.bottoms)
            if (b == from)
                b = to;
    }
}

void Graph::compact() {
    std::vector<LayerNode> kept;
    kept.reserve(layers.size());
    for (auto& l : layers)
        if (!l.erased)
            kept.push_back(std::move(l));
    layers = std::move(kept);

    std::vector<int> remap(blobs.size(), -1);
    std::vector<char> used(blobs.size(), 0);
    for (auto& l : layers) {
        for (int b : l.bottoms)
            used[b] = 1;
        for (int t : l.tops)
            used[t] = 1;
    }
    std::vector<BlobNode> nb;
    for (size_t i = 0; i < blobs.size(); i++) {
        if (!used[i])
            continue;
        remap[i] = (int)nb.size();
        nb.push_back(std::move(blobs[i]));
    }
    blobs = std::move(nb);
    for (auto& l : layers) {
        for (int& b : l.bottoms)
            b = remap[b];
        for (int& t : l.tops)
            t = remap[t];
    }
}

std::vector<int> Graph::input_blobs() const {
    std::vector<int> r;
    for (auto& l : layers)
        if (!l.erased && l.type == "Input")
            for (int t : l.tops)
                r.push_back(t);
    return r;
}

std::vector<int> Graph::output_blobs() const {
    std::vector<char> consumed(blobs.size(), 0), produced(blobs.size(), 0);
    for (auto& l : layers) {
        if (l.erased)
            continue;
        for (int b : l.bottoms)
            consumed[b] = 1;
        for (int t : l.tops)
            produced[t] = 1;
    }
    std::vector<int> r;
    for (size_t i = 0; i < blobs.size(); i++)
        if (produced[i] && !consumed[i])
            r.push_back((int)i);
    return r;
}

int Graph::live_layer_count() const {
    int n = 0;
    for (auto& l : layers)
        if (!l.erased)
            n++;
    return n;
}

Status Graph::validate() const {
    std::vector<char> produced(blobs.size(), 0);
    std::set<std::string> names;
    for (size_t i = 0; i < layers.size(); i++) {
        const LayerNode& l = layers[i];
        if (l.erased)
            continue;
        std::string where = "layer '" + l.name + "' (" + l.type + ")";
        if (!names.insert(l.name).second)
            return invalid_model(where + ": duplicate layer name");
        for (int b : l.bottoms) {
            if (b < 0 || b >= (int)blobs.size())
                return internal_error(where + ": bottom blob index out of range");
            if (!produced[b])
                return invalid_model(where + ": blob '" + blobs[b].name + "' is consumed before it is produced");
        }
        for (int t : l.tops) {
            if (t < 0 || t >= (int)blobs.size())
                return internal_error(where + ": top blob index out of range");
            if (produced[t])
                return invalid_model(where + ": blob '" + blobs[t].name + "' is produced twice");
            produced[t] = 1;
        }
    }
    return Status::ok();
}

}  // namespace nnfold
