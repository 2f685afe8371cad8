// Transposes in NHWC graphs: chains of Permute / Reshape / Flatten collapse to one Permute (or
// cancel), and Permutes sink below elementwise layers, so that per-channel math written after an
// NHWC transpose meets the Convolution before it and folds (fuse_<host>_mul / _add), and Permute
// pairs meet and cancel. The Permutes that remain are those the model's interface needs.
//
// fuse_permute_reshape_chain
//   Before: x -> L1 -> L2 -> ... -> Lk -> y, each Li a Permute, a Flatten or a Reshape (without
//           permute, every size given: no 0 / -1), k >= 2 (or one Permute that moves no data),
//           at least one Permute or only Reshapes
//   After:  x -> P -> y with P one Permute when the chain moves the data as one Permute of x does;
//           one Reshape when it leaves the data in place with a new shape; nothing (a Noop that
//           eliminate_noop removes) when it leaves data and shape as they are. P keeps L1's name.
//   Math:   decided by running the chain on the element indices of x (at most 2^20 elements): the
//           chain equals Permute order t when the index tensor it yields equals the one Permute t
//           yields, shape included (ncnn's orders, layers/permute.cpp).
//   Conditions: x's shape and every shape in the chain known; every blob inside the chain has one
//   consumer and is neither a model output nor kept; the longest prefix with a match is taken.
//   Importers write an N-D transpose of a 3D blob as Reshape -> 2D Permute -> Reshape; this turns
//   it back into the one Permute it is.
//
// sink_permute
//   Before: x -> Permute P -> p -> E -> y, E elementwise: a unary layer (ReLU, Sigmoid, Clip, ...),
//           a per-channel layer (BatchNorm, Scale, PReLU) when P keeps the channel axis of a 3D/4D
//           blob in place (it swaps the inner axes only), or a BinaryOp with a scalar
//           (with_scalar) or with a constant K from a MemoryData m
//   After:  x -> E' -> q -> P -> y: E reads x instead; K' (m's new shape) is K with its axes moved
//           back through P
//   Math:   E(P(x)) = P(E'(x)) for an elementwise E; for a BinaryOp, op(P(x), K) = P(op(x, K'))
//           with K' = P^-1(K); K keeps its values when at most one of its axes is longer than 1
//           (a vector along one axis: only the axis it lies along changes).
//   Conditions: p has one consumer (E) and is neither a model output nor kept; for a MemoryData K:
//   m's output is read by E alone and is not kept, m has fp32 data, K has P's output rank (or is
//   [C] against a 3D output of C channels: per channel) and each axis is 1 or the output's extent,
//   at most one longer than 1; P's input and output shapes known (a scalar or a unary layer needs
//   none). The Permute moves strictly later each time, so the pass stops.
#include <algorithm>
#include <cstdint>

#include "core/permute_order.h"
#include "model/shape_params.h"
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

int order_count(int dims) { return dims == 2 ? 2 : dims == 3 ? 6 : dims == 4 ? 24 : 1; }

void extents(const Shape& s, int e[4]) {
    e[0] = s.w;
    e[1] = s.dims >= 2 ? s.h : 1;
    e[2] = s.dims == 4 ? s.d : s.dims == 3 ? s.c : 1;
    e[3] = s.dims == 4 ? s.c : 1;
}

Shape from_extents(int dims, const int e[4]) {
    switch (dims) {
    case 1: return Shape::d1(e[0]);
    case 2: return Shape::d2(e[0], e[1]);
    case 3: return Shape::d3(e[0], e[1], e[2]);
    default: return Shape::d4(e[0], e[1], e[2], e[3]);
    }
}

// Applies Permute order t to `v` laid out densely in shape `s`; false when t is undefined.
bool apply_permute(std::vector<int32_t>& v, Shape& s, int t) {
    int p[4], e[4], oe[4] = {1, 1, 1, 1};
    if (!permute_order(s.dims, t, p))
        return false;
    extents(s, e);
    int st[4] = {1, e[0], e[0] * e[1], e[0] * e[1] * e[2]};
    for (int k = 0; k < s.dims; k++)
        oe[k] = e[p[k]];
    std::vector<int32_t> out(v.size());
    size_t o = 0;
    for (int i3 = 0; i3 < oe[3]; i3++)
        for (int i2 = 0; i2 < oe[2]; i2++)
            for (int i1 = 0; i1 < oe[1]; i1++)
                for (int i0 = 0; i0 < oe[0]; i0++) {
                    int oc[4] = {i0, i1, i2, i3};
                    size_t src = 0;
                    for (int k = 0; k < s.dims; k++)
                        src += (size_t)oc[k] * st[p[k]];
                    out[o++] = v[src];
                }
    v.swap(out);
    s = from_extents(s.dims, oe);
    return true;
}

