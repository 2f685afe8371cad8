// fuse_{convolution,convolutiondepthwise,deconvolution,deconvolutiondepthwise,innerproduct}_activation
//
//   Before: host -> ReLU | Clip | Sigmoid | Mish | HardSwish act
//   After:  host with activation_type / activation_params (param 9 / 10), writing act's output
//   ncnn's fused activations (src/layer/fused_activation.h) compute what the standalone layers do:
//     ReLU slope 0 -> 1; ReLU slope s -> 2 [s]; Clip min,max -> 3 [min,max]; Sigmoid -> 4;
//     Mish -> 5; HardSwish alpha,beta -> 6 [alpha,beta] (ncnn's HardSwish defaults alpha to 1/6 in
//     its source, 0.2 in operators.md: the source wins).
//   Conditions: host's output has one consumer (act) and is neither a model output nor kept;
//     host has no fused activation yet (ncnnoptimize overwrites it, dropping the first one);
//     host has no int8 weights (ncnn requantizes int8 outputs around the activation); act has one
//     input and one output; Clip with min <= max (the standalone layer applies min then max, the
//     fused one tests min first: they differ when min > max); HardSwish with alpha != 0.
//   Sigmoid and Mish differ from the fused forms only in far tails (the fused sigmoid clamps its
//   input to +-88.38, where the result is below 1e-38; the fused mish cuts softplus at +-20).
#include <algorithm>
#include <cfloat>

#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

class FuseHostActivation : public Pass {
public:
    FuseHostActivation(const std::string& name, std::vector<std::string> types, std::vector<std::string> acts)
        : Pass(name), types_(std::move(types)), acts_(std::move(acts)) {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& host = g.layers[i];
        if (std::find(types_.begin(), types_.end(), host.type) == types_.end() || host.tops.size() != 1)
            return MatchResult::none();
        int j = next_consumer(
            g, i, [&](const LayerNode& l) { return std::find(acts_.begin(), acts_.end(), l.type) != acts_.end(); });
        if (j < 0)
            return MatchResult::none();
        const LayerNode& act = g.layers[j];
        NF_RETURN_IF_NOT_MATCHED(match_pair(ctx, i, j, c));
        AffineHost h = affine_host(host);
        if (h.activation_type != 0)
            return MatchResult::blocked(lq(g, i) + " already applies a fused activation (activation_type " +
                                        std::to_string(h.activation_type) + ")");
        if (h.int8_scale_term != 0)
            return MatchResult::blocked(lq(g, i) + " has int8 weights (int8_scale_term " +
                                        std::to_string(h.int8_scale_term) + ")");
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, j));
        if (act.type == "Clip") {
            float lo = act.params.get_float(0, -FLT_MAX), hi = act.params.get_float(1, FLT_MAX);
            if (!(lo <= hi))
                return MatchResult::blocked(lq(g, j) + " has min " + fmt(lo) + " above max " + fmt(hi));
        }
        if (act.type == "HardSwish" && act.params.get_float(0, 1.f / 6) == 0.f)
            return MatchResult::blocked(lq(g, j) + " has alpha 0");
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        LayerNode& host = g.layers[c.layers[0]];
        const LayerNode& act = g.layers[c.layers[1]];
        int type = 0;
        std::vector<float> params;
        if (act.type == "ReLU") {
            float slope = act.params.get_float(0, 0.f);
            type = slope == 0.f ? 1 : 2;
            if (type == 2)
                params = {slope};
        } else if (act.type == "Clip") {
            type = 3;
            params = {act.params.get_float(0, -FLT_MAX), act.params.get_float(1, FLT_MAX)};
        } else if (act.type == "Sigmoid") {
            type = 4;
        } else if (act.type == "Mish") {
            type = 5;
        } else if (act.type == "HardSwish") {
            type = 6;
            params = {act.params.get_float(0, 1.f / 6), act.params.get_float(1, 0.5f)};
        } else {
            return internal_error("fuse activation: unexpected " + act.type);
        }
        host.params.set_int(9, type);
        if (params.empty())
            host.params.erase(10);
        else
            host.params.set_floats(10, params);
        detail = "fused " + act.type + " " + act.name + " into " + host.type + " " + host.name + " (activation_type " +
                 std::to_string(type);
        for (size_t k = 0; k < params.size(); k++)
            detail += (k ? ", " : " [") + fmt(params[k]) + (k + 1 == params.size() ? "]" : "");
        detail += ")";
        absorb_consumer(ctx, c.layers[0], c.layers[1]);
        return Status::ok();
    }

private:
    std::vector<std::string> types_, acts_;
};

}  // namespace

std::unique_ptr<Pass> make_fuse_host_activation(const std::string& name, std::vector<std::string> types,
                                                std::vector<std::string> activations) {
    return std::make_unique<FuseHostActivation>(name, std::move(types), std::move(activations));
}

}  // namespace nnfold
