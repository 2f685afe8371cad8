#include "model/graph.h"

#include <algorithm>
#include <iterator>
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
    if (index_on_)
        uses_.resize(blobs.size());
    return (int)blobs.size() - 1;
}

int Graph::add_layer(LayerNode layer) {
    layers.push_back(std::move(layer));
    int i = (int)layers.size() - 1;
    if (indexed(i))
        attach(i);
    return i;
}

int Graph::insert_layer(int position, LayerNode layer) {
    layers.insert(layers.begin() + position, std::move(layer));
    // every later layer's index moved: rare (cut, importers), so the index is rebuilt
    if (index_on_)
        rebuild_uses();
    return position;
}

namespace {

// `v` sorted; one entry per use.
void add_use(std::vector<int>& v, int layer) { v.insert(std::upper_bound(v.begin(), v.end(), layer), layer); }
void remove_use(std::vector<int>& v, int layer) {
    auto it = std::lower_bound(v.begin(), v.end(), layer);
    if (it != v.end() && *it == layer)
        v.erase(it);
}

}  // namespace

void Graph::update_uses(int layer, void (*op)(std::vector<int>&, int)) {
    const LayerNode& l = layers[layer];
    for (int b : l.bottoms)
        if (b >= 0 && b < (int)uses_.size())
            op(uses_[b].consumers, layer);
    for (int t : l.tops)
        if (t >= 0 && t < (int)uses_.size())
            op(uses_[t].producers, layer);
}

void Graph::attach(int layer) { update_uses(layer, add_use); }
void Graph::detach(int layer) { update_uses(layer, remove_use); }

std::vector<Graph::Uses> Graph::scan_uses() const {
    std::vector<Uses> u(blobs.size());
    // layers in order: push_back keeps every list sorted
    for (size_t i = 0; i < layers.size(); i++) {
        const LayerNode& l = layers[i];
        if (l.erased)
            continue;
        for (int b : l.bottoms)
            if (b >= 0 && b < (int)u.size())
                u[b].consumers.push_back((int)i);
        for (int t : l.tops)
            if (t >= 0 && t < (int)u.size())
                u[t].producers.push_back((int)i);
    }
    return u;
}

void Graph::rebuild_uses() { uses_ = scan_uses(); }

void Graph::set_use_index(bool on) {
    index_on_ = on;
    if (on)
        rebuild_uses();
    else
        uses_ = std::vector<Uses>();
}

Status Graph::check_use_index() const {
    if (!index_on_)
        return Status::ok();
    if (uses_.size() != blobs.size())
        return internal_error("use index: " + std::to_string(uses_.size()) + " entries for " +
                              std::to_string(blobs.size()) + " blobs");
    std::vector<Uses> fresh = scan_uses();
    for (size_t b = 0; b < blobs.size(); b++) {
        const char* what = nullptr;
        if (uses_[b].producers != fresh[b].producers)
            what = "producers";
        else if (uses_[b].consumers != fresh[b].consumers)
            what = "consumers";
        if (what)
            return internal_error("use index: the " + std::string(what) + " of blob '" + blobs[b].name +
                                  "' differ from a rescan (a layer was edited around the Graph's edit functions)");
    }
    return Status::ok();
}

void Graph::erase_layer(int index) {
    if (indexed(index))
        detach(index);
    layers[index].erased = true;
}

void Graph::retarget(int layer, int& slot, std::vector<int> Uses::*list, int blob) {
    if (indexed(layer)) {
        if (slot >= 0 && slot < (int)uses_.size())
            remove_use(uses_[slot].*list, layer);
        if (blob >= 0 && blob < (int)uses_.size())
            add_use(uses_[blob].*list, layer);
    }
    slot = blob;
}

void Graph::set_bottom(int layer, size_t k, int blob) {
    retarget(layer, layers[layer].bottoms[k], &Uses::consumers, blob);
}

void Graph::set_top(int layer, size_t k, int blob) { retarget(layer, layers[layer].tops[k], &Uses::producers, blob); }

void Graph::set_bottoms(int layer, std::vector<int> bottoms) {
    bool idx = indexed(layer);
    if (idx)
        detach(layer);
    layers[layer].bottoms = std::move(bottoms);
    if (idx)
        attach(layer);
}

void Graph::set_tops(int layer, std::vector<int> tops) {
    bool idx = indexed(layer);
    if (idx)
        detach(layer);
    layers[layer].tops = std::move(tops);
    if (idx)
        attach(layer);
}

void Graph::erase_bottom(int layer, size_t k) {
    std::vector<int> v = layers[layer].bottoms;
    v.erase(v.begin() + k);
    set_bottoms(layer, std::move(v));
}

void Graph::erase_top(int layer, size_t k) {
    std::vector<int> v = layers[layer].tops;
    v.erase(v.begin() + k);
    set_tops(layer, std::move(v));
}

int Graph::producer(int blob) const {
    if (index_on_) {
        if (blob < 0 || blob >= (int)uses_.size() || uses_[blob].producers.empty())
            return -1;
        return uses_[blob].producers.front();
    }
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
    if (index_on_) {
        if (blob < 0 || blob >= (int)uses_.size())
            return {};
        return uses_[blob].consumers;
    }
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

int Graph::consumer_count(int blob) const {
    if (index_on_)
        return blob < 0 || blob >= (int)uses_.size() ? 0 : (int)uses_[blob].consumers.size();
    return (int)consumers(blob).size();
}

void Graph::replace_uses(int from, int to) {
    if (index_on_) {
        if (from < 0 || from >= (int)uses_.size() || from == to)
            return;
        std::vector<int> readers = std::move(uses_[from].consumers);
        uses_[from].consumers.clear();
        for (size_t i = 0; i < readers.size(); i++) {
            // a layer reading `from` twice is listed twice: rewrite it once
            if (i > 0 && readers[i] == readers[i - 1])
                continue;
            for (int& b : layers[readers[i]].bottoms)
                if (b == from)
                    b = to;
        }
        if (to >= 0 && to < (int)uses_.size()) {
            std::vector<int>& dst = uses_[to].consumers;
            std::vector<int> merged;
            merged.reserve(dst.size() + readers.size());
            std::merge(dst.begin(), dst.end(), readers.begin(), readers.end(), std::back_inserter(merged));
            dst = std::move(merged);
        }
        return;
    }
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
    if (index_on_)
        rebuild_uses();
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
