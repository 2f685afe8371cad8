// fuse_host_reshape_batchnorm
//
//   Before: host -> Reshape/Flatten ... -> BatchNorm bn (or Scale sc)   (host: the Convolution
//           family or InnerProduct; one or more Reshapes between, as exporters write MatMul ->
//           Reshape -> Transpose -> BatchNormalization with a transpose that only moves unit axes)
//   After:  host with the per-channel map folded into its weights; the Reshapes stay (a chain of
//           Reshapes that ends where it started goes with fuse_permute_reshape_chain and
//           eliminate_noop); bn is removed as an identity
//   Math:   Reshape and Flatten keep the dense element order. Element k of the host's output
//           belongs to host channel o(k) (k / (h*w) for a 3D output, k for a 1D one, k % N for a
//           row-wise 2D one) and to bn's channel j(k) = k / size (layers/channel_slices.h). When
//           every element of a host channel has the same bn channel, bn is y = b[j(o)] x + a[j(o)]
//           per host channel: folded as W[o] *= b, bias[o] = bias[o] b + a. BatchNorm: b = slope /
//           sqrt(var + eps), a = bias - slope mean / sqrt(var + eps); Scale: b = scale, a = bias.
//   Conditions: every blob from the host to bn has one consumer and is neither a model output nor
//   kept (each one's values change); the Reshapes keep order (no permute param); the host's
//   output and bn's input shapes are known (at most 2^22 elements); the host's weights are
//   foldable (no fused activation, fp32, not dynamic); bn can go (check_remove_identity); a
//   Reshape sits between (host -> bn directly is fuse_<host>_batchnorm's).
//
// fuse_host_reshape_binaryop
//   Before: host -> Reshape/Flatten ... -> BinaryOp op with a MemoryData constant K (add, sub,
//           mul, div, rsub, rdiv, in a form affine in the host's values: y + K, K + y, y - K,
//           K - y, y * K, K * y, y / K), as ONNX batched MatMul with a constant B and a bias Add
//           imports (Reshape -> row-wise InnerProduct -> Reshape -> BinaryOp with [1,1,N])
//   After:  host with y' = s y + t folded per output channel; op removed as an identity; the
//           MemoryData goes when nothing else reads it
//   Math:   element k of the BinaryOp's input is element k of the host's output (the Reshapes keep
//           order); K's value at k follows ncnn's broadcasting of a same-rank operand (axes of
//           extent 1 repeat; a 1D [n] against 3D runs along c when c == n, else along w). When each
//           host channel sees one value of K, op is per host channel.
//   Conditions: as fuse_host_reshape_batchnorm; K has fp32 data, is read by op directly, is not
//   kept, has op's input rank (or is [n] / one value) with each axis 1 or the input's extent; a
//   divisor has no zero.
#include <cmath>

#include "layers/channel_slices.h"
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

bool order_keeping_reshape(const LayerNode& l) {
    if (l.bottoms.size() != 1 || l.tops.size() != 1)
        return false;
    return l.type == "Flatten" || (l.type == "Reshape" && l.params.get_int(3, 0) == 0);
}

constexpr uint64_t kMaxElements = 1u << 22;

// Walks back from `blob` through up to 8 order-keeping reshapes (their indices, nearest first, go to
// `path`) to the layer that feeds them: that layer when there is at least one reshape and it is an
// affine host with one output, else -1.
int host_behind_reshapes(const Graph& g, int blob, std::vector<int>& path) {
    int p = g.producer(blob);
    while (p >= 0 && order_keeping_reshape(g.layers[p]) && path.size() < 8) {
        path.push_back(p);
        p = g.producer(g.layers[p].bottoms[0]);
    }
    if (path.empty() || p < 0 || !is_affine_host_type(g.layers[p].type) || g.layers[p].tops.size() != 1)
        return -1;
    return p;
}

class FuseHostReshapeBatchNorm : public Pass {
public:
    FuseHostReshapeBatchNorm() : Pass("fuse_host_reshape_batchnorm") {}

