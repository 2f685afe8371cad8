// fuse_qkv_attention: multi-head self-attention written with one qkv projection and a 5-D permute,
// as timm-style ViTs and text recognizers export it, becomes ncnn's MultiHeadAttention layer
// (docs/shapes-and-files.md: a recognised attention block stays within ncnn's layout)
//
//   Before: qkv = MatMul(x, Wqkv) + bqkv                      x [1,N,Ein], Wqkv [Ein,3E], bqkv [3E]
//           t = Transpose(Reshape(qkv, [1,N,3,h,d]), perm 2,0,3,1,4)        [3,1,h,N,d], E = h*d
//           q, k, v = Split(t, axis 0) + Squeeze(axis 0), or Gather(t, 0 / 1 / 2, axis 0)
//           a = Softmax(MatMul(q, Transpose(k, 0,1,3,2)) * s (or / s'), axis -1)
//           z = Reshape(Transpose(MatMul(a, v), 0,2,1,3), [1,N,E])
//           [y = MatMul(z, Wo) + bo]                                 Wo [E,Ein], bo [Ein]
//   After:  y (or z) = nnfold.MultiHeadAttention(x, Wqkv, bqkv[, Wo, bo]; num_heads h, scale s)
//           (an internal node the importer translates into one ncnn MultiHeadAttention layer on
//           x viewed as [N, Ein]: q=k=v=x, Wq/Wk/Wv the three column blocks of Wqkv, the output
//           projection Wo, bo, or the identity when the block has none); the other nodes lose
//           their inputs and outputs (dropped).
//   Conditions: the batch is 1 (ncnn's layer is batch-free); every intermediate has one reader
//     and is not a graph output; Wqkv, bqkv (and Wo, bo) are constants of the shapes above; the
//     Reshape targets are constants with exactly these values (-1 allowed for N); the scale is a
//     one-element constant; Softmax is over the last axis; the output width equals Ein (ncnn's
//     layer returns qdim columns), so without a projection E = Ein.
//   Math: ncnn MultiHeadAttention computes per head softmax((x Wq^T + bq) * s (x Wk^T + bk)^T)
//     (x Wv^T + bv), concatenates the heads and applies Wo: the same as the ONNX graph with the
//     scale moved from the scores onto Q (the sums differ only in rounding: within 1e-4).
#include <cstdint>
#include <cstring>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_rewrite.h"

namespace nnfold {
namespace onnx {

namespace {

using Ints = std::vector<int64_t>;

// The only reader of `v` (not a graph output), when it has op type `op`.
bool single_reader(const RewriteContext& ctx, const std::string& v, const char* op, int& j) {
    return ctx.graph.only_use(v, j) && ctx.nodes[j].op_type == op && !ctx.nodes[j].outputs.empty();
}

// The producer of `v`, when it has op type `op` and `v` has one reader and is not a graph output.
bool producer_of(const RewriteContext& ctx, const std::string& v, const char* op, int& j) {
    auto it = ctx.graph.producer.find(v);
    int r;
    if (it == ctx.graph.producer.end() || ctx.nodes[it->second].op_type != op || !ctx.graph.only_use(v, r))
        return false;
    j = it->second;
    return true;
}

bool const_ints(const RewriteContext& ctx, const std::string& v, Ints& out) {
    const Tensor* t = ctx.constant(v);
    if (!t || !t->has_data() || t->is_float())
        return false;
    out = t->i;
    return true;
}

bool perm_is(const Node& n, const Ints& p) {
    Ints q;
    return n.op_type == "Transpose" && get_perm(n, q) && q == p;
}

// An integer attribute or its default.
int64_t attr_int(const Node& n, const char* name, int64_t def) {
    const Attribute* a = n.attr(name);
    return a ? a->i : def;
}

class FuseQkvAttention : public OnnxRewrite {
public:
    FuseQkvAttention() : OnnxRewrite("fuse_qkv_attention") {}

