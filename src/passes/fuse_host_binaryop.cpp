// A Convolution-family or InnerProduct layer followed by a BinaryOp with a constant operand.
//
// fuse_{convolution,convolutiondepthwise,deconvolution,deconvolutiondepthwise,innerproduct}_mul
// fuse_{...}_add
//   Before: host -> BinaryOp op (other operand: a scalar param, or a MemoryData, directly or
//           through one output of a Split)
//   After:  host (writing op's output); the MemoryData (and Split output) go when nothing else
//           reads them
//   ncnn's BinaryOp (params 0 op_type, 1 with_scalar, 2 b): op_type 0 add, 1 sub, 2 mul, 3 div,
//   7 rsub (b - a), 8 rdiv. With y the host's output and K the constant, the _mul passes take
//   y * K, K * y and y / K; the _add passes take y + K, K + y, y - K, K - y (y rsub K, K rsub y).
//   Each is y' = s * y + t per output channel, folded as W[o] *= s[o], bias[o] = bias[o] s[o] + t[o].
//   Conditions:
//   - host's output has one consumer (op) and is neither a model output nor kept;
//   - host has no fused activation, no int8 weights, no dynamic weights;
//   - K is constant: op has with_scalar, or its other input is a MemoryData's output (possibly
//     through a Split) with fp32 data, not kept; when the MemoryData's output is kept, op is not
//     its last reader (the MemoryData would stay with an unread output: a new model output);
//   - K is one value for every element of an output channel and leaves the output shape alone,
//     by ncnn's broadcasting (docs/developer-guide/binaryop-broadcasting.md: a lower-rank operand
//     aligns with the OUTER axes): for a 3D output [c,h,w] K may be [1], [c], [c,1] or [c,1,1];
//     for a 1D output [c] only [1] or [c]; for a row-wise InnerProduct output [h,c] only [1] or
//     [1,c]. When the output shape is unknown, only what is per channel for every shape the host
//     could produce ([1] always; [c] for the Convolution family);
//   - for y / K, K has no zero; every folded value is finite.
//   ncnnoptimize takes only a MemoryData [c] (or [1,1,c] in ncnn's w,h,c order for add) as the
//   second input and ignores the fused activation and the consumer count.
#include <algorithm>
#include <cmath>

#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

enum Op { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kRSub = 7, kRDiv = 8 };

// Where the constant operand comes from.
struct ConstSource {
    enum Kind { Scalar, Memory, SplitMemory } kind = Scalar;
    int memorydata = -1;
    int split = -1;
    int split_top = -1;  // index into the Split's tops
    int blob = -1;       // the blob the BinaryOp reads (MemoryData or Split output)
};

// Blocked unless bottom `b` of a BinaryOp is a constant we can read.
MatchResult find_constant(const PassContext& ctx, int blob, ConstSource& src) {
    const Graph& g = ctx.g;
    int p = g.producer(blob);
    src.blob = blob;
    if (p >= 0 && g.layers[p].type == "Split" && g.layers[p].bottoms.size() == 1) {
        int q = g.producer(g.layers[p].bottoms[0]);
        if (q >= 0 && g.layers[q].type == "MemoryData") {
            src.kind = ConstSource::SplitMemory;
            src.split = p;
            src.memorydata = q;
            for (size_t k = 0; k < g.layers[p].tops.size(); k++)
                if (g.layers[p].tops[k] == blob)
                    src.split_top = (int)k;
        }
    } else if (p >= 0 && g.layers[p].type == "MemoryData") {
        src.kind = ConstSource::Memory;
        src.memorydata = p;
    }
    if (src.memorydata < 0)
        return MatchResult::blocked("the other operand " + bq(g, blob) + " is not a constant" +
                                    (p >= 0 ? " (it comes from " + g.layers[p].type + " " + lq(g, p) + ")" : ""));
    if (ctx.is_protected(blob))
        return MatchResult::blocked("the constant " + bq(g, blob) + " is " + ctx.protected_why[blob]);
    NF_RETURN_IF_NOT_MATCHED(check_kept_constant_keeps_a_reader(ctx, src.memorydata, src.split));
    const LayerNode& md = g.layers[src.memorydata];
    Shape s = memorydata_shape(md);
    if (md.weights.size() != 1 || md.weights[0].storage == WeightStorage::Int8 ||
        md.weights[0].data.size() != s.total())
        return MatchResult::blocked("MemoryData " + lq(g, src.memorydata) + " has no fp32 data loaded");
    return MatchResult::ok();
}

// y' = s * y + t from op(a, b) where y is input `host_side` (0 or 1) and K the other; false when
// the op is not affine in y (or not this family's).
bool affine_form(int op, int host_side, bool mul_family, double& ks, double& kt_sign, bool& divide) {
    // s = ks (or K when ks is NaN: "multiply by K"), t = kt_sign * K
    divide = false;
    if (mul_family) {
        kt_sign = 0;
        if (op == kMul) {
            ks = NAN;
            return true;
        }
        if ((op == kDiv && host_side == 0) || (op == kRDiv && host_side == 1)) {
            ks = NAN;
            divide = true;
            return true;
        }
        return false;
    }
    switch (op) {
    case kAdd: ks = 1; kt_sign = 1; return true;
    case kSub: ks = host_side == 0 ? 1 : -1; kt_sign = host_side == 0 ? -1 : 1; return true;
    case kRSub: ks = host_side == 0 ? -1 : 1; kt_sign = host_side == 0 ? 1 : -1; return true;
    default: return false;
    }
}

const char* op_name(int op) {
    switch (op) {
    case kAdd: return "Add";
    case kSub: return "Sub";
    case kMul: return "Mul";
    case kDiv: return "Div";
    case kRSub: return "RSub";
    case kRDiv: return "RDiv";
    default: return "BinaryOp";
    }
}

