// The ONNX-level rewrite driver: each enabled rewrite in order, to its fixed point, every rewrite
// logged.
#include "io/onnx/onnx_rewrite.h"

namespace nnfold {
namespace onnx {

const Tensor* RewriteContext::constant(const std::string& value) const {
    auto c = consts.find(value);
    if (c != consts.end())
        return &c->second;
    for (auto& nd : nodes)
        if (nd.op_type == "Constant" && nd.outputs.size() == 1 && nd.outputs[0] == value) {
            const Attribute* a = nd.attr("value");
            if (a && a->t.size() == 1)
                return &a->t[0];
            const Attribute* f = nd.attr("value_float");
            if (f) {
                value_float_ = Tensor();
                value_float_.dtype = kFloat;
                value_float_.f = {f->f};
                return &value_float_;
            }
        }
    return nullptr;
}

bool RewriteContext::scalar(const std::string& value, double& v) const {
    const Tensor* t = constant(value);
    if (!t || t->numel() != 1 || !t->has_data())
        return false;
    v = t->at(0);
    return true;
}

// One rewrite to its fixed point. A match is applied as soon as it is found; the node graph is
// then rebuilt and the walk starts again from the first anchor (or, for a rewrite that visits
// each anchor once, goes on with the next).
static void run_one(const OnnxRewrite& rw, RewriteContext& ctx, std::vector<OnnxRewriteRecord>& log) {
    std::vector<std::string> inputs;
    for (auto& kv : ctx.input_shapes)
        inputs.push_back(kv.first);
    for (int a = 0;; a++) {
        int count = rw.anchor() == OnnxRewrite::Anchor::Node ? (int)ctx.nodes.size() : (int)inputs.size();
        if (a >= count)
            break;
        RewriteMatch m;
        if (!rw.match(ctx, a, m))
            continue;
        OnnxRewriteRecord r;
        r.pass = rw.name();
        r.nodes = m.labels;
        for (int n : m.nodes)
            r.nodes.push_back(node_label(ctx.nodes[n]));
        rw.rewrite(ctx, m, r.detail);
        log.push_back(std::move(r));
        ctx.graph = NodeGraph(ctx.nodes, ctx.model);
        if (rw.revisit())
            a = -1;
    }
}

void run_onnx_rewrites(RewriteContext& ctx, const OnnxImportOptions& opt, std::vector<OnnxRewriteRecord>& log) {
    run_one(*make_fuse_gelu(), ctx, log);
    run_one(*make_fuse_space_to_batch(), ctx, log);
    run_one(*make_fuse_qkv_attention(), ctx, log);
    run_one(*make_merge_transpose_pair(), ctx, log);
    if (opt.absorb_input_transpose)
        run_one(*make_absorb_input_transpose(), ctx, log);
}

}  // namespace onnx
}  // namespace nnfold
