// fuse_space_to_batch: SpaceToBatchND + Conv + BatchToSpaceND, as TensorFlow exporters write a
// dilated convolution, spelled in ONNX as Pad / Reshape / Transpose through 6-D tensors (issue 19)
//
//   Before (NCHW):  x [N,C,H,W] -> Pad(spatial pads pt,pl,pb,pr, zeros; optional)
//                   -> Reshape [N,C,Hb,bh,Wb,bw] -> Transpose(3,5,0,1,2,4) -> Reshape [bh*bw*N,C,Hb,Wb]
//                   -> Conv(stride 1, dilation 1, pads qt,ql,qb,qr)
//                   -> Reshape [bh,bw,N,O,h,w] -> Transpose(2,3,4,0,5,1) -> Reshape [N,O,h*bh,w*bw]
//                   -> Slice(spatial crops ct,cl,cb,cr; optional) -> y
//           (NHWC): the same on [N,H,W,C] (Reshape [N,Hb,bh,Wb,bw,C], Transpose(2,4,0,1,3,5), ...,
//                   Reshape [bh,bw,N,h,w,O], Transpose(2,3,0,4,1,5)), the Conv between
//                   Transpose(0,3,1,2) and Transpose(0,2,3,1) as tf2onnx writes it
//   After:  y = Conv(x, dilations bh,bw, pads pt+bh*qt-ct, pl+bw*ql-cl, pb+bh*qb-cb, pr+bw*qr-cr)
//           (NHWC: between the same two Transposes); the other nodes lose their outputs (unread,
//           dropped), so no 6-D tensor is left and a following BatchNorm meets its Conv.
//   Conditions: every intermediate value has one reader and is not a graph output; the Reshape
//     targets are constants with the exact values above (the two block sizes equal), the
//     permutations exact; the Pad is constant mode with value 0 and pads only the spatial axes;
//     the Conv has a constant 4-D weight, strides and dilations 1, explicit or VALID pads; the
//     Slice has step 1 and crops only the spatial axes; every resulting pad is >= 0; h and w are
//     the Conv's output size on [Hb, Wb].
//   Math: batch element (i, j, n) of SpaceToBatch holds xp[n, :, i + bh*u, j + bw*v] (xp the padded
//     input); a stride-1 convolution on it gives sum_a,c W[a,c] xp[i + bh*(u + a - qt), ...], and
//     BatchToSpace writes that to row bh*u + i: so the output row p reads xp rows p + bh*(a - qt),
//     a convolution of dilation bh with pad bh*qt on xp. Padding xp by pt and cropping ct rows of
//     the result shifts the window by pt - ct: one pad of pt + bh*qt - ct. Zero padding of xp and
//     of each batch element are both zeros of the same convolution, so the values are the same
//     sums, in the same order.
#include <algorithm>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_rewrite.h"

namespace nnfold {
namespace onnx {

namespace {

using Ints = std::vector<int64_t>;

struct Layout {
    bool nhwc;
    Ints perm_in, perm_out;
};

const Layout kNchw = {false, {3, 5, 0, 1, 2, 4}, {2, 3, 4, 0, 5, 1}};
const Layout kNhwc = {true, {2, 4, 0, 1, 3, 5}, {2, 3, 0, 4, 1, 5}};

bool ints_of(const RewriteContext& ctx, const std::string& v, Ints& out) {
    const Tensor* t = ctx.constant(v);
    if (!t || !t->has_data() || t->is_float())
        return false;
    out = t->i;
    return true;
}

// An ints attribute, or `def` when the node does not have it.
void attr_ints_or(const Node& n, const char* name, Ints& out, const Ints& def) {
    const Attribute* a = n.attr(name);
    out = a ? a->ints : def;
}

// The single reader of `v` with op type `op`.
bool next_node(const RewriteContext& ctx, const std::string& v, const char* op, int& j) {
    return ctx.graph.only_use(v, j) && ctx.nodes[j].op_type == op && ctx.nodes[j].outputs.size() >= 1;
}

// The producer of `v` with op type `op`, whose output `v` has that node as its only reader.
bool prev_node(const RewriteContext& ctx, const std::string& v, const char* op, int reader, int& j) {
    auto it = ctx.graph.producer.find(v);
    int r;
    if (it == ctx.graph.producer.end() || ctx.nodes[it->second].op_type != op || !ctx.graph.only_use(v, r) || r != reader)
        return false;
    j = it->second;
    return true;
}

bool is_transpose(const Node& n, const Ints& perm) {
    Ints p;
    return n.op_type == "Transpose" && get_perm(n, p) && p == perm;
}

// A Reshape whose target is the constant `want` (a -1 in place of one entry accepted).
bool reshape_to(const RewriteContext& ctx, const Node& n, const Ints& want) {
    Ints spec;
    if (n.op_type != "Reshape" || n.inputs.size() < 2 || !ints_of(ctx, n.inputs[1], spec) || spec.size() != want.size())
        return false;
    int minus = 0;
    for (size_t k = 0; k < spec.size(); k++) {
        if (spec[k] == -1 && ++minus == 1)
            continue;
        if (spec[k] != want[k])
            return false;
    }
    return true;
}

// The 6-D target of the first Reshape: [N,C,Hb,bh,Wb,bw] (NCHW) or [N,Hb,bh,Wb,bw,C] (NHWC).
struct Geometry {
    int64_t N = 0, C = 0, Hb = 0, bh = 0, Wb = 0, bw = 0;
};

class FuseSpaceToBatch : public OnnxRewrite {
public:
    FuseSpaceToBatch() : OnnxRewrite("fuse_space_to_batch") {}