class FuseHostBinaryOp : public Pass {
public:
    FuseHostBinaryOp(const std::string& name, std::vector<std::string> types, bool mul_family)
        : Pass(name), types_(std::move(types)), mul_(mul_family) {}

    // ints: [host_side, source kind, memorydata, split, split_top]
    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& host = g.layers[i];
        if (std::find(types_.begin(), types_.end(), host.type) == types_.end() || host.tops.size() != 1)
            return MatchResult::none();
        int y = host.tops[0];
        int j = -1, side = -1;
        for (int k : g.consumers(y)) {
            const LayerNode& l = g.layers[k];
            if (l.type != "BinaryOp" || l.tops.size() != 1)
                continue;
            int op = l.params.get_int(0, 0);
            int s = l.bottoms[0] == y ? 0 : 1;
            double ks = 1, kt = 0;
            bool div = false;
            if (!affine_form(op, s, mul_, ks, kt, div))
                continue;
            j = k;
            side = s;
            break;
        }
        if (j < 0)
            return MatchResult::none();
        const LayerNode& bin = g.layers[j];
        c.layers = {i, j};
        MatchResult r;
        AffineHost h = affine_host(host);

        ConstSource src;
        Shape kshape;
        int with_scalar = bin.params.get_int(1, 0);
        if (with_scalar) {
            if (bin.bottoms.size() != 1)
                return MatchResult::blocked(lq(g, j) + " has with_scalar but " + std::to_string(bin.bottoms.size()) +
                                            " inputs");
            kshape = Shape::d1(1);
        } else {
            if (bin.bottoms.size() != 2)
                return MatchResult::blocked(lq(g, j) + " does not have two inputs");
            if (bin.bottoms[0] == bin.bottoms[1])
                return MatchResult::blocked(lq(g, j) + " combines " + bq(g, y) + " with itself");
            r = find_constant(ctx, bin.bottoms[1 - side], src);
            if (r.kind != MatchResult::Ok)
                return MatchResult::blocked(lq(g, j) + ": " + r.reason);
            kshape = memorydata_shape(g.layers[src.memorydata]);
            if (src.kind == ConstSource::SplitMemory)
                c.layers.push_back(src.split);
            c.layers.push_back(src.memorydata);
        }
        std::string why;
        Broadcast bc = classify_constant_operand(ctx.shape(y), host_output_dims(ctx, i), !h.conv_family, h.num_output,
                                                kshape, why);
        if (bc == Broadcast::None)
            return MatchResult::blocked(lq(g, j) + ": " + why);
        int op = bin.params.get_int(0, 0);
        double ks = 1, kt = 0;
        bool div = false;
        affine_form(op, side, mul_, ks, kt, div);
        if (div) {
            std::vector<float> k = with_scalar ? std::vector<float>{bin.params.get_float(2, 0.f)}
                                               : g.layers[src.memorydata].weights[0].data;
            for (float v : k)
                if (v == 0.f)
                    return MatchResult::blocked(lq(g, j) + " divides by a constant that has zeros");
        }
        // the operand is a constant that folds: now the conditions on the host
        NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, i, y));
        NF_RETURN_IF_NOT_MATCHED(check_foldable_weights(ctx, i));
        c.ints = {side, with_scalar ? -1 : (int)src.kind, src.memorydata, src.split, src.split_top};
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int hi = c.layers[0], bi = c.layers[1];
        LayerNode& host = g.layers[hi];
        const LayerNode& bin = g.layers[bi];
        int side = c.ints[0], kind = c.ints[1], md = c.ints[2], split = c.ints[3], split_top = c.ints[4];
        AffineHost h = affine_host(host);
        const int n = h.num_output;
        std::vector<float> k;
        std::string kdesc;
        if (kind < 0) {
            k = {bin.params.get_float(2, 0.f)};
            kdesc = "scalar " + fmt(k[0]);
        } else {
            k = g.layers[md].weights[0].data;
            kdesc = "MemoryData " + g.layers[md].name + " " + memorydata_shape(g.layers[md]).str();
        }
        int op = bin.params.get_int(0, 0);
        double ks = 1, kt = 0;
        bool div = false;
        affine_form(op, side, mul_, ks, kt, div);
        std::vector<double> scale(n), shift(n);
        for (int o = 0; o < n; o++) {
            double kv = k.size() == 1 ? k[0] : k[o];
            scale[o] = std::isnan(ks) ? (div ? 1.0 / kv : kv) : ks;
            shift[o] = kt * kv;
        }
        NF_RETURN_IF_ERROR(fold_affine(host, scale, shift));
        detail = std::string("folded ") + op_name(op) + " by " + kdesc + " (" + bin.name + ") into " + host.type + " " +
                 host.name + ": " + std::to_string(n) + " channels";
        absorb_consumer(ctx, hi, bi);
        // drop the constant's path when nothing else reads it
        if (kind == ConstSource::SplitMemory) {
            g.erase_top(split, split_top);
            if (g.layers[split].tops.empty())
                g.erase_layer(split);
        }
        if (kind >= 0) {
            int mblob = g.layers[md].tops[0];
            if (g.consumer_count(mblob) == 0 && !ctx.is_protected(mblob))
                g.erase_layer(md);
        }
        return Status::ok();
    }

private:
    std::vector<std::string> types_;
    bool mul_;
};

}  // namespace

std::unique_ptr<Pass> make_fuse_host_binaryop(const std::string& name, std::vector<std::string> types, bool mul_family) {
    return std::make_unique<FuseHostBinaryOp>(name, std::move(types), mul_family);
}

}  // namespace nnfold