    // Anchored at the 5-D Reshape. m.nodes: the anchor, then every node that goes; m.value: x;
    // m.perm: {h, has_projection, the scale's float bits}; m.ints: indices of MatMul(qkv), the
    // Add, the projection MatMul and Add (-1 when absent), the final node, the bias's input slot
    // in the Add; m.target: the final node.
    bool match(const RewriteContext& ctx, int ri, RewriteMatch& m) const override {
        const Node& r = ctx.nodes[ri];
        Ints s5;
        if (r.op_type != "Reshape" || r.inputs.size() < 2 || r.outputs.size() != 1 || !const_ints(ctx, r.inputs[1], s5) ||
            s5.size() != 5 || s5[0] != 1 || s5[2] != 3 || s5[3] <= 0 || s5[4] <= 0 || (s5[1] <= 0 && s5[1] != -1) ||
            s5[3] > (1 << 16) || s5[4] > (1 << 16))
            return false;
        const int64_t h = s5[3], d = s5[4], E = h * d;
        // qkv = MatMul(x, W) + b
        int add, mm;
        if (!producer_of(ctx, r.inputs[0], "Add", add))
            return false;
        const Node& an = ctx.nodes[add];
        if (an.inputs.size() != 2)
            return false;
        int bias_at = ctx.constant(an.inputs[0]) ? 0 : 1;
        const Tensor* bqkv = ctx.constant(an.inputs[bias_at]);
        if (!bqkv || !bqkv->is_float() || bqkv->numel() != (uint64_t)(3 * E) ||
            !producer_of(ctx, an.inputs[1 - bias_at], "MatMul", mm))
            return false;
        const Node& mn = ctx.nodes[mm];
        const Tensor* wqkv = mn.inputs.size() == 2 ? ctx.constant(mn.inputs[1]) : nullptr;
        if (!wqkv || !wqkv->is_float() || wqkv->dims.size() != 2 || wqkv->dims[1] != 3 * E || ctx.constant(mn.inputs[0]))
            return false;
        const int64_t Ein = wqkv->dims[0];
        // the permute and the three parts
        int t;
        if (!single_reader(ctx, r.outputs[0], "Transpose", t) || !perm_is(ctx.nodes[t], {2, 0, 3, 1, 4}))
            return false;
        std::vector<int> gone = {mm, add, t};
        std::string part[3];
        if (!parts(ctx, ctx.nodes[t].outputs[0], part, gone))
            return false;
        // scores = MatMul(q, Transpose(k)) * s; a = Softmax(scores)
        int kt, qk, sc, sm, av, ot, rz;
        if (!single_reader(ctx, part[1], "Transpose", kt) || !perm_is(ctx.nodes[kt], {0, 1, 3, 2}) ||
            !single_reader(ctx, ctx.nodes[kt].outputs[0], "MatMul", qk) || ctx.nodes[qk].inputs.size() != 2 ||
            ctx.nodes[qk].inputs[0] != part[0] || ctx.nodes[qk].inputs[1] != ctx.nodes[kt].outputs[0])
            return false;
        int q_reader;
        if (!ctx.graph.only_use(part[0], q_reader) || q_reader != qk)
            return false;
        const std::string& scores = ctx.nodes[qk].outputs[0];
        if (!ctx.graph.only_use(scores, sc))
            return false;
        const Node& sn = ctx.nodes[sc];
        double s = 0;
        if ((sn.op_type != "Mul" && sn.op_type != "Div") || sn.inputs.size() != 2)
            return false;
        if (sn.op_type == "Mul") {
            int at = sn.inputs[0] == scores ? 1 : 0;
            if (sn.inputs[1 - at] != scores || !ctx.scalar(sn.inputs[at], s))
                return false;
        } else {
            double div;
            if (sn.inputs[0] != scores || !ctx.scalar(sn.inputs[1], div) || div == 0.0)
                return false;
            s = 1.0 / div;
        }
        if (!single_reader(ctx, sn.outputs[0], "Softmax", sm))
            return false;
        int64_t ax = attr_int(ctx.nodes[sm], "axis", -1);
        if (ax != -1 && ax != 3)
            return false;
        if (!single_reader(ctx, ctx.nodes[sm].outputs[0], "MatMul", av) || ctx.nodes[av].inputs.size() != 2 ||
            ctx.nodes[av].inputs[0] != ctx.nodes[sm].outputs[0] || ctx.nodes[av].inputs[1] != part[2])
            return false;
        int v_reader;
        if (!ctx.graph.only_use(part[2], v_reader) || v_reader != av)
            return false;
        if (!single_reader(ctx, ctx.nodes[av].outputs[0], "Transpose", ot) || !perm_is(ctx.nodes[ot], {0, 2, 1, 3}) ||
            !single_reader(ctx, ctx.nodes[ot].outputs[0], "Reshape", rz))
            return false;
        Ints s3;
        if (ctx.nodes[rz].inputs.size() < 2 || !const_ints(ctx, ctx.nodes[rz].inputs[1], s3) || s3.size() != 3 ||
            s3[0] != 1 || s3[2] != E || (s3[1] != s5[1] && s3[1] != -1 && s5[1] != -1))
            return false;
        gone.insert(gone.end(), {kt, qk, sc, sm, av, ot, rz});
        // an output projection to absorb: MatMul(z, Wo) + bo with Wo [E, Ein]
        int pm = -1, pa = -1, last = rz;
        int j;
        if (single_reader(ctx, ctx.nodes[rz].outputs[0], "MatMul", j) && ctx.nodes[j].inputs.size() == 2 &&
            ctx.nodes[j].inputs[0] == ctx.nodes[rz].outputs[0]) {
            const Tensor* wo = ctx.constant(ctx.nodes[j].inputs[1]);
            int k;
            if (wo && wo->is_float() && wo->dims == Ints{E, Ein} && single_reader(ctx, ctx.nodes[j].outputs[0], "Add", k) &&
                ctx.nodes[k].inputs.size() == 2) {
                const Node& pn = ctx.nodes[k];
                int at = pn.inputs[0] == ctx.nodes[j].outputs[0] ? 1 : 0;
                const Tensor* bo = ctx.constant(pn.inputs[at]);
                if (pn.inputs[1 - at] == ctx.nodes[j].outputs[0] && bo && bo->is_float() && bo->numel() == (uint64_t)Ein) {
                    pm = j;
                    pa = k;
                    last = k;
                    gone.insert(gone.end(), {pm, pa});
                }
            }
        }
        if (pm < 0 && E != Ein)
            return false;  // ncnn's layer returns Ein columns
        // the fused node takes the anchor's place: what it reads must be there before it
        std::vector<std::string> reads = {ctx.nodes[mm].inputs[0], ctx.nodes[mm].inputs[1], an.inputs[bias_at]};
        if (pm >= 0) {
            const Node& pn = ctx.nodes[pa];
            reads.push_back(ctx.nodes[pm].inputs[1]);
            reads.push_back(pn.inputs[pn.inputs[0] == ctx.nodes[pm].outputs[0] ? 1 : 0]);
        }
        for (auto& v : reads) {
            auto p = ctx.graph.producer.find(v);
            if (p != ctx.graph.producer.end() && p->second > ri)
                return false;
        }
        m.nodes = {ri};
        m.nodes.insert(m.nodes.end(), gone.begin(), gone.end());
        m.value = ctx.nodes[mm].inputs[0];
        float sf = (float)s;
        uint32_t bits;
        std::memcpy(&bits, &sf, 4);
        m.perm = {h, pm >= 0 ? 1 : 0, (int64_t)bits};  // the scale travels as its float bits
        m.ints = {mm, add, pm, pa, last, bias_at};
        m.target = last;
        return true;
    }

