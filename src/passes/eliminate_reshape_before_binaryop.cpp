// eliminate_reshape_before_binaryop
//
//   Before: x [c] -> Reshape r (w 1, h 1: to [c,1,1]) -> BinaryOp op (with another input a)
//   After:  op reads x directly
//   ncnn's BinaryOp (docs/developer-guide/binaryop-broadcasting.md) aligns a lower-rank operand
//   with the OUTER axes of the other: against a 3D or 4D a with c channels, x [c] broadcasts
//   exactly as [c,1,1] ([c,1,1,1] for 4D) does, so the Reshape changes nothing. Against a 1D or
//   2D a (the output rank is the higher of the two), or an a whose channel count is not c (ncnn
//   then aligns [c] with w), it would not; ncnnoptimize does not check.
//   Conditions: r does not permute (param 3); r's input is 1D [c] and its output [c,1,1] (known
//   shapes); a's shape is known, 3D or 4D, with c channels; op reads r's output once, and that output has no
//   other consumer and is neither a model output nor kept.
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

class EliminateReshapeBeforeBinaryOp : public Pass {
public:
    EliminateReshapeBeforeBinaryOp() : Pass("eliminate_reshape_before_binaryop") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& r = g.layers[i];
        if (r.type != "Reshape" || r.bottoms.size() != 1 || r.tops.size() != 1)
            return MatchResult::none();
        if (r.params.get_int(0, -233) != 1 || r.params.get_int(1, -233) != 1)
            return MatchResult::none();
        int j = next_consumer(g, i, [](const LayerNode& l) { return l.type == "BinaryOp" && l.bottoms.size() == 2; });
        if (j < 0)
            return MatchResult::none();
        c.layers = {i, j};
        if (r.params.get_int(3, 0) != 0)
            return MatchResult::blocked(lq(g, i) + " permutes (param 3)");
        NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, i, r.tops[0]));
        const LayerNode& bin = g.layers[j];
        if (bin.bottoms[0] == bin.bottoms[1])
            return MatchResult::blocked(lq(g, j) + " reads " + bq(g, r.tops[0]) + " twice");
        const Shape& in = ctx.shape(r.bottoms[0]);
        const Shape& out = ctx.shape(r.tops[0]);
        int other = bin.bottoms[0] == r.tops[0] ? bin.bottoms[1] : bin.bottoms[0];
        const Shape& a = ctx.shape(other);
        if (!in.known() || !out.known() || !a.known())
            return MatchResult::blocked("shapes are unknown (give input shapes)");
        if (in.dims != 1 || out != Shape::d3(1, 1, in.w))
            return MatchResult::blocked(lq(g, i) + " turns " + in.str() + " into " + out.str() + ", not [c] into [c,1,1]");
        // ncnn expands [c] to [1,1,c] only against a blob whose c is that length (else along w)
        if (a.dims < 3 || a.c != in.w)
            return MatchResult::blocked(lq(g, j) + "'s other input " + bq(g, other) + " is " + a.str() +
                                        ": the 1D input would broadcast differently");
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int i = c.layers[0], j = c.layers[1];
        int x = g.layers[i].bottoms[0], y = g.layers[i].tops[0];
        for (size_t k = 0; k < g.layers[j].bottoms.size(); k++)
            if (g.layers[j].bottoms[k] == y)
                g.set_bottom(j, k, x);
        detail = "BinaryOp " + g.layers[j].name + " reads " + g.blobs[x].name + " without Reshape " + g.layers[i].name;
        g.erase_layer(i);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_eliminate_reshape_before_binaryop() {
    return std::make_unique<EliminateReshapeBeforeBinaryOp>();
}

}  // namespace nnfold
