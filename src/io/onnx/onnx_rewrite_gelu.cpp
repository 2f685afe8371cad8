// fuse_gelu: the Erf form of GELU, as PyTorch exports nn.GELU()
//
//   Before: s = x / sqrt(2)  (or x * (1/sqrt(2)), either operand order)
//           e = Erf(s);  a = e + 1  (either order)
//           y = (x * a) * 0.5  |  (a * 0.5) * x  |  (x * 0.5) * a   (operands of each Mul in either order)
//   After:  y = Gelu(x)  (ONNX opset 20's operator, translated to ncnn GELU); the final node
//           becomes the Gelu, the others are left unread (the driver's live-node walk drops them).
//   Conditions: the divisor is sqrt(2) (or the factor 1/sqrt(2)) within 1e-4, as exporters round
//     it; the added constant is exactly 1 and the halving factor exactly 0.5; each intermediate
//     (e, a, the first product, x * 0.5) has this pattern as its only reader and is not a graph
//     output, so nothing else still needs it.
//   Math: GELU(x) = x * Phi(x) = x * 0.5 * (1 + erf(x / sqrt(2))); the association orders are the
//     same product. ncnn's GELU (fast_gelu 0) computes 0.5 * x * erfc(-x / sqrt(2)), the same value.
#include <cmath>

#include "core/strings.h"
#include "io/onnx/onnx_rewrite.h"

namespace nnfold {
namespace onnx {

namespace {

bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol; }

// The operand of a two-input node that is not `v` (the first when both are).
std::string other_input(const Node& n, const std::string& v) {
    if (n.inputs.size() != 2)
        return "";
    return n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
}

class FuseGelu : public OnnxRewrite {
public:
    FuseGelu() : OnnxRewrite("fuse_gelu") {}

    bool match(const RewriteContext& ctx, int ei, RewriteMatch& m) const override {
        const Node& erf = ctx.nodes[ei];
        if (erf.op_type != "Erf" || erf.inputs.size() != 1 || erf.outputs.size() != 1)
            return false;
        auto pit = ctx.graph.producer.find(erf.inputs[0]);
        if (pit == ctx.graph.producer.end())
            return false;
        std::string x;
        if (!scaled_input(ctx, ctx.nodes[pit->second], x))
            return false;
        int ai, mi;
        double c;
        if (!ctx.graph.only_use(erf.outputs[0], ai))
            return false;
        const Node& add = ctx.nodes[ai];
        if (add.op_type != "Add" || add.inputs.size() != 2 || !ctx.scalar(other_input(add, erf.outputs[0]), c) ||
            c != 1.0 || !ctx.graph.only_use(add.outputs[0], mi))
            return false;
        const Node& m1 = ctx.nodes[mi];
        if (m1.op_type != "Mul" || m1.inputs.size() != 2)
            return false;
        m.nodes = {ei, pit->second, ai};
        m.value = x;
        return halved_product(ctx, mi, other_input(m1, add.outputs[0]), x, m);
    }

    void rewrite(RewriteContext& ctx, const RewriteMatch& m, std::string& detail) const override {
        Node& f = ctx.nodes[m.target];
        f.op_type = "Gelu";
        f.domain.clear();
        f.inputs = {m.value};
        f.attrs.clear();
        detail = "x * 0.5 * (1 + erf(x / sqrt(2))) on " + quote(m.value) + " -> Gelu " + quote(node_label(f));
    }

private:
    // x from x / sqrt(2), x * sqrt(0.5) or sqrt(0.5) * x.
    static bool scaled_input(const RewriteContext& ctx, const Node& scale, std::string& x) {
        double c;
        if (scale.inputs.size() != 2)
            return false;
        if (scale.op_type == "Div" && ctx.scalar(scale.inputs[1], c) && near(c, std::sqrt(2.0), 1e-4))
            x = scale.inputs[0];
        else if (scale.op_type == "Mul" && ctx.scalar(scale.inputs[1], c) && near(c, std::sqrt(0.5), 1e-4))
            x = scale.inputs[0];
        else if (scale.op_type == "Mul" && ctx.scalar(scale.inputs[0], c) && near(c, std::sqrt(0.5), 1e-4))
            x = scale.inputs[1];
        else
            return false;
        return true;
    }

    // The rest of x * 0.5 * (1 + erf): the Mul `mi` reads (1 + erf) and `other`. Completes m.nodes
    // and m.target.
    static bool halved_product(const RewriteContext& ctx, int mi, const std::string& other, const std::string& x,
                               RewriteMatch& m) {
        const Node& m1 = ctx.nodes[mi];
        double c;
        int m2i, hi;
        if (other == x || (ctx.scalar(other, c) && c == 0.5)) {
            // (x * (1 + erf)) * 0.5, or ((1 + erf) * 0.5) * x
            if (!ctx.graph.only_use(m1.outputs[0], m2i))
                return false;
            const Node& m2 = ctx.nodes[m2i];
            std::string h = other_input(m2, m1.outputs[0]);
            bool ok = m2.op_type == "Mul" && (other == x ? ctx.scalar(h, c) && c == 0.5 : h == x);
            if (!ok)
                return false;
            m.nodes.push_back(mi);
            m.nodes.push_back(m2i);
            m.target = m2i;
            return true;
        }
        // (x * 0.5) * (1 + erf)
        auto hp = ctx.graph.producer.find(other);
        if (hp == ctx.graph.producer.end() || !ctx.graph.only_use(other, hi))
            return false;
        const Node& half = ctx.nodes[hp->second];
        if (half.op_type != "Mul" || half.inputs.size() != 2)
            return false;
        std::string hx = half.inputs[0], hc = half.inputs[1];
        if (!(hx == x && ctx.scalar(hc, c) && c == 0.5))
            std::swap(hx, hc);
        if (!(hx == x && ctx.scalar(hc, c) && c == 0.5))
            return false;
        m.nodes.push_back(hp->second);
        m.nodes.push_back(mi);
        m.target = mi;
        return true;
    }
};

}  // namespace

std::unique_ptr<OnnxRewrite> make_fuse_gelu() { return std::make_unique<FuseGelu>(); }

}  // namespace onnx
}  // namespace nnfold