    void rewrite(RewriteContext& ctx, const RewriteMatch& m, std::string& detail) const override {
        const Node& mm = ctx.nodes[m.ints[0]];
        const Node& add = ctx.nodes[m.ints[1]];
        Node fused;
        fused.name = ctx.nodes[m.nodes[0]].name;
        fused.op_type = kFusedAttentionOp;
        fused.inputs = {m.value, mm.inputs[1], add.inputs[m.ints[5]]};
        if (m.perm[1]) {
            const Node& pm = ctx.nodes[m.ints[2]];
            const Node& pa = ctx.nodes[m.ints[3]];
            fused.inputs.push_back(pm.inputs[1]);
            fused.inputs.push_back(pa.inputs[pa.inputs[0] == pm.outputs[0] ? 1 : 0]);
        }
        fused.outputs = {ctx.nodes[m.target].outputs[0]};
        Attribute heads, scale;
        heads.name = "num_heads";
        heads.type = kAttrInt;
        heads.i = m.perm[0];
        scale.name = "scale";
        scale.type = kAttrFloat;
        uint32_t bits = (uint32_t)m.perm[2];
        std::memcpy(&scale.f, &bits, 4);
        fused.attrs = {heads, scale};
        for (size_t k = 1; k < m.nodes.size(); k++) {
            Node& n = ctx.nodes[m.nodes[k]];
            n.op_type = "Identity";
            n.attrs.clear();
            n.inputs.clear();
            n.outputs.assign(n.outputs.size(), std::string());
        }
        // the anchor (after the qkv projection, before every other node of the block) becomes
        // the fused node, so the order stays topological
        ctx.nodes[m.nodes[0]] = fused;
        detail = "qkv attention with " + std::to_string(m.perm[0]) + " heads" +
                 (m.perm[1] ? std::string(" and its output projection") : std::string()) + " -> MultiHeadAttention " +
                 quote(fused.outputs[0]);
    }

private:
    // q, k, v from the permuted [3,1,h,N,d] tensor: Split(axis 0) + three Squeeze(axis 0), or
    // three Gather(axis 0) of the scalar indices 0, 1, 2.
    static bool parts(const RewriteContext& ctx, const std::string& t, std::string part[3], std::vector<int>& gone) {
        auto it = ctx.graph.consumers.find(t);
        if (it == ctx.graph.consumers.end() || ctx.graph.graph_outputs.count(t))
            return false;
        const std::vector<int>& readers = it->second;
        if (readers.size() == 1 && ctx.nodes[readers[0]].op_type == "Split") {
            const Node& sp = ctx.nodes[readers[0]];
            if (attr_int(sp, "axis", 0) != 0 || sp.outputs.size() != 3)
                return false;
            if (sp.inputs.size() >= 2 && !sp.inputs[1].empty()) {
                Ints sizes;
                if (!const_ints(ctx, sp.inputs[1], sizes) || sizes != Ints{1, 1, 1})
                    return false;
            }
            gone.push_back(readers[0]);
            for (int k = 0; k < 3; k++) {
                int sq;
                if (!single_reader(ctx, sp.outputs[k], "Squeeze", sq))
                    return false;
                const Node& qn = ctx.nodes[sq];
                Ints axes;
                bool ok = qn.inputs.size() >= 2 ? const_ints(ctx, qn.inputs[1], axes)
                                                : (qn.attr("axes") ? (axes = qn.attr("axes")->ints, true) : false);
                if (!ok || axes != Ints{0})
                    return false;
                part[k] = qn.outputs[0];
                gone.push_back(sq);
            }
            return true;
        }
        if (readers.size() != 3)
            return false;
        bool seen[3] = {false, false, false};
        for (int g : readers) {
            const Node& gn = ctx.nodes[g];
            double idx;
            const Tensor* it2 = gn.inputs.size() == 2 ? ctx.constant(gn.inputs[1]) : nullptr;
            if (gn.op_type != "Gather" || gn.outputs.size() != 1 || attr_int(gn, "axis", 0) != 0 || !it2 ||
                !it2->dims.empty() || !ctx.scalar(gn.inputs[1], idx) || idx < 0 || idx > 2 || seen[(int)idx])
                return false;
            seen[(int)idx] = true;
            part[(int)idx] = gn.outputs[0];
            gone.push_back(g);
        }
        return true;
    }
};

// The fused node's translator: one ncnn MultiHeadAttention on x viewed as [N, Ein].
Status op_fused_attention(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    const Tensor *w, *b, *wo = nullptr, *bo = nullptr;
    NF_RETURN_IF_ERROR(im.need_const(1, "qkv weight", w));
    NF_RETURN_IF_ERROR(im.need_const(2, "qkv bias", b));
    if (im.has_in(3)) {
        NF_RETURN_IF_ERROR(im.need_const(3, "output weight", wo));
        NF_RETURN_IF_ERROR(im.need_const(4, "output bias", bo));
    }
    const int64_t heads = im.attr_i("num_heads", 0);
    if (x.is_const || x.shape.size() != 3 || x.shape[0] != 1 || w->dims.size() != 2 || heads <= 0 ||
        w->dims[0] != x.shape[2] || w->dims[1] % 3 != 0 || (w->dims[1] / 3) % heads != 0)
        return internal_error(im.where() + ": fused attention operands do not fit");
    const int64_t N = x.shape[1], Ein = x.shape[2], E = w->dims[1] / 3;
    if (E * Ein > INT32_MAX || N > INT32_MAX)
        return im.unsupported_here("attention weights of " + std::to_string(E * Ein) + " values per projection are too large");
    std::vector<std::vector<float>> arrays;
    for (int part = 0; part < 3; part++) {
        // ncnn's q/k/v weight is [E][Ein] (row e is output e): W^T of the column block
        std::vector<float> wt((size_t)(E * Ein)), bias((size_t)E);
        for (int64_t e = 0; e < E; e++) {
            for (int64_t i = 0; i < Ein; i++)
                wt[(size_t)(e * Ein + i)] = (float)w->at((size_t)(i * 3 * E + part * E + e));
            bias[(size_t)e] = (float)b->at((size_t)(part * E + e));
        }
        arrays.push_back(std::move(wt));
        arrays.push_back(std::move(bias));
    }
    std::vector<float> owt((size_t)(Ein * E), 0.f), ob((size_t)Ein, 0.f);
    for (int64_t o = 0; o < Ein; o++) {
        for (int64_t e = 0; e < E; e++)
            owt[(size_t)(o * E + e)] = wo ? (float)wo->at((size_t)(e * Ein + o)) : (o == e ? 1.f : 0.f);
        if (bo)
            ob[(size_t)o] = (float)bo->at((size_t)o);
    }
    arrays.push_back(std::move(owt));
    arrays.push_back(std::move(ob));
    int xb, rb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    Shape s2 = Shape::d2((int)Ein, (int)N);
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, s2, rb));
    ParamDict pd;
    pd.set_int(0, (int)E);
    pd.set_int(1, (int)heads);
    pd.set_int(2, (int)(E * Ein));
    pd.set_int(3, (int)Ein);
    pd.set_int(4, (int)Ein);
    pd.set_float(6, im.attr_f("scale", 1.f));
    int top = im.temp_blob(s2);
    int l = im.emit("MultiHeadAttention", "", {rb}, {top}, pd);
    NF_RETURN_IF_ERROR(im.set_weights(l, std::move(arrays)));
    (void)n;
    return im.define_runtime(0, top, {1, N, Ein});
}

}  // namespace

std::unique_ptr<OnnxRewrite> make_fuse_qkv_attention() { return std::make_unique<FuseQkvAttention>(); }

void register_attention_ops(std::map<std::string, OpFn>& t) { t[kFusedAttentionOp] = op_fused_attention; }

}  // namespace onnx
}  // namespace nnfold