    // layers: [bn, reshapes (from bn back), host]; ints: [host, channel size of bn]
    MatchResult match(const PassContext& ctx, int j, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& bn = g.layers[j];
        const bool is_bn = bn.type == "BatchNorm";
        if (!is_bn && !(bn.type == "Scale" && bn.params.get_int(0, 0) > 0))
            return MatchResult::none();
        if (bn.bottoms.size() != 1 || bn.tops.size() != 1)
            return MatchResult::none();
        // back through the reshapes to a host
        std::vector<int> path;
        const int host = host_behind_reshapes(g, bn.bottoms[0], path);
        if (host < 0)
            return MatchResult::none();
        c.layers = {j};
        c.layers.insert(c.layers.end(), path.begin(), path.end());
        c.layers.push_back(host);
        // every blob from the host's output to bn's input changes values
        for (int l : c.layers) {
            if (l == j)
                continue;
            int out = g.layers[l].tops[0];
            NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, l, out));
        }
        NF_RETURN_IF_NOT_MATCHED(check_foldable_weights(ctx, host));
        const size_t nw = is_bn ? 4 : (bn.params.get_int(1, 0) ? 2 : 1);
        if (bn.weights.size() != nw)
            return MatchResult::blocked(lq(g, j) + " has no weights loaded");
        const Shape hs = ctx.shape(g.layers[host].tops[0]), bs = ctx.shape(bn.bottoms[0]);
        if (!hs.known() || !bs.known())
            return MatchResult::blocked("the shapes between " + lq(g, host) + " and " + lq(g, j) +
                                        " are unknown (give input shapes)");
        if (hs.total() != bs.total() || hs.total() > kMaxElements)
            return MatchResult::blocked("the shapes " + hs.str() + " and " + bs.str() + " cannot be checked");
        ChannelSlices cs = channel_slices(bs);
        AffineHost h = affine_host(g.layers[host]);
        int bn_channels = is_bn ? bn.params.get_int(0, 0) : bn.params.get_int(0, 0);
        if ((int)cs.count != bn_channels || cs.size == 0)
            return MatchResult::blocked(lq(g, j) + " has " + std::to_string(bn_channels) + " channels, its input " +
                                        bs.str() + " has " + std::to_string(cs.count));
        for (auto& w : bn.weights)
            if (w.data.size() != (size_t)bn_channels)
                return MatchResult::blocked(lq(g, j) + " has weight arrays of unexpected size");
        // host channel of element k
        const int n = h.num_output;
        uint64_t per = 0;
        int layout = 0;  // 0: channel-major (3D or 1D), 1: row-wise 2D (channel = k % n)
        if (hs.dims == 3 && hs.c == n)
            per = (uint64_t)hs.w * hs.h;
        else if (hs.dims == 1 && hs.w == n)
            per = 1;
        else if (hs.dims == 2 && hs.w == n)
            layout = 1;
        else
            return MatchResult::blocked(lq(g, host) + "'s output " + hs.str() + " does not have its " +
                                        std::to_string(n) + " channels where expected");
        std::vector<int> bn_of(n, -1);
        for (uint64_t k = 0; k < hs.total(); k++) {
            int o = layout ? (int)(k % n) : (int)(k / per);
            int jb = (int)(k / cs.size);
            if (bn_of[o] < 0)
                bn_of[o] = jb;
            else if (bn_of[o] != jb)
                return MatchResult::blocked("output channel " + std::to_string(o) + " of " + lq(g, host) +
                                            " spans several channels of " + lq(g, j) + ": not one value per channel");
        }
        NF_RETURN_IF_NOT_MATCHED(check_remove_identity(ctx, j, bn.bottoms[0], bn.tops[0]));
        c.ints = {host};
        c.ints.insert(c.ints.end(), bn_of.begin(), bn_of.end());
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        const int j = c.layers[0], host = c.ints[0];
        const LayerNode& bn = g.layers[j];
        const int in = bn.bottoms[0], out = bn.tops[0];
        const int n = (int)c.ints.size() - 1;
        std::vector<double> scale(n), shift(n);
        for (int o = 0; o < n; o++) {
            int jb = c.ints[1 + o];
            if (bn.type == "BatchNorm") {
                double slope = bn.weights[0].data[jb], mean = bn.weights[1].data[jb], var = bn.weights[2].data[jb],
                       bias = bn.weights[3].data[jb];
                double sv = std::sqrt(var + (double)bn.params.get_float(1, 0.f));
                scale[o] = slope / sv;
                shift[o] = bias - slope * mean / sv;
            } else {
                scale[o] = bn.weights[0].data[jb];
                shift[o] = bn.weights.size() > 1 ? bn.weights[1].data[jb] : 0.0;
            }
        }
        NF_RETURN_IF_ERROR(fold_affine(g.layers[host], scale, shift));
        detail = "folded " + bn.type + " " + bn.name + " into " + g.layers[host].type + " " + g.layers[host].name +
                 " through " + std::to_string(c.layers.size() - 2) + " reshape(s): " + std::to_string(n) + " channels";
        remove_identity(ctx, j, in, out);
        return Status::ok();
    }
};

