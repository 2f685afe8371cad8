// eliminate_orphaned_memorydata
//
//   Before: MemoryData m whose output nothing reads      After: m removed
//   Other passes leave such constants behind only when a kept name holds them (they remove the
//   ones they orphan); a MemoryData the model itself leaves unread is one of the model's outputs
//   (a blob nothing consumes), so it stays: output names never change. ncnnoptimize removes both.
//   Conditions: no live layer reads m's output, and it is neither a model output nor kept.
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

class EliminateOrphanedMemoryData : public Pass {
public:
    EliminateOrphanedMemoryData() : Pass("eliminate_orphaned_memorydata") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& l = g.layers[i];
        if (l.type != "MemoryData" || l.tops.size() != 1 || g.consumer_count(l.tops[0]) != 0)
            return MatchResult::none();
        c.layers = {i};
        if (ctx.is_protected(l.tops[0]))
            return MatchResult::blocked(lq(g, i) + "'s output " + bq(g, l.tops[0]) + " is " +
                                        ctx.protected_why[l.tops[0]]);
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        detail = "removed MemoryData " + ctx.g.layers[c.layers[0]].name + " (nothing reads it)";
        ctx.g.erase_layer(c.layers[0]);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_eliminate_orphaned_memorydata() { return std::make_unique<EliminateOrphanedMemoryData>(); }

}  // namespace nnfold
