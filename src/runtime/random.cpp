#include "runtime/random.h"

#include <cmath>

#include "analysis/weight_specs.h"
#include "core/allocator.h"
#include "layers/layer.h"

namespace nnfold {

Status randomize_weights(Graph& g, uint32_t seed) {
    Rng rng(seed);
    uint64_t total = 0;
    for (auto& layer : g.layers) {
        if (layer.erased)
            continue;
        std::vector<WeightSpec> specs;
        NF_RETURN_IF_ERROR(weight_specs_for(layer, specs));
        for (auto& s : specs)
            total += s.count;
    }
    if (total > ((uint64_t)512 << 20))
        return resource_limit("random weights for " + std::to_string(total) + " values would need " +
                              format_bytes(total * 4) + ", over the 2 GB limit for weights; the model is too large");
    for (auto& layer : g.layers) {
        if (layer.erased)
            continue;
        std::vector<WeightSpec> specs;
        NF_RETURN_IF_ERROR(weight_specs_for(layer, specs));
        layer.weights.clear();
        for (const WeightSpec& s : specs) {
            std::vector<float> v(s.count);
            float lo = -0.1f, hi = 0.1f;
            switch (s.role) {
            case WeightRole::Weight: {
                float k = (float)std::sqrt(3.0 / (double)(s.fan_in > 0 ? s.fan_in : 1));
                lo = -k;
                hi = k;
                break;
            }
            case WeightRole::Bias:
            case WeightRole::Mean:
            case WeightRole::Beta: lo = -0.1f; hi = 0.1f; break;
            case WeightRole::Gamma: lo = 0.9f; hi = 1.1f; break;
            case WeightRole::Variance: lo = 0.5f; hi = 1.5f; break;
            case WeightRole::Slope: lo = 0.f; hi = 0.25f; break;
            case WeightRole::Data: lo = -1.f; hi = 1.f; break;
            }
            for (auto& x : v)
                x = rng.uniform(lo, hi);
            layer.weights.push_back(s.tagged ? WeightArray::tagged_f32(std::move(v)) : WeightArray::untagged(std::move(v)));
        }
    }
    return Status::ok();
}

void fill_uniform(Mat& m, Rng& rng) {
    size_t n = m.total_floats();
    for (size_t i = 0; i < n; i++)
        m.data[i] = rng.uniform(-1.f, 1.f);
}

}  // namespace nnfold