    // m.nodes: conv, then the nodes that go (pad?, r1, t1, r2, [ta], [tb], r3, t2, r4, slice?);
    // m.value: x; m.perm: the Conv's new pads (t, l, b, r) then dilations (h, w); m.ints[0]: 1
    // for NHWC; m.ints[1], m.ints[2]: the indices (into nodes) of the first and last node kept
    // beside the Conv (NHWC's Transposes), -1 for NCHW; m.target: the node that produced y.
    bool match(const RewriteContext& ctx, int ci, RewriteMatch& m) const override {
        const Node& conv = ctx.nodes[ci];
        if (conv.op_type != "Conv" || conv.inputs.size() < 2 || conv.outputs.size() != 1)
            return false;
        for (const Layout* lay : {&kNchw, &kNhwc})
            if (match_layout(ctx, ci, *lay, m))
                return true;
        return false;
    }

    void rewrite(RewriteContext& ctx, const RewriteMatch& m, std::string& detail) const override {
        Node& conv = ctx.nodes[m.nodes[0]];
        bool nhwc = m.ints[0] != 0;
        const std::string final_name = ctx.nodes[m.target].outputs[0];
        int first = nhwc ? m.ints[1] : m.nodes[0];
        int last = nhwc ? m.ints[2] : m.nodes[0];
        ctx.nodes[first].inputs[0] = m.value;
        std::vector<Attribute> attrs;
        for (auto& a : conv.attrs)
            if (a.name != "pads" && a.name != "dilations" && a.name != "strides" && a.name != "auto_pad")
                attrs.push_back(a);
        Attribute pads, dil;
        pads.name = "pads";
        pads.type = kAttrInts;
        pads.ints = {m.perm[0], m.perm[1], m.perm[2], m.perm[3]};
        dil.name = "dilations";
        dil.type = kAttrInts;
        dil.ints = {m.perm[4], m.perm[5]};
        attrs.push_back(pads);
        attrs.push_back(dil);
        conv.attrs = attrs;
        for (size_t k = 1; k < m.nodes.size(); k++) {
            Node& n = ctx.nodes[m.nodes[k]];
            n.op_type = "Identity";
            n.attrs.clear();
            n.inputs.clear();  // no longer a reader of x (walks from x, absorb_input_transpose's, see none)
            n.outputs.assign(n.outputs.size(), std::string());
        }
        ctx.nodes[last].outputs[0] = final_name;
        detail = std::string(nhwc ? "NHWC" : "NCHW") + " SpaceToBatch/BatchToSpace block " + std::to_string(m.perm[4]) +
                 "x" + std::to_string(m.perm[5]) + " around " + quote(node_label(conv)) + " -> Conv dilations (" +
                 std::to_string(m.perm[4]) + "," + std::to_string(m.perm[5]) + ") pads (" + std::to_string(m.perm[0]) +
                 "," + std::to_string(m.perm[1]) + "," + std::to_string(m.perm[2]) + "," + std::to_string(m.perm[3]) + ")";
    }

private:
    bool match_layout(const RewriteContext& ctx, int ci, const Layout& lay, RewriteMatch& m) const {
        const Node& conv = ctx.nodes[ci];
        // --- backwards: [ta] <- r2 <- t1 <- r1 <- [pad] <- x
        int ta = -1, r2, t1, r1, pad = -1;
        std::string in = conv.inputs[0];
        int reader = ci;
        if (lay.nhwc) {
            if (!prev_node(ctx, in, "Transpose", ci, ta) || !is_transpose(ctx.nodes[ta], {0, 3, 1, 2}))
                return false;
            in = ctx.nodes[ta].inputs[0];
            reader = ta;
        }
        if (!prev_node(ctx, in, "Reshape", reader, r2) || !prev_node(ctx, ctx.nodes[r2].inputs[0], "Transpose", r2, t1) ||
            !is_transpose(ctx.nodes[t1], lay.perm_in) ||
            !prev_node(ctx, ctx.nodes[t1].inputs[0], "Reshape", t1, r1))
            return false;
        Ints s6;
        if (ctx.nodes[r1].inputs.size() < 2 || !ints_of(ctx, ctx.nodes[r1].inputs[1], s6) || s6.size() != 6)
            return false;
        for (int64_t v : s6)
            if (v <= 0 || v > (int64_t(1) << 24))
                return false;
        Geometry g;
        if (lay.nhwc)
            g = {s6[0], s6[5], s6[1], s6[2], s6[3], s6[4]};
        else
            g = {s6[0], s6[1], s6[2], s6[3], s6[4], s6[5]};
        if (g.bh * g.bw > (int64_t(1) << 40) / g.N)
            return false;  // a hostile size: the products below stay far from overflowing
        Ints want2 = lay.nhwc ? Ints{g.bh * g.bw * g.N, g.Hb, g.Wb, g.C} : Ints{g.bh * g.bw * g.N, g.C, g.Hb, g.Wb};
        if (!reshape_to(ctx, ctx.nodes[r2], want2))
            return false;
        std::string x = ctx.nodes[r1].inputs[0];
        int64_t pt = 0, pl = 0, pb = 0, pr = 0;
        auto pit = ctx.graph.producer.find(x);
        if (pit != ctx.graph.producer.end() && ctx.nodes[pit->second].op_type == "Pad") {
            int r;
            if (!ctx.graph.only_use(x, r))
                return false;  // the padded tensor is read elsewhere too
            pad = pit->second;
            if (!pad_amounts(ctx, ctx.nodes[pad], lay, pt, pl, pb, pr))
                return false;
            x = ctx.nodes[pad].inputs[0];
        }
        // --- the Conv
        const Tensor* w = ctx.constant(conv.inputs[1]);
        if (!w || w->dims.size() != 4)
            return false;
        Ints strides, dil, cpads;
        attr_ints_or(conv, "strides", strides, {1, 1});
        attr_ints_or(conv, "dilations", dil, {1, 1});
        attr_ints_or(conv, "pads", cpads, {0, 0, 0, 0});
        const Attribute* ap = conv.attr("auto_pad");
        if (ap && ap->s != "NOTSET" && ap->s != "VALID")
            return false;
        if (ap && ap->s == "VALID")
            cpads = {0, 0, 0, 0};
        if (strides != Ints{1, 1} || dil != Ints{1, 1} || cpads.size() != 4)
            return false;
        for (int64_t v : cpads)
            if (v < 0 || v > (int64_t(1) << 24))
                return false;
        int64_t O = w->dims[0], kh = w->dims[2], kw = w->dims[3];
        int64_t h = g.Hb + cpads[0] + cpads[2] - (kh - 1), wo = g.Wb + cpads[1] + cpads[3] - (kw - 1);
        if (h <= 0 || wo <= 0)
            return false;
        // --- forwards: [tb] -> r3 -> t2 -> r4 -> [slice]
        std::string out = conv.outputs[0];
        int tb = -1, r3, t2, r4, slice = -1;
        if (lay.nhwc) {
            if (!next_node(ctx, out, "Transpose", tb) || !is_transpose(ctx.nodes[tb], {0, 2, 3, 1}))
                return false;
            out = ctx.nodes[tb].outputs[0];
        }
        if (!next_node(ctx, out, "Reshape", r3) || !next_node(ctx, ctx.nodes[r3].outputs[0], "Transpose", t2) ||
            !is_transpose(ctx.nodes[t2], lay.perm_out) || !next_node(ctx, ctx.nodes[t2].outputs[0], "Reshape", r4))
            return false;
        Ints want3 = lay.nhwc ? Ints{g.bh, g.bw, g.N, h, wo, O} : Ints{g.bh, g.bw, g.N, O, h, wo};
        Ints want4 = lay.nhwc ? Ints{g.N, h * g.bh, wo * g.bw, O} : Ints{g.N, O, h * g.bh, wo * g.bw};
        if (!reshape_to(ctx, ctx.nodes[r3], want3) || !reshape_to(ctx, ctx.nodes[r4], want4))
            return false;
        int end = r4;
        int64_t ct = 0, cl = 0, cb = 0, cr = 0;
        int s;
        if (ctx.graph.only_use(ctx.nodes[r4].outputs[0], s) && ctx.nodes[s].op_type == "Slice") {
            slice = s;
            if (!crop_amounts(ctx, ctx.nodes[s], lay, want4, ct, cl, cb, cr))
                return false;
            end = s;
        }
        int64_t nt = pt + g.bh * cpads[0] - ct, nl = pl + g.bw * cpads[1] - cl;
        int64_t nb = pb + g.bh * cpads[2] - cb, nr = pr + g.bw * cpads[3] - cr;
        if (nt < 0 || nl < 0 || nb < 0 || nr < 0)
            return false;
        m.nodes = {ci};
        for (int k : {pad, r1, t1, r2, r3, t2, r4, slice})
            if (k >= 0)
                m.nodes.push_back(k);
        m.value = x;
        m.perm = {nt, nl, nb, nr, g.bh, g.bw};
        m.ints = {lay.nhwc ? 1 : 0, ta, tb};
        m.target = end;
        return true;
    }

