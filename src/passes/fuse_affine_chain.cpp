// fuse_affine_binaryop_chain
//
//   Before: x -> BinaryOp op1 (K1) -> BinaryOp op2 (K2) -> ... -> BinaryOp opN (KN) -> y
//           each Ki a constant: a scalar param (with_scalar), or a MemoryData read directly or
//           through one output of a Split; opi one of add, sub, mul, div, rsub, rdiv in a form that
//           is affine in x (x + K, K + x, x - K, K - x, x * K, K * x, x / K)
//   After:  per-channel chain: Scale sc (scale_data_size C, bias_term when a shift is not zero),
//           reading x and writing y (it keeps op1's name);
//           scalar chain: at most two BinaryOps with with_scalar (a multiply, then an add), fewer
//           than before;
//           the MemoryData layers (and Split outputs) go when nothing else reads them
//   Math:   every link is x' = s x + t with s, t per channel (or one value); the composition is
//           x' = S x + T with S = s_N ... s_1 and T folded link by link (T' = s T + t), in double.
//           ncnn's Scale multiplies channel k of a 3D blob (or element k of a 1D blob) by
//           scale_data[k] and adds bias_data[k] (layers/channel_slices.h).
//   Conditions:
//   - every blob inside the chain has one consumer (the next link) and is neither a model output
//     nor kept; x is not y's only other name (the chain has its own output);
//   - each Ki has fp32 data and is one value ([1]) or one value per channel of x by ncnn's
//     broadcasting (pass_util.h classify_constant_operand): x is 3D [C,h,w] and Ki is [C], [C,1]
//     or [C,1,1], or x is 1D [C] and Ki is [C]. A per-channel constant needs x's shape: unknown
//     shapes refuse (give the input's shape to unlock it);
//   - no constant output the chain reads is kept (the MemoryData would stay unread: a new model
//     output); a divisor has no zero; S and T are finite;
//   - the chain removes at least one layer (a lone scalar op stays as it is);
//   - x is not the output of a Convolution-family or InnerProduct layer that could absorb the first
//     link: fuse_<host>_mul / _add fold it into the weights, which costs nothing at run time.
#include <cmath>

#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

enum Op { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kRSub = 7, kRDiv = 8 };

// One link: the BinaryOp, the side x is on, the constant (one value or a MemoryData's data).
struct Link {
    int layer = -1;
    int x = -1;           // the blob the chain flows through
    int const_blob = -1;  // the blob holding K (-1 for with_scalar)
    int memorydata = -1;
    int split = -1;
    std::vector<float> k;
    Shape kshape;
    double ks = 1, kt = 0;  // x' = ks * x + kt * K, ks NaN meaning "times K", divide: "times 1/K"
    bool times_k = false, divide = false;
};

// The affine form of op(a, b) in x (x on side `side`), or false.
bool affine_form(int op, int side, Link& l) {
    l.times_k = l.divide = false;
    l.ks = 1;
    l.kt = 0;
    switch (op) {
    case kAdd: l.kt = 1; return true;
    case kSub: l.ks = side == 0 ? 1 : -1; l.kt = side == 0 ? -1 : 1; return true;
    case kRSub: l.ks = side == 0 ? -1 : 1; l.kt = side == 0 ? 1 : -1; return true;
    case kMul: l.times_k = true; return true;
    case kDiv: if (side != 0) return false; l.times_k = l.divide = true; return true;
    case kRDiv: if (side != 1) return false; l.times_k = l.divide = true; return true;
    default: return false;
    }
}

// The constant behind `blob`: a MemoryData, directly or through a Split. -1 when not constant.
int constant_producer(const Graph& g, int blob, int& split) {
    split = -1;
    int p = g.producer(blob);
    if (p >= 0 && g.layers[p].type == "Split" && g.layers[p].bottoms.size() == 1) {
        split = p;
        p = g.producer(g.layers[p].bottoms[0]);
    }
    if (p >= 0 && g.layers[p].type == "MemoryData")
        return p;
    split = -1;
    return -1;
}

