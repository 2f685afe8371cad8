// absorb_input_transpose: an NHWC model input that the graph itself turns into NCHW, as tf2onnx
// exports TensorFlow models (OnnxImportOptions::absorb_input_transpose, on by default)
//
//   Before: x [N,H,W,C] -> elementwise preprocessing (Relu, Sub, Mul, ... with constant operands)
//           -> Transpose(perm=0,3,1,2) on every path
//   After:  x is taken as [N,C,H,W] (the ncnn input is [C,H,W]); the Transposes become Identity;
//           each per-channel constant operand [..., C] is replaced by a copy shaped [C,1,1]
//           (name "<constant>_nchw"); the IoMap entry records layout NHWC with perm (0,3,1,2), so
//           io_to_ncnn transposes the caller's NHWC data once at the boundary.
//   Conditions: x is 4-D and not yet absorbed; every path from x reaches a Transpose(0,3,1,2)
//     through nodes that are layout-free (the unary and binary elementwise operators below, one
//     output each) and no value on the way is a graph output; every other operand of those nodes
//     is an initializer that is a scalar or a vector along the last axis (all leading dims 1, last
//     dim 1 or C), or a value the walk also reaches from x; at least one Transpose is reached.
//   Math: an elementwise op commutes with a permutation of axes when its constant operands are
//     permuted the same way: ([1,1,1,C] broadcasting over NHWC) = ([C,1,1] over CHW) after
//     Transpose(0,3,1,2). A value that reaches the outputs unpermuted would change layout, hence
//     the condition that every path ends in a Transpose.
//   Each input is visited once: after absorbing, its Transposes are Identity nodes that a second
//   walk would pass through to whatever follows.
#include <algorithm>
#include <set>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_rewrite.h"

namespace nnfold {
namespace onnx {

namespace {

const std::set<std::string>& layout_free_unary() {
    static const std::set<std::string> s = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "HardSigmoid",
                                            "HardSwish", "Abs", "Neg", "Sqrt", "Exp", "Log", "Erf", "Clip",
                                            "Identity", "Gelu"};
    return s;
}

const std::set<std::string>& layout_free_binary() {
    static const std::set<std::string> s = {"Add", "Sub", "Mul", "Div", "Pow", "Min", "Max"};
    return s;
}

bool is_nchw_transpose(const Node& n) {
    std::vector<int64_t> perm;
    return n.op_type == "Transpose" && get_perm(n, perm) && perm == std::vector<int64_t>{0, 3, 1, 2};
}

// A constant operand that broadcasts the same way after the permutation once reshaped: rank at
// most 4, leading dims 1, last dim 1 or `channels`.
bool per_channel_or_scalar(const std::vector<int64_t>& d, int64_t channels) {
    if (d.size() > 4)
        return false;
    for (size_t q = 0; q + 1 < d.size(); q++)
        if (d[q] != 1)
            return false;
    return d.empty() || d.back() == 1 || d.back() == channels;
}

void push_unique(std::vector<int>& v, int x) {
    if (std::find(v.begin(), v.end(), x) == v.end())
        v.push_back(x);
}

// The other operands of elementwise node `n` reached through value `v`: each a constant that
// fits, or a runtime value the walk has seen or still has to visit (else the layouts would mix).
bool operands_fit(const RewriteContext& ctx, const Node& n, const std::string& v, const std::set<std::string>& seen,
                  const std::vector<std::string>& work, int64_t channels) {
    for (const std::string& x : n.inputs) {
        if (x.empty() || seen.count(x) || x == v)
            continue;
        auto ct = ctx.consts.find(x);
        if (ct == ctx.consts.end()) {
            if (std::find(work.begin(), work.end(), x) == work.end())
                return false;
            continue;
        }
        if (!per_channel_or_scalar(ct->second.dims, channels))
            return false;
    }
    return true;
}

// Walks every path from input `name`: false as soon as one leaves the layout-free region.
bool walk_to_transposes(const RewriteContext& ctx, const std::string& name, int64_t channels, std::vector<int>& chain,
                        std::vector<int>& transposes) {
    std::vector<std::string> work = {name};
    std::set<std::string> seen;
    while (!work.empty()) {
        std::string v = work.back();
        work.pop_back();
        if (!seen.insert(v).second)
            continue;
        if (ctx.graph.graph_outputs.count(v))
            return false;
        auto it = ctx.graph.consumers.find(v);
        if (it == ctx.graph.consumers.end())
            continue;
        for (int ni : it->second) {
            const Node& n = ctx.nodes[ni];
            if (is_nchw_transpose(n)) {
                push_unique(transposes, ni);
                continue;
            }
            if (!layout_free_unary().count(n.op_type) && !layout_free_binary().count(n.op_type))
                return false;
            if (!operands_fit(ctx, n, v, seen, work, channels) || n.outputs.size() != 1)
                return false;
            push_unique(chain, ni);
            work.push_back(n.outputs[0]);
        }
    }
    return true;
}

class AbsorbInputTranspose : public OnnxRewrite {
public:
    AbsorbInputTranspose() : OnnxRewrite("absorb_input_transpose") {}