    // Pad on the spatial axes only, constant zeros.
    static bool pad_amounts(const RewriteContext& ctx, const Node& p, const Layout& lay, int64_t& t, int64_t& l,
                            int64_t& b, int64_t& r) {
        const Attribute* mode = p.attr("mode");
        if (mode && mode->s != "constant")
            return false;
        Ints pads;
        if (p.inputs.size() >= 2 && !p.inputs[1].empty()) {
            if (!ints_of(ctx, p.inputs[1], pads))
                return false;
            if (p.inputs.size() >= 3 && !p.inputs[2].empty()) {
                double v;
                if (!ctx.scalar(p.inputs[2], v) || v != 0.0)
                    return false;
            }
            if (p.inputs.size() >= 4 && !p.inputs[3].empty())
                return false;  // opset 18 axes: not the exporters' form
        } else {
            const Attribute* a = p.attr("pads");
            const Attribute* v = p.attr("value");
            if (!a || (v && v->f != 0.f))
                return false;
            pads = a->ints;
        }
        if (pads.size() != 8)
            return false;
        int ah = lay.nhwc ? 1 : 2, aw = ah + 1;
        for (int k = 0; k < 4; k++)
            if (k != ah && k != aw && (pads[k] != 0 || pads[k + 4] != 0))
                return false;
        t = pads[ah];
        l = pads[aw];
        b = pads[ah + 4];
        r = pads[aw + 4];
        const int64_t cap = int64_t(1) << 24;  // keeps the pad arithmetic far from overflowing
        return t >= 0 && l >= 0 && b >= 0 && r >= 0 && t <= cap && l <= cap && b <= cap && r <= cap;
    }

