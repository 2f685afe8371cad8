// The layer registry: type name -> factories and parameter table, from layer_list.h.
#include <cstring>

#include "layers/layer.h"

namespace nnfold {

#define NF_LAYER(T)      \
    Layer* nf_create_##T(); \
    const std::vector<ParamSpec>& nf_params_##T();
#define NF_EXT_LAYER(T, NAME) NF_LAYER(T)
#include "layers/layer_list.h"
#undef NF_LAYER
#undef NF_EXT_LAYER

#define NF_OPTIMIZED_LAYER(T) Layer* nf_create_optimized_##T();
#include "layers/wasm/optimized_layer_list.h"
#undef NF_OPTIMIZED_LAYER

bool build_has_simd() {
#if NNFOLD_SIMD
    return true;
#else
    return false;
#endif
}

const std::vector<LayerTypeInfo>& layer_types() {
    static const std::vector<LayerTypeInfo> types = [] {
        std::vector<LayerTypeInfo> t;
#define NF_LAYER(T) t.push_back(LayerTypeInfo{#T, nf_create_##T, nullptr, nf_params_##T, false});
#define NF_EXT_LAYER(T, NAME) t.push_back(LayerTypeInfo{NAME, nf_create_##T, nullptr, nf_params_##T, true});
#include "layers/layer_list.h"
#undef NF_LAYER
#undef NF_EXT_LAYER
#define NF_OPTIMIZED_LAYER(T)                \
    for (auto& info : t)                     \
        if (std::strcmp(info.type, #T) == 0) \
            info.create_optimized = nf_create_optimized_##T;
#include "layers/wasm/optimized_layer_list.h"
#undef NF_OPTIMIZED_LAYER
        return t;
    }();
    return types;
}

const LayerTypeInfo* find_layer_type(const std::string& type) {
    for (auto& info : layer_types())
        if (type == info.type)
            return &info;
    return nullptr;
}

std::unique_ptr<Layer> create_layer(const std::string& type, bool optimized) {
    const LayerTypeInfo* info = find_layer_type(type);
    if (!info)
        return nullptr;
    Layer* l = (optimized && info->create_optimized) ? info->create_optimized() : info->create();
    if (!l)
        return nullptr;
    l->type = type;
    return std::unique_ptr<Layer>(l);
}

const ParamSpec* find_param_spec(const std::string& type, int id) {
    const LayerTypeInfo* info = find_layer_type(type);
    if (!info)
        return nullptr;
    for (auto& p : info->params())
        if (p.id == id)
            return &p;
    return nullptr;
}

}  // namespace nnfold