// Reads layer `j` as a link of a chain: None when it is not one (silent), Blocked with a reason
// when it is one whose constant cannot be used, Ok with `l` filled.
MatchResult read_link(const PassContext& ctx, int j, Link& l) {
    const Graph& g = ctx.g;
    const LayerNode& b = g.layers[j];
    if (b.type != "BinaryOp" || b.tops.size() != 1)
        return MatchResult::none();
    int op = b.params.get_int(0, 0);
    l = Link();
    l.layer = j;
    if (b.params.get_int(1, 0)) {
        if (b.bottoms.size() != 1 || !affine_form(op, 0, l))
            return MatchResult::none();
        l.x = b.bottoms[0];
        l.k = {b.params.get_float(2, 0.f)};
        l.kshape = Shape::d1(1);
    } else {
        if (b.bottoms.size() != 2 || b.bottoms[0] == b.bottoms[1])
            return MatchResult::none();
        int side = -1, split = -1, md = -1;
        for (int s = 0; s < 2; s++) {
            int sp = -1;
            int m = constant_producer(g, b.bottoms[1 - s], sp);
            if (m >= 0 && md < 0) {
                side = s;
                md = m;
                split = sp;
            } else if (m >= 0) {
                return MatchResult::none();  // two constants: a constant-folding matter
            }
        }
        if (md < 0 || !affine_form(op, side, l))
            return MatchResult::none();
        l.x = b.bottoms[side];
        l.const_blob = b.bottoms[1 - side];
        l.memorydata = md;
        l.split = split;
        const LayerNode& m = g.layers[md];
        l.kshape = memorydata_shape(m);
        if (m.weights.size() != 1 || m.weights[0].storage == WeightStorage::Int8 ||
            m.weights[0].data.size() != l.kshape.total())
            return MatchResult::blocked("MemoryData " + lq(g, md) + " has no fp32 data loaded");
        if (ctx.is_protected(l.const_blob))
            return MatchResult::blocked("the constant " + bq(g, l.const_blob) + " is " + ctx.protected_why[l.const_blob]);
        int mblob = m.tops[0];
        if (ctx.is_protected(mblob))
            return MatchResult::blocked("the constant " + bq(g, mblob) + " of MemoryData " + lq(g, md) + " is " +
                                        ctx.protected_why[mblob]);
        l.k = m.weights[0].data;
    }
    if (l.divide)
        for (float v : l.k)
            if (v == 0.f)
                return MatchResult::blocked(lq(g, j) + " divides by a constant that has zeros");
    return MatchResult::ok();
}

class FuseAffineChain : public Pass {
public:
    FuseAffineChain() : Pass("fuse_affine_binaryop_chain") {}