    // Slice with step 1 on the spatial axes of a tensor of shape `dims`: the rows and columns
    // cut at each end.
    static bool crop_amounts(const RewriteContext& ctx, const Node& s, const Layout& lay, const Ints& dims, int64_t& t,
                             int64_t& l, int64_t& b, int64_t& r) {
        Ints starts, ends, axes, steps;
        if (s.inputs.size() >= 3) {
            if (!ints_of(ctx, s.inputs[1], starts) || !ints_of(ctx, s.inputs[2], ends))
                return false;
            if (s.inputs.size() >= 4 && !s.inputs[3].empty() && !ints_of(ctx, s.inputs[3], axes))
                return false;
            if (s.inputs.size() >= 5 && !s.inputs[4].empty() && !ints_of(ctx, s.inputs[4], steps))
                return false;
        } else {
            const Attribute* a = s.attr("starts");
            const Attribute* e = s.attr("ends");
            if (!a || !e)
                return false;
            starts = a->ints;
            ends = e->ints;
            attr_ints_or(s, "axes", axes, {});
        }
        if (axes.empty())
            for (size_t k = 0; k < starts.size(); k++)
                axes.push_back((int64_t)k);
        if (starts.size() != ends.size() || axes.size() != starts.size() || (!steps.empty() && steps.size() != starts.size()))
            return false;
        int ah = lay.nhwc ? 1 : 2, aw = ah + 1;
        Ints cut_begin(4, 0), cut_end(4, 0);
        for (size_t k = 0; k < axes.size(); k++) {
            int64_t a = axes[k] < 0 ? axes[k] + 4 : axes[k];
            if (a < 0 || a > 3 || (!steps.empty() && steps[k] != 1))
                return false;
            int64_t d = dims[a];
            int64_t st = starts[k] < 0 ? starts[k] + d : starts[k];
            int64_t en = ends[k] < 0 ? ends[k] + d : ends[k];
            st = std::max<int64_t>(0, std::min(st, d));
            en = std::max<int64_t>(0, std::min(en, d));
            if (en <= st)
                return false;
            cut_begin[a] = st;
            cut_end[a] = d - en;
        }
        for (int a = 0; a < 4; a++)
            if (a != ah && a != aw && (cut_begin[a] || cut_end[a]))
                return false;
        t = cut_begin[ah];
        l = cut_begin[aw];
        b = cut_end[ah];
        r = cut_end[aw];
        return true;
    }
};

}  // namespace

std::unique_ptr<OnnxRewrite> make_fuse_space_to_batch() { return std::make_unique<FuseSpaceToBatch>(); }

}  // namespace onnx
}  // namespace nnfold