// Host channel of each element of the host's output `hs` (n channels), or empty when the
// channels are not where the host puts them.
std::vector<int> host_channel_of(const Shape& hs, int n) {
    std::vector<int> r(hs.total());
    for (uint64_t k = 0; k < hs.total(); k++) {
        if (hs.dims == 3 && hs.c == n)
            r[k] = (int)(k / ((uint64_t)hs.w * hs.h));
        else if (hs.dims == 1 && hs.w == n)
            r[k] = (int)k;
        else if (hs.dims == 2 && hs.w == n)
            r[k] = (int)(k % n);
        else
            return {};
    }
    return r;
}

enum Op { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kRSub = 7, kRDiv = 8 };

class FuseHostReshapeBinaryOp : public Pass {
public:
    FuseHostReshapeBinaryOp() : Pass("fuse_host_reshape_binaryop") {}

    // layers: [op, reshapes, host, memorydata]; ints: [host, side, memorydata]; values: s then t
    MatchResult match(const PassContext& ctx, int j, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& bin = g.layers[j];
        if (bin.type != "BinaryOp" || bin.bottoms.size() != 2 || bin.tops.size() != 1 || bin.params.get_int(1, 0) ||
            bin.bottoms[0] == bin.bottoms[1])
            return MatchResult::none();
        int side = -1, md = -1;
        for (int sd = 0; sd < 2; sd++) {
            int q = g.producer(bin.bottoms[1 - sd]);
            if (q >= 0 && g.layers[q].type == "MemoryData") {
                side = sd;
                md = q;
            }
        }
        if (md < 0)
            return MatchResult::none();
        const int op = bin.params.get_int(0, 0);
        bool times = false, divide = false;
        double ks = 1, kt = 0;
        switch (op) {
        case kAdd: kt = 1; break;
        case kSub: ks = side == 0 ? 1 : -1; kt = side == 0 ? -1 : 1; break;
        case kRSub: ks = side == 0 ? -1 : 1; kt = side == 0 ? 1 : -1; break;
        case kMul: times = true; break;
        case kDiv: if (side != 0) return MatchResult::none(); times = divide = true; break;
        case kRDiv: if (side != 1) return MatchResult::none(); times = divide = true; break;
        default: return MatchResult::none();
        }
        const int x = bin.bottoms[side];
        std::vector<int> path;
        const int host = host_behind_reshapes(g, x, path);
        if (host < 0)
            return MatchResult::none();
        c.layers = {j};
        c.layers.insert(c.layers.end(), path.begin(), path.end());
        c.layers.push_back(host);
        c.layers.push_back(md);
        for (size_t k = 1; k < c.layers.size() - 1; k++) {
            NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, c.layers[k], g.layers[c.layers[k]].tops[0]));
        }
        NF_RETURN_IF_NOT_MATCHED(check_foldable_weights(ctx, host));
        const int kblob = bin.bottoms[1 - side];
        if (ctx.is_protected(kblob))
            return MatchResult::blocked("the constant " + bq(g, kblob) + " is " + ctx.protected_why[kblob]);
        const LayerNode& m = g.layers[md];
        const Shape ksh = memorydata_shape(m);
        if (m.weights.size() != 1 || m.weights[0].storage == WeightStorage::Int8 ||
            m.weights[0].data.size() != ksh.total())
            return MatchResult::blocked("MemoryData " + lq(g, md) + " has no fp32 data loaded");
        const Shape hs = ctx.shape(g.layers[host].tops[0]), xs = ctx.shape(x);
        if (!hs.known() || !xs.known())
            return MatchResult::blocked("the shapes between " + lq(g, host) + " and " + lq(g, j) +
                                        " are unknown (give input shapes)");
        if (hs.total() != xs.total() || hs.total() > kMaxElements)
            return MatchResult::blocked("the shapes " + hs.str() + " and " + xs.str() + " cannot be checked");
        // K's extents against x, innermost first
        int xe[4] = {xs.w, xs.dims >= 2 ? xs.h : 1, xs.dims == 4 ? xs.d : xs.dims == 3 ? xs.c : 1, xs.dims == 4 ? xs.c : 1};
        int ke[4] = {1, 1, 1, 1};
        if (ksh.total() == 1 && ksh.dims == 1) {
        } else if (ksh.dims == 1 && xs.dims == 3 && ksh.w == xs.c) {
            ke[2] = ksh.w;
        } else if (ksh.dims == 1 && ksh.w == xs.w) {
            ke[0] = ksh.w;
        } else if (ksh.dims == xs.dims) {
            ke[0] = ksh.w;
            ke[1] = ksh.dims >= 2 ? ksh.h : 1;
            ke[2] = ksh.dims == 4 ? ksh.d : ksh.dims == 3 ? ksh.c : 1;
            ke[3] = ksh.dims == 4 ? ksh.c : 1;
        } else {
            return MatchResult::blocked("the constant " + ksh.str() + " does not have the rank of " + bq(g, x) + " " +
                                        xs.str());
        }
        for (int a = 0; a < 4; a++)
            if (ke[a] != 1 && ke[a] != xe[a])
                return MatchResult::blocked("the constant " + ksh.str() + " does not broadcast along " + xs.str());
        AffineHost h = affine_host(g.layers[host]);
        const int n = h.num_output;
        std::vector<int> ch = host_channel_of(hs, n);
        if (ch.empty())
            return MatchResult::blocked(lq(g, host) + "'s output " + hs.str() + " does not have its " +
                                        std::to_string(n) + " channels where expected");
        const std::vector<float>& kv = m.weights[0].data;
        std::vector<long> kof(n, -1);
        uint64_t k = 0;
        for (int i3 = 0; i3 < xe[3]; i3++)
            for (int i2 = 0; i2 < xe[2]; i2++)
                for (int i1 = 0; i1 < xe[1]; i1++)
                    for (int i0 = 0; i0 < xe[0]; i0++, k++) {
                        long idx = (ke[0] > 1 ? i0 : 0) +
                                   (long)ke[0] * ((ke[1] > 1 ? i1 : 0) +
                                                  (long)ke[1] * ((ke[2] > 1 ? i2 : 0) + (long)ke[2] * (ke[3] > 1 ? i3 : 0)));
                        int o = ch[k];
                        if (kof[o] < 0)
                            kof[o] = idx;
                        else if (kv[kof[o]] != kv[idx])
                            return MatchResult::blocked("output channel " + std::to_string(o) + " of " + lq(g, host) +
                                                        " meets several values of the constant " + ksh.str());
                    }
        std::vector<double> S(n), T(n);
        for (int o = 0; o < n; o++) {
            double v = kof[o] < 0 ? 0.0 : kv[kof[o]];
            if (divide && v == 0.0)
                return MatchResult::blocked(lq(g, j) + " divides by a constant that has zeros");
            S[o] = times ? (divide ? 1.0 / v : v) : ks;
            T[o] = times ? 0.0 : kt * v;
        }
        NF_RETURN_IF_NOT_MATCHED(check_remove_identity(ctx, j, x, bin.tops[0]));
        c.ints = {host, side, md};
        c.values.assign(S.begin(), S.end());
        c.values.insert(c.values.end(), T.begin(), T.end());
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        const int j = c.layers[0], host = c.ints[0], side = c.ints[1], md = c.ints[2];
        const int x = g.layers[j].bottoms[side], kblob = g.layers[j].bottoms[1 - side], out = g.layers[j].tops[0];
        const size_t n = c.values.size() / 2;
        std::vector<double> S(c.values.begin(), c.values.begin() + n), T(c.values.begin() + n, c.values.end());
        NF_RETURN_IF_ERROR(fold_affine(g.layers[host], S, T));
        detail = "folded BinaryOp " + g.layers[j].name + " (constant " + g.layers[md].name + " " +
                 memorydata_shape(g.layers[md]).str() + ") into " + g.layers[host].type + " " + g.layers[host].name +
                 " through " + std::to_string(c.layers.size() - 3) + " reshape(s): " + std::to_string(n) + " channels";
        g.erase_bottom(j, 1 - side);
        remove_identity(ctx, j, x, out);
        if (g.consumer_count(kblob) == 0 && !ctx.is_protected(kblob))
            g.erase_layer(md);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_host_reshape_binaryop() { return std::make_unique<FuseHostReshapeBinaryOp>(); }

std::unique_ptr<Pass> make_fuse_host_reshape_batchnorm() { return std::make_unique<FuseHostReshapeBatchNorm>(); }

}  // namespace nnfold
