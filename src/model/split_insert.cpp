#include "model/split_insert.h"

#include <set>

namespace nnfold {

int insert_splits(Graph& g, const std::function<std::string(int blob, size_t k)>& top_name,
                  const std::function<void(int blob, const LayerNode& split,
                                           const std::vector<std::pair<int, int>>& readers)>& on_split) {
    std::set<std::string> names;
    for (auto& l : g.layers)
        names.insert(l.name);
    std::vector<std::vector<std::pair<int, int>>> uses(g.blobs.size());  // (layer, bottom slot)
    std::vector<int> producer(g.blobs.size(), -1);
    for (int i = 0; i < (int)g.layers.size(); i++) {
        for (int s = 0; s < (int)g.layers[i].bottoms.size(); s++)
            uses[g.layers[i].bottoms[s]].push_back({i, s});
        for (int t : g.layers[i].tops)
            producer[t] = i;
    }
    // Splits are inserted after all bottoms are redirected, each right after its producer.
    std::vector<std::vector<LayerNode>> splits_after(g.layers.size());
    int seq = 0, count = 0;
    const size_t original_blobs = g.blobs.size();
    for (int b = 0; b < (int)original_blobs; b++) {
        if (uses[b].size() < 2)
            continue;
        LayerNode split;
        split.type = "Split";
        do {
            split.name = "splitncnn_" + std::to_string(seq++);
        } while (names.count(split.name));
        names.insert(split.name);
        split.bottoms.push_back(b);
        for (size_t k = 0; k < uses[b].size(); k++) {
            int nbi = g.add_blob(top_name(b, k), g.blobs[b].shape);
            split.tops.push_back(nbi);
            g.layers[uses[b][k].first].bottoms[uses[b][k].second] = nbi;
        }
        on_split(b, split, uses[b]);
        count++;
        if (producer[b] >= 0)
            splits_after[producer[b]].insert(splits_after[producer[b]].begin(), std::move(split));
    }
    if (count > 0) {
        std::vector<LayerNode> layers;
        layers.reserve(g.layers.size() + (size_t)count);
        for (size_t i = 0; i < g.layers.size(); i++) {
            layers.push_back(std::move(g.layers[i]));
            for (auto& sp : splits_after[i])
                layers.push_back(std::move(sp));
        }
        g.layers = std::move(layers);
    }
    return count;
}

}  // namespace nnfold