bool same_shape(const Shape& a, const Shape& b) { return a.dims == b.dims && a.to_list() == b.to_list(); }

// A layer the chain may pass through: Permute, Flatten, or a Reshape that keeps data order and
// states every size.
bool chain_layer(const LayerNode& l) {
    if (l.bottoms.size() != 1 || l.tops.size() != 1)
        return false;
    if (l.type == "Permute" || l.type == "Flatten")
        return true;
    if (l.type != "Reshape" || l.params.get_int(3, 0) != 0)
        return false;
    for (int id : {0, 1, 2, 11})
        if (l.params.has(id) && l.params.get_int(id, 0) <= 0)
            return false;
    return true;
}

constexpr size_t kMaxElements = 1u << 20;
constexpr int kMaxChain = 8;

class FusePermuteReshapeChain : public Pass {
public:
    FusePermuteReshapeChain() : Pass("fuse_permute_reshape_chain") {}

    // ints: [chain length, kind (0 Noop, 1 Reshape, 2 Permute), order]
    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& l0 = g.layers[i];
        if (!chain_layer(l0))
            return MatchResult::none();
        std::vector<int> chain = {i};
        for (;;) {
            int y = g.layers[chain.back()].tops[0];
            if ((int)chain.size() >= kMaxChain || ctx.is_protected(y) || g.consumer_count(y) != 1)
                break;
            int n = g.consumers(y)[0];
            if (!chain_layer(g.layers[n]))
                break;
            chain.push_back(n);
        }
        bool any_permute = false, all_reshape = true;
        for (int l : chain) {
            any_permute = any_permute || g.layers[l].type == "Permute";
            all_reshape = all_reshape && g.layers[l].type == "Reshape";
        }
        // Reshapes alone (each with every size given: the result is as fixed as they are) collapse
        // too; a Flatten alone keeps its shape-generic meaning
        if (!any_permute && !(all_reshape && chain.size() >= 2))
            return MatchResult::none();
        if (chain.size() == 1 && l0.type != "Permute")
            return MatchResult::none();
        c.layers = chain;
        const Shape x = ctx.shape(l0.bottoms[0]);
        if (!x.known())
            return MatchResult::blocked("the shape of " + bq(g, l0.bottoms[0]) +
                                        " is unknown (give input shapes)");
        if (x.total() > kMaxElements || x.dims < 1 || x.dims > 4)
            return MatchResult::blocked("the input " + x.str() + " is too large to check the chain on (" +
                                        std::to_string(kMaxElements) + " elements at most)");
        std::vector<int32_t> v(x.total());
        for (size_t k = 0; k < v.size(); k++)
            v[k] = (int32_t)k;
        Shape s = x;
        int best = -1, best_kind = -1, best_order = 0;
        for (size_t k = 0; k < chain.size(); k++) {
            const LayerNode& l = g.layers[chain[k]];
            const Shape out = ctx.shape(l.tops[0]);
            if (!out.known() || out.total() != s.total())
                break;
            if (l.type == "Permute") {
                if (!apply_permute(v, s, l.params.get_int(0, 0)) || !same_shape(s, out))
                    break;
            } else {
                s = out;
            }
            if (k == 0 && chain.size() > 1)
                continue;  // a single layer is a candidate only as a Permute that moves nothing
            bool identity = true;
            for (size_t q = 0; q < v.size() && identity; q++)
                identity = v[q] == (int32_t)q;
            if (identity) {
                // a new shape is written as a Reshape with every size given: only where the chain
                // already fixed its sizes with one (a Flatten adapts to any input)
                bool fixed = false;
                for (size_t q = 0; q <= k; q++)
                    fixed = fixed || g.layers[chain[q]].type == "Reshape";
                if (same_shape(s, x) || fixed) {
                    best = (int)k;
                    best_kind = same_shape(s, x) ? 0 : 1;
                }
                continue;
            }
            if (k == 0 || s.dims != x.dims)
                continue;
            for (int t = 1; t < order_count(x.dims); t++) {
                std::vector<int32_t> w(v.size());
                for (size_t q = 0; q < w.size(); q++)
                    w[q] = (int32_t)q;
                Shape ws = x;
                if (apply_permute(w, ws, t) && same_shape(ws, s) && w == v) {
                    best = (int)k;
                    best_kind = 2;
                    best_order = t;
                    break;
                }
            }
        }
        if (best < 0)
            return MatchResult::none();
        c.layers.resize(best + 1);
        c.ints = {best + 1, best_kind, best_order};
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        const int n = c.ints[0], kind = c.ints[1], order = c.ints[2];
        const int first = c.layers[0], last = c.layers[n - 1];
        const int y = g.layers[last].tops[0];
        Shape out = ctx.shape(y);
        std::string names;
        for (int l : c.layers)
            names += (names.empty() ? "" : ", ") + g.layers[l].type + " " + g.layers[l].name;
        for (int k = 1; k < n; k++)
            g.erase_layer(c.layers[k]);
        LayerNode& l = g.layers[first];
        l.weights.clear();
        if (kind == 0) {
            l.type = "Noop";
            l.params = ParamDict();
            detail = names + " leave the data as it is: removed";
        } else if (kind == 1) {
            l.type = "Reshape";
            l.params = shape_params(out);
            detail = names + " keep the data order: one Reshape to " + out.str();
        } else {
            l.type = "Permute";
            l.params = ParamDict();
            l.params.set_int(0, order);
            detail = names + " are one Permute, order_type " + std::to_string(order);
        }
        g.set_tops(first, {y});
        return Status::ok();
    }
};

