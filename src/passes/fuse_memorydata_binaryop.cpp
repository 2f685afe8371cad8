// fuse_memorydata_binaryop
//
//   Before: MemoryData m (one value) -> [Split ->] BinaryOp op (two inputs)
//   After:  BinaryOp op with with_scalar 1 (param 1), b = m's value (param 2), one input; m (and
//           the Split output) go when nothing else reads them
//   ncnn's BinaryOp op_type: 0 add, 1 sub, 2 mul, 3 div, 4 max, 5 min, 6 pow, 7 rsub, 8 rdiv,
//   9 rpow, 10 atan2, 11 ratan2; with_scalar computes op(x, b). When the constant is the FIRST
//   input, op(K, x) is rewritten with the operand order swapped: add, mul, max, min are
//   symmetric; sub <-> rsub, div <-> rdiv, pow <-> rpow, atan2 <-> ratan2.
//   Conditions: m holds one value and broadcasts as a scalar without changing the output shape:
//     [1] always; [1,1] / [1,1,1] / [1,1,1,1] only when the other input's rank is known and at
//     least as high (a higher-rank constant would raise the output's rank); m has fp32 data; the
//     blob op reads is not kept; when m's output is kept, op is not its last reader (m would
//     stay with an unread output: a new model output); op's inputs are distinct.
//   ncnnoptimize erases m even when other layers still read it.
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

int swapped_op(int op) {
    switch (op) {
    case 0: case 2: case 4: case 5: return op;
    case 1: return 7;
    case 7: return 1;
    case 3: return 8;
    case 8: return 3;
    case 6: return 9;
    case 9: return 6;
    case 10: return 11;
    case 11: return 10;
    default: return -1;
    }
}
class FuseMemoryDataBinaryOp : public Pass {
public:
    FuseMemoryDataBinaryOp() : Pass("fuse_memorydata_binaryop") {}

    // Anchored at the BinaryOp. ints: [constant side, memorydata, split, split top index]
    MatchResult match(const PassContext& ctx, int j, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& bin = g.layers[j];
        if (bin.type != "BinaryOp" || bin.bottoms.size() != 2 || bin.tops.size() != 1)
            return MatchResult::none();
        int side = -1, md = -1, split = -1, split_top = -1;
        for (int s = 0; s < 2 && md < 0; s++) {
            int p = g.producer(bin.bottoms[s]);
            if (p < 0)
                continue;
            int sp = -1;
            if (g.layers[p].type == "Split" && g.layers[p].bottoms.size() == 1) {
                sp = p;
                p = g.producer(g.layers[p].bottoms[0]);
            }
            if (p >= 0 && g.layers[p].type == "MemoryData" && memorydata_shape(g.layers[p]).total() == 1) {
                side = s;
                md = p;
                split = sp;
                if (sp >= 0)
                    for (size_t k = 0; k < g.layers[sp].tops.size(); k++)
                        if (g.layers[sp].tops[k] == bin.bottoms[s])
                            split_top = (int)k;
            }
        }
        if (md < 0)
            return MatchResult::none();
        c.layers = {md};
        if (split >= 0)
            c.layers.push_back(split);
        c.layers.push_back(j);
        if (bin.bottoms[0] == bin.bottoms[1])
            return MatchResult::blocked(lq(g, j) + " combines " + bq(g, bin.bottoms[0]) + " with itself");
        int kblob = bin.bottoms[side];
        if (ctx.is_protected(kblob))
            return MatchResult::blocked("the constant " + bq(g, kblob) + " is " + ctx.protected_why[kblob]);
        NF_RETURN_IF_NOT_MATCHED(check_kept_constant_keeps_a_reader(ctx, md, split));
        const LayerNode& m = g.layers[md];
        if (m.weights.size() != 1 || m.weights[0].storage == WeightStorage::Int8 || m.weights[0].data.size() != 1)
            return MatchResult::blocked("MemoryData " + lq(g, md) + " has no fp32 data loaded");
        Shape ks = memorydata_shape(m);
        if (ks.dims > 1) {
            const Shape& other = ctx.shape(bin.bottoms[1 - side]);
            if (!other.known())
                return MatchResult::blocked("the constant is " + ks.str() +
                                            " and the other input's shape is unknown (give input shapes): it may "
                                            "raise the output's rank");
            if (other.dims < ks.dims)
                return MatchResult::blocked("the constant " + ks.str() + " would raise the " + std::to_string(other.dims) +
                                            "D input to " + std::to_string(ks.dims) + "D");
        }
        int op = bin.params.get_int(0, 0);
        if (side == 0 && swapped_op(op) < 0)
            return MatchResult::blocked(lq(g, j) + " has op_type " + std::to_string(op) +
                                        ", which cannot take its operands swapped");
        c.ints = {side, md, split, split_top};
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int side = c.ints[0], md = c.ints[1], split = c.ints[2], split_top = c.ints[3];
        int j = c.layers.back();
        LayerNode& bin = g.layers[j];
        float value = g.layers[md].weights[0].data[0];
        int op = bin.params.get_int(0, 0);
        int new_op = side == 0 ? swapped_op(op) : op;
        bin.params.set_int(0, new_op);
        bin.params.set_int(1, 1);
        bin.params.set_float(2, value);
        g.erase_bottom(j, side);
        detail = "BinaryOp " + bin.name + " takes MemoryData " + g.layers[md].name + " as scalar b = " + fmt(value);
        if (new_op != op)
            detail += " (op_type " + std::to_string(op) + " -> " + std::to_string(new_op) + ", operands swapped)";
        if (split >= 0) {
            g.erase_top(split, split_top);
            if (g.layers[split].tops.empty())
                g.erase_layer(split);
        }
        int mblob = g.layers[md].tops[0];
        if (g.consumer_count(mblob) == 0 && !ctx.is_protected(mblob))
            g.erase_layer(md);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_memorydata_binaryop() { return std::make_unique<FuseMemoryDataBinaryOp>(); }

}  // namespace nnfold
