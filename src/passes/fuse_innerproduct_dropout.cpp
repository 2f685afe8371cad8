// fuse_innerproduct_dropout
//
//   Before: InnerProduct ip -> Dropout d          After: InnerProduct ip (writing d's output)
//   ncnn's Dropout at inference multiplies by param 0 `scale` (1 = identity).
//   Conditions: ip's output has one consumer (d) and is neither a model output nor kept; d has
//     one input and one output. When scale != 1 the scale is folded into the weights, so ip must
//     also have no fused activation (it would run before the scale), no int8 weights, and the
//     results must be finite.
//   Math: scale * (W x + b) = (scale W) x + scale b.
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

class FuseInnerProductDropout : public Pass {
public:
    FuseInnerProductDropout() : Pass("fuse_innerproduct_dropout") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        if (g.layers[i].type != "InnerProduct" || g.layers[i].tops.size() != 1)
            return MatchResult::none();
        int j = -1;
        NF_RETURN_IF_NOT_MATCHED(match_pair_of_type(ctx, i, "Dropout", c, j));
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, j));
        if (g.layers[j].params.get_float(0, 1.f) != 1.f)
            return check_foldable_weights(ctx, i);
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        LayerNode& ip = g.layers[c.layers[0]];
        const LayerNode& d = g.layers[c.layers[1]];
        float scale = d.params.get_float(0, 1.f);
        if (scale != 1.f) {
            int n = affine_host(ip).num_output;
            NF_RETURN_IF_ERROR(fold_affine(ip, std::vector<double>(n, (double)scale), {}));
            detail = "folded Dropout " + d.name + " (scale " + fmt(scale) + ") into InnerProduct " + ip.name;
        } else {
            detail = "removed Dropout " + d.name + " (scale 1) after InnerProduct " + ip.name;
        }
        absorb_consumer(ctx, c.layers[0], c.layers[1]);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_innerproduct_dropout() { return std::make_unique<FuseInnerProductDropout>(); }

}  // namespace nnfold