    Anchor anchor() const override { return Anchor::Input; }
    bool revisit() const override { return false; }

    bool match(const RewriteContext& ctx, int a, RewriteMatch& m) const override {
        auto in = std::next(ctx.input_shapes.begin(), a);
        const std::string& name = in->first;
        const std::vector<int64_t>& shape = in->second;
        if (shape.size() != 4 || ctx.absorbed.count(name))
            return false;
        std::vector<int> chain, transposes;
        if (!walk_to_transposes(ctx, name, shape[3], chain, transposes) || transposes.empty())
            return false;
        m.value = name;
        m.labels = {name};
        m.nodes = transposes;
        m.nodes.insert(m.nodes.end(), chain.begin(), chain.end());
        m.ints = {(int)transposes.size()};
        return true;
    }

    void rewrite(RewriteContext& ctx, const RewriteMatch& m, std::string& detail) const override {
        size_t n_transposes = (size_t)m.ints[0];
        int reshaped = 0;
        for (size_t k = n_transposes; k < m.nodes.size(); k++)
            for (auto& x : ctx.nodes[m.nodes[k]].inputs)
                reshaped += reshape_per_channel(ctx, x);
        for (size_t k = 0; k < n_transposes; k++) {
            ctx.nodes[m.nodes[k]].op_type = "Identity";
            ctx.nodes[m.nodes[k]].attrs.clear();
        }
        std::vector<int64_t>& shape = ctx.input_shapes[m.value];
        std::vector<int64_t> declared = shape;
        shape = {declared[0], declared[3], declared[1], declared[2]};
        ctx.absorbed[m.value] = {0, 3, 1, 2};
        detail = "input " + quote(m.value) + " " + dims_str(declared) + " (NHWC) taken as " + dims_str(shape) + "; " +
                 std::to_string(n_transposes) + " Transpose(0,3,1,2) -> Identity, " + std::to_string(reshaped) +
                 " per-channel constant" + (reshaped == 1 ? "" : "s") + " reshaped to [C,1,1]";
    }

private:
    // Points operand `x` at a [C,1,1] copy when it is a per-channel constant; 1 when it did.
    // Scalar-like constants (last dim 1) broadcast the same in NCHW and stay.
    static int reshape_per_channel(RewriteContext& ctx, std::string& x) {
        auto ct = ctx.consts.find(x);
        if (x.empty() || ct == ctx.consts.end())
            return 0;
        const std::vector<int64_t>& d = ct->second.dims;
        if (d.empty() || d.back() == 1)
            return 0;
        std::string nn = x + "_nchw";
        if (!ctx.consts.count(nn)) {
            Tensor t = ct->second;
            t.name = nn;
            t.dims = {d.back(), 1, 1};
            ctx.consts[nn] = std::move(t);
        }
        x = nn;
        return 1;
    }
};

}  // namespace

std::unique_ptr<OnnxRewrite> make_absorb_input_transpose() { return std::make_unique<AbsorbInputTranspose>(); }

}  // namespace onnx
}  // namespace nnfold
