#include "analysis/weight_specs.h"

#include "core/strings.h"

namespace nnfold {

Status weight_specs_for(const LayerNode& layer, std::vector<WeightSpec>& specs) {
    std::unique_ptr<Layer> impl = create_layer(layer.type, false);
    if (!impl)
        return unsupported(layer_desc(layer.name, layer.type) + ": unknown layer type");
    impl->name = layer.name;
    Status st = impl->load_param(layer.params);
    if (!st)
        return st.with_context(layer_desc(layer.name, layer.type));
    st = impl->weight_specs(specs);
    if (!st)
        return st.with_context(layer_desc(layer.name, layer.type));
    return Status::ok();
}

}  // namespace nnfold
