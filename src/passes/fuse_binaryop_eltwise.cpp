// fuse_binaryop_eltwise
//
//   Before: x -> BinaryOp mul0 (mul, with_scalar c0) -> BinaryOp add (add, two inputs)
//           y -> BinaryOp mul1 (mul, with_scalar c1) -> (the same add)
//   After:  Eltwise add (op_type 1 sum, coeffs [c0, c1]) over x and y; a side without the scalar
//           multiplication takes coefficient 1.
//   ncnn's Eltwise sum computes x * c0 + y * c1 element by element, the same operations as the
//   BinaryOps (x * 1 is exact).
//   Conditions: at least one input of add comes from such a mul; each such mul has one input and
//     its output has one consumer (add) and is neither a model output nor kept; add has two
//     distinct inputs; and both inputs have the same known shape: Eltwise does not broadcast,
//     BinaryOp does (ncnnoptimize does not check this).
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

// The scalar multiplication producing `blob`, or -1.
int scalar_mul_producer(const Graph& g, int blob) {
    int p = g.producer(blob);
    if (p < 0)
        return -1;
    const LayerNode& l = g.layers[p];
    if (l.type != "BinaryOp" || l.bottoms.size() != 1 || l.tops.size() != 1 || l.params.get_int(0, 0) != 2 ||
        l.params.get_int(1, 0) != 1)
        return -1;
    return p;
}

class FuseBinaryOpEltwise : public Pass {
public:
    FuseBinaryOpEltwise() : Pass("fuse_binaryop_eltwise") {}

    // Anchored at the add. ints: [mul0 or -1, mul1 or -1]
    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& add = g.layers[i];
        if (add.type != "BinaryOp" || add.bottoms.size() != 2 || add.tops.size() != 1 || add.params.get_int(0, 0) != 0 ||
            add.params.get_int(1, 0) != 0)
            return MatchResult::none();
        int m0 = scalar_mul_producer(g, add.bottoms[0]);
        int m1 = scalar_mul_producer(g, add.bottoms[1]);
        if (m0 < 0 && m1 < 0)
            return MatchResult::none();
        if (m0 >= 0)
            c.layers.push_back(m0);
        if (m1 >= 0 && m1 != m0)
            c.layers.push_back(m1);
        c.layers.push_back(i);
        if (add.bottoms[0] == add.bottoms[1])
            return MatchResult::blocked(lq(g, i) + " adds " + bq(g, add.bottoms[0]) + " to itself");
        for (int m : {m0, m1}) {
            if (m < 0)
                continue;
            NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, m, g.layers[m].tops[0]));
        }
        const Shape& s0 = ctx.shape(add.bottoms[0]);
        const Shape& s1 = ctx.shape(add.bottoms[1]);
        if (!s0.known() || !s1.known())
            return MatchResult::blocked(lq(g, i) + "'s input shapes are unknown (give input shapes): Eltwise needs "
                                        "equal shapes, BinaryOp broadcasts");
        if (s0 != s1)
            return MatchResult::blocked(lq(g, i) + " broadcasts " + s0.str() + " with " + s1.str() +
                                        ", which Eltwise cannot");
        c.ints = {m0, m1};
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int i = c.layers.back();
        int mul[2] = {c.ints[0], c.ints[1]};
        float coeff[2] = {1.f, 1.f};
        std::vector<int> bottoms = g.layers[i].bottoms;
        std::string muls;
        for (int k = 0; k < 2; k++) {
            if (mul[k] < 0)
                continue;
            coeff[k] = g.layers[mul[k]].params.get_float(2, 0.f);
            bottoms[k] = g.layers[mul[k]].bottoms[0];
            muls += (muls.empty() ? "" : " and ") + g.layers[mul[k]].name;
            g.erase_layer(mul[k]);
        }
        LayerNode& add = g.layers[i];
        add.type = "Eltwise";
        add.params.clear();
        add.params.set_int(0, 1);  // sum
        add.params.set_floats(1, {coeff[0], coeff[1]});
        g.set_bottoms(i, bottoms);
        add.weights.clear();
        detail = "BinaryOp " + add.name + " with scalar multiplications " + muls + " became Eltwise sum with coeffs [" +
                 fmt(coeff[0]) + ", " + fmt(coeff[1]) + "]";
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_binaryop_eltwise() { return std::make_unique<FuseBinaryOpEltwise>(); }

}  // namespace nnfold