bool unary_elementwise(const std::string& t) {
    static const char* kTypes[] = {"ReLU", "AbsVal", "BNLL", "Clip", "ELU", "Erf", "Exp", "GELU", "HardSigmoid",
                                   "HardSwish", "Log", "Mish", "Power", "SELU", "Sigmoid", "Swish", "TanH",
                                   "Threshold", "UnaryOp", "Dropout"};
    for (const char* k : kTypes)
        if (t == k)
            return true;
    return false;
}

std::string fresh_blob_name(const Graph& g, const std::string& base) {
    std::string n = base + "_sunk";
    for (int k = 1; g.find_blob(n) >= 0; k++)
        n = base + "_sunk" + std::to_string(k);
    return n;
}

class SinkPermute : public Pass {
public:
    SinkPermute() : Pass("sink_permute") {}

    // layers: [P, E, (m)]; ints: [memorydata or -1, new K extents w, h, d, c, dims]
    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& P = g.layers[i];
        if (P.type != "Permute" || P.bottoms.size() != 1 || P.tops.size() != 1)
            return MatchResult::none();
        int p = P.tops[0];
        if (g.consumer_count(p) != 1)
            return MatchResult::none();
        int e = g.consumers(p)[0];
        const LayerNode& E = g.layers[e];
        if (E.tops.size() != 1)
            return MatchResult::none();
        bool unary = unary_elementwise(E.type) && E.bottoms.size() == 1;
        // per-channel layers commute with a Permute that leaves the channel axis where it is
        if (!unary && E.bottoms.size() == 1 &&
            (E.type == "BatchNorm" || E.type == "PReLU" || (E.type == "Scale" && E.params.get_int(0, 0) > 0))) {
            const Shape& os = ctx.shape(p);
            int perm[4];
            if (!os.known() || os.dims < 3 || !permute_order(os.dims, P.params.get_int(0, 0), perm))
                return MatchResult::none();
            if (perm[os.dims - 1] != os.dims - 1)
                return MatchResult::none();  // the channel axis moves: the layer cannot follow
            unary = true;
        }
        bool scalar_bin = E.type == "BinaryOp" && E.params.get_int(1, 0) && E.bottoms.size() == 1;
        bool const_bin = E.type == "BinaryOp" && !E.params.get_int(1, 0) && E.bottoms.size() == 2 &&
                         E.bottoms[0] != E.bottoms[1];
        int md = -1, kblob = -1;
        if (const_bin) {
            kblob = E.bottoms[0] == p ? E.bottoms[1] : E.bottoms[0];
            md = g.producer(kblob);
            if (md < 0 || g.layers[md].type != "MemoryData")
                return MatchResult::none();
        } else if (!unary && !scalar_bin) {
            return MatchResult::none();
        }
        c.layers = {i, e};
        if (md >= 0)
            c.layers.push_back(md);
        if (ctx.is_protected(p))
            return MatchResult::blocked(bq(g, p) + " is " + ctx.protected_why[p]);
        c.ints = {md, 0, 0, 0, 0, 0};
        if (md < 0)
            return MatchResult::ok();
        // the constant: its axes move back through P
        if (ctx.is_protected(kblob))
            return MatchResult::blocked("the constant " + bq(g, kblob) + " is " + ctx.protected_why[kblob]);
        if (g.consumer_count(kblob) != 1)
            return MatchResult::blocked("the constant " + bq(g, kblob) + " has other readers");
        const LayerNode& m = g.layers[md];
        Shape ks = memorydata_shape(m);
        if (m.weights.size() != 1 || m.weights[0].storage == WeightStorage::Int8 ||
            m.weights[0].data.size() != ks.total())
            return MatchResult::blocked("MemoryData " + lq(g, md) + " has no fp32 data loaded");
        if (ks.total() == 1 && ks.dims == 1)
            return MatchResult::ok();  // one value: nothing to move
        const Shape xs = ctx.shape(P.bottoms[0]), os = ctx.shape(p);
        if (!xs.known() || !os.known())
            return MatchResult::blocked("the shapes around " + lq(g, i) +
                                        " are unknown (give input shapes)");
        int perm[4];
        if (!permute_order(os.dims, P.params.get_int(0, 0), perm))
            return MatchResult::none();
        int ke[4] = {1, 1, 1, 1}, oe[4];
        extents(os, oe);
        if (ks.dims == 1 && os.dims == 3 && ks.w == os.c) {
            ke[2] = ks.w;  // [n] against [c,h,w] with c == n: per channel (ncnn's broadcasting)
        } else if (ks.dims == 1 && os.dims == 3 && ks.w == os.w) {
            ke[0] = ks.w;  // else along w
        } else if (ks.dims == os.dims) {
            extents(ks, ke);
        } else {
            return MatchResult::blocked("the constant " + ks.str() + " does not have the rank of " + bq(g, p) + " " +
                                        os.str());
        }
        int longer = 0;
        for (int k = 0; k < os.dims; k++) {
            if (ke[k] != 1 && ke[k] != oe[k])
                return MatchResult::blocked("the constant " + ks.str() + " does not broadcast along " + os.str());
            longer += ke[k] != 1;
        }
        if (longer > 1)
            return MatchResult::blocked("the constant " + ks.str() +
                                        " varies along several axes (its values would have to be permuted)");
        int ne[4] = {1, 1, 1, 1};
        for (int k = 0; k < os.dims; k++)
            ne[perm[k]] = ke[k];
        c.ints = {md, ne[0], ne[1], ne[2], ne[3], os.dims};
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        const int ip = c.layers[0], ie = c.layers[1], md = c.ints[0];
        const LayerNode Pc = g.layers[ip], Ec = g.layers[ie];
        const int x = Pc.bottoms[0], p = Pc.tops[0], y = Ec.tops[0];
        const int q = g.add_blob(fresh_blob_name(g, g.blobs[p].name));
        std::vector<int> eb = Ec.bottoms;
        for (int& b : eb)
            if (b == p)
                b = x;
        auto put = [&](int slot, const LayerNode& content, std::vector<int> bottoms, std::vector<int> tops) {
            LayerNode& l = g.layers[slot];
            l.type = content.type;
            l.name = content.name;
            l.params = content.params;
            l.weights = content.weights;
            g.set_bottoms(slot, std::move(bottoms));
            g.set_tops(slot, std::move(tops));
        };
        detail = "Permute " + Pc.name + " moved below " + Ec.type + " " + Ec.name;
        if (md >= 0) {
            LayerNode Mc = g.layers[md];
            if (c.ints[5] > 0) {
                int ne[4] = {c.ints[1], c.ints[2], c.ints[3], c.ints[4]};
                Shape ks = from_extents(c.ints[5], ne);
                ParamDict pd = shape_params(ks);  // MemoryData: 0 w, 1 h, 2 c, 11 d, as Reshape
                Mc.params = pd;
                detail += "; constant " + Mc.name + " " + memorydata_shape(g.layers[md]).str() + " -> " + ks.str();
            }
            if (md > ip) {
                // the constant must exist before E's new place: m, E, P take the slots of P, m, E
                put(ip, Mc, {}, Mc.tops);
                put(md, Ec, eb, {q});
                put(ie, Pc, {q}, {y});
                return Status::ok();
            }
            g.layers[md].params = Mc.params;
        }
        put(ip, Ec, eb, {q});
        put(ie, Pc, {q}, {y});
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_permute_reshape_chain() { return std::make_unique<FusePermuteReshapeChain>(); }
std::unique_ptr<Pass> make_sink_permute() { return std::make_unique<SinkPermute>(); }

}  // namespace nnfold