    // c.layers: the links in order, then the constants' layers (for the log).
    // c.ints: [link count, x, channels (0: scalar chain)]; c.values: S then T (channels or 1 each).
    MatchResult match(const PassContext& ctx, int j, Candidate& c) const override {
        const Graph& g = ctx.g;
        Link first;
        MatchResult r = read_link(ctx, j, first);
        if (r.kind == MatchResult::None)
            return r;
        c.layers = {j};
        if (r.kind == MatchResult::Blocked)
            return r;
        const int x = first.x;
        // a host before the first link folds it into its weights (fuse_<host>_mul / _add)
        int p = g.producer(x);
        if (p >= 0 && is_affine_host_type(g.layers[p].type) && g.layers[p].tops.size() == 1 &&
            check_intermediate(ctx, p, x).kind == MatchResult::Ok &&
            check_foldable_weights(ctx, p).kind == MatchResult::Ok)
            return MatchResult::none();
        // the chain: follow sole consumers while they are links on the running blob
        std::vector<Link> links = {first};
        for (;;) {
            int y = g.layers[links.back().layer].tops[0];
            if (ctx.is_protected(y) || g.consumer_count(y) != 1)
                break;
            int nxt = g.consumers(y)[0];
            Link l;
            if (read_link(ctx, nxt, l).kind != MatchResult::Ok || l.x != y)
                break;
            links.push_back(l);
        }
        for (size_t k = 1; k < links.size(); k++)
            c.layers.push_back(links[k].layer);
        for (auto& l : links) {
            if (l.split >= 0)
                c.layers.push_back(l.split);
            if (l.memorydata >= 0)
                c.layers.push_back(l.memorydata);
        }
        // per channel or scalar, against x's shape
        const Shape& xs = ctx.shape(x);
        int channels = 0;
        for (auto& l : links) {
            if (l.kshape.total() == 1 && (l.kshape.dims == 1 || (xs.known() && l.kshape.dims <= xs.dims)))
                continue;
            if (!xs.known())
                return MatchResult::blocked("the constant " + l.kshape.str() + " of " + lq(g, l.layer) +
                                            " may be per channel, but the shape of " + bq(g, x) +
                                            " is unknown (give input shapes)");
            int ch = xs.dims == 3 ? xs.c : xs.dims == 1 ? xs.w : 0;
            std::string why;
            if (ch <= 0 || classify_constant_operand(xs, xs.dims, false, ch, l.kshape, why) != Broadcast::PerChannel)
                return MatchResult::blocked("the constant " + l.kshape.str() + " of " + lq(g, l.layer) +
                                            " is not one value per channel of " + bq(g, x) + " " + xs.str());
            channels = ch;
        }
        // at least one layer fewer
        if (channels == 0) {
            if (links.size() < 2)
                return MatchResult::none();
        } else if (links.size() == 1) {
            const Link& l = links[0];
            bool md_goes = l.split < 0 && g.consumer_count(g.layers[l.memorydata].tops[0]) == 1;
            if (!md_goes)
                return MatchResult::blocked("the constant of " + lq(g, j) +
                                            " is shared with other layers: a Scale would not remove a layer");
        }
        // compose in double
        int n = channels == 0 ? 1 : channels;
        std::vector<double> S(n, 1.0), T(n, 0.0);
        for (auto& l : links) {
            for (int o = 0; o < n; o++) {
                double kv = l.k.size() == 1 ? l.k[0] : l.k[o];
                double s = l.times_k ? (l.divide ? 1.0 / kv : kv) : l.ks;
                double t = l.times_k ? 0.0 : l.kt * kv;
                S[o] *= s;
                T[o] = s * T[o] + t;
            }
        }
        for (int o = 0; o < n; o++)
            if (!std::isfinite((float)S[o]) || !std::isfinite((float)T[o]))
                return MatchResult::blocked("the composed scale or shift of channel " + std::to_string(o) +
                                            " is not a finite float");
        if (channels == 0) {
            int ops = (S[0] != 1.0) + (T[0] != 0.0);
            if (ops == 0)
                return MatchResult::blocked("the chain computes x itself (scale 1, shift 0): left as it is");
            if (ops >= (int)links.size())
                return MatchResult::none();
        }
        c.ints = {(int)links.size(), x, channels};
        c.values.assign(S.begin(), S.end());
        c.values.insert(c.values.end(), T.begin(), T.end());
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        const int nlinks = c.ints[0], x = c.ints[1], channels = c.ints[2];
        const int n = channels == 0 ? 1 : channels;
        std::vector<int> links(c.layers.begin(), c.layers.begin() + nlinks);
        // constants each link reads
        std::vector<int> const_blobs;
        for (int k = 0; k < nlinks; k++) {
            const LayerNode& b = g.layers[links[k]];
            if (b.bottoms.size() != 2)
                continue;
            int running = k == 0 ? x : g.layers[links[k - 1]].tops[0];
            const_blobs.push_back(b.bottoms[0] == running ? b.bottoms[1] : b.bottoms[0]);
        }
        const int y = g.layers[links.back()].tops[0];
        std::vector<float> S(c.values.begin(), c.values.begin() + n), T(c.values.begin() + n, c.values.end());
        bool shift = false;
        for (float t : T)
            shift = shift || t != 0.f;
        std::string names;
        for (int li : links)
            names += (names.empty() ? "" : ", ") + g.layers[li].name;

        if (channels > 0) {
            for (int k = 1; k < nlinks; k++)
                g.erase_layer(links[k]);
            LayerNode& sc = g.layers[links[0]];
            sc.type = "Scale";
            sc.params = ParamDict();
            sc.params.set_int(0, channels);
            sc.params.set_int(1, shift ? 1 : 0);
            sc.weights.clear();
            sc.weights.push_back(WeightArray::untagged(S));
            if (shift)
                sc.weights.push_back(WeightArray::untagged(T));
            g.set_bottoms(links[0], {x});
            g.set_tops(links[0], {y});
            detail = std::to_string(nlinks) + " BinaryOp" + (nlinks > 1 ? "s" : "") + " (" + names +
                     ") with per-channel constants became Scale " + sc.name + ": " + std::to_string(channels) +
                     " channels" + (shift ? ", with bias" : "");
        } else {
            // x * S, then + T; each only when it changes something
            std::vector<std::pair<int, float>> ops;
            if (S[0] != 1.f)
                ops.push_back({kMul, S[0]});
            if (T[0] != 0.f)
                ops.push_back({kAdd, T[0]});
            for (int k = (int)ops.size(); k < nlinks; k++)
                g.erase_layer(links[k]);
            int in = x;
            for (size_t k = 0; k < ops.size(); k++) {
                LayerNode& b = g.layers[links[k]];
                b.params = ParamDict();
                b.params.set_int(0, ops[k].first);
                b.params.set_int(1, 1);
                b.params.set_float(2, ops[k].second);
                g.set_bottoms(links[k], {in});
                if (k + 1 == ops.size())
                    g.set_tops(links[k], {y});
                in = g.layers[links[k]].tops[0];
            }
            detail = std::to_string(nlinks) + " scalar BinaryOps (" + names + ") became x";
            if (S[0] != 1.f)
                detail += " * " + fmt(S[0]);
            if (T[0] != 0.f)
                detail += " + " + fmt(T[0]);
        }
        // the constants nothing reads any more
        for (int cb : const_blobs) {
            if (g.consumer_count(cb) != 0 || ctx.is_protected(cb))
                continue;
            int p = g.producer(cb);
            if (p < 0)
                continue;
            if (g.layers[p].type == "Split") {
                auto& tops = g.layers[p].tops;
                for (size_t t = 0; t < tops.size(); t++)
                    if (tops[t] == cb) {
                        g.erase_top(p, t);
                        break;
                    }
                if (!g.layers[p].tops.empty())
                    continue;
                int src = g.layers[p].bottoms[0];
                g.erase_layer(p);
                cb = src;
                p = g.producer(cb);
                if (p < 0 || g.consumer_count(cb) != 0 || ctx.is_protected(cb))
                    continue;
            }
            if (g.layers[p].type == "MemoryData" && !g.layers[p].erased)
                g.erase_layer(p);
        }
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_affine_binaryop_chain() { return std::make_unique<FuseAffineChain>(); }

}  // namespace nnfold
