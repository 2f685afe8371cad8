// The weight arrays a layer's params ask for (ncnn's load_model order): a model-level fact that
// needs the layer registry, used by the .bin reader and writer, the optimizer's checks, the summary,
// random weights and the ONNX importer.
#pragma once

#include <vector>

#include "core/status.h"
#include "layers/layer.h"
#include "model/graph.h"

namespace nnfold {

// The arrays `layer` reads from a .bin, from its type and params. Unknown types are Unsupported;
// params the layer rejects give its error, both naming the layer.
Status weight_specs_for(const LayerNode& layer, std::vector<WeightSpec>& specs);

}  // namespace nnfold
