// merge_transpose_pair: two Transposes in a row, as tf2onnx leaves them around layout changes
//
//   Before: t = Transpose(x, perm=p);  y = Transpose(t, perm=q)
//   After:  y = Transpose(x, perm=r) with r[k] = p[q[k]], or y = Identity(x) when r is the
//           identity; the first Transpose becomes an Identity with no output (unread, dropped).
//   Conditions: both nodes carry a perm of the same length, every q[k] indexes p, the first has
//     one output and t has the second as its only reader and is not a graph output.
//   Math: y[i] = t[i o q] = x[i o q o p], i.e. y[..., k, ...] takes axis p[q[k]] of x.
#include "core/strings.h"
#include "io/onnx/onnx_rewrite.h"

namespace nnfold {
namespace onnx {

namespace {

std::string perm_str(const std::vector<int64_t>& p) {
    std::string s = "(";
    for (size_t k = 0; k < p.size(); k++)
        s += (k ? "," : "") + std::to_string(p[k]);
    return s + ")";
}

class MergeTransposePair : public OnnxRewrite {
public:
    MergeTransposePair() : OnnxRewrite("merge_transpose_pair") {}

    bool match(const RewriteContext& ctx, int i, RewriteMatch& m) const override {
        const Node& a = ctx.nodes[i];
        std::vector<int64_t> p, q;
        int j;
        if (a.op_type != "Transpose" || a.outputs.size() != 1 || !get_perm(a, p))
            return false;
        if (!ctx.graph.only_use(a.outputs[0], j) || ctx.nodes[j].op_type != "Transpose" ||
            !get_perm(ctx.nodes[j], q) || q.size() != p.size())
            return false;
        m.perm.assign(q.size(), 0);
        for (size_t k = 0; k < q.size(); k++) {
            if (q[k] < 0 || q[k] >= (int64_t)p.size())
                return false;
            m.perm[k] = p[q[k]];
        }
        m.nodes = {i, j};
        m.target = j;
        return true;
    }

    void rewrite(RewriteContext& ctx, const RewriteMatch& m, std::string& detail) const override {
        Node& a = ctx.nodes[m.nodes[0]];
        Node& b = ctx.nodes[m.target];
        std::vector<int64_t> p, q;
        get_perm(a, p);
        get_perm(b, q);
        bool identity = true;
        for (size_t k = 0; k < m.perm.size(); k++)
            identity = identity && m.perm[k] == (int64_t)k;
        b.inputs[0] = a.inputs[0];
        if (identity) {
            b.op_type = "Identity";
            b.attrs.clear();
        } else {
            for (auto& at : b.attrs)
                if (at.name == "perm")
                    at.ints = m.perm;
        }
        a.outputs[0].clear();  // unread now
        a.op_type = "Identity";
        detail = "Transpose" + perm_str(p) + " then Transpose" + perm_str(q) + " -> " +
                 (identity ? std::string("Identity") : "Transpose" + perm_str(m.perm)) + " " + quote(node_label(b));
    }
};

}  // namespace

std::unique_ptr<OnnxRewrite> make_merge_transpose_pair() { return std::make_unique<MergeTransposePair>(); }

}  // namespace onnx
}  // namespace nnfold
