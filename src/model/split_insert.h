// Split insertion for blobs read more than once (ncnn's converters write a Split there).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/graph.h"

namespace nnfold {

// Inserts a Split right after the producer of every blob that more than one input slot reads, and
// points each reader at its own Split output (ncnn's converters do this: ncnn's light mode frees a
// blob after its first consumer). The Splits are named "splitncnn_<n>", skipping layer names in use;
// `top_name(blob, k)` names the k-th output of the blob's Split; `on_split(blob, split, readers)` sees
// each Split with its readers as (layer, bottom slot) before the layers are renumbered. Several Splits
// after one producer come in reverse blob order (as inserting them one at a time right after the
// producer gives). A blob without a producer gets no Split (validate() then reports its readers).
// One pass over the layers collects every blob's readers and producer: a scan per blob made a long
// chain of layers quadratic (50,000 layers took minutes). Returns the number of Splits.
int insert_splits(Graph& g, const std::function<std::string(int blob, size_t k)>& top_name,
                  const std::function<void(int blob, const LayerNode& split,
                                           const std::vector<std::pair<int, int>>& readers)>& on_split);

}  // namespace nnfold
