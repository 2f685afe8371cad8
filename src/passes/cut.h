// Cutting a model to a range of layers (ncnnoptimize's [cutstart] [cutend] arguments).
//
// ncnnoptimize skips, when writing, the layers before cutstart and after cutend (by position in
// the .param) and leaves the blobs entering the range without a producer. nnfold keeps the same
// range (both ends included) but makes a model that loads and runs on its own: every blob the
// range reads and does not produce becomes an Input (with the shape inferred in the full model,
// when known); blobs the range produces and the rest of the model read become outputs. The cut is
// made before optimizing, so no fusion crosses its ends.
#pragma once

#include <map>
#include <string>

#include "core/shape.h"
#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

// Empty `start` / `end` mean the first / last layer. Errors name an unknown layer or an empty range.
Status cut_graph(Graph& g, const std::string& start, const std::string& end,
                 const std::map<std::string, Shape>& input_shapes, Warnings& warnings);

}  // namespace nnfold
