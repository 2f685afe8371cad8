// Control flow: If. Exporters emit an If for checks whose condition is a constant once the input
// shapes are known (torch's `if x.shape[-1] % 2:`), so the importer folds the condition and
// translates the taken branch's nodes in place of the If; an If whose condition depends on input
// values is a clear error naming the node (nnfold's graphs have no control flow).
//
// A branch is a sub-graph whose nodes may read values of the enclosing graphs by name. Those
// outer-scope reads are appended to the If's inputs before the graph is sorted (append_outer_refs),
// so the values a branch reads are computed before it, count as used, and are not removed by the
// ONNX-level rewrites. The branch's own values keep their names: ONNX requires every value name of
// a graph and its sub-graphs to be distinct (only sibling branches may repeat names, and only one
// of them is taken), and a name defined twice is an invalid_model error here.
#include <algorithm>
#include <set>

#include "core/strings.h"
#include "io/onnx/onnx_graph.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

// Names a sub-graph reads from enclosing scopes: what its nodes (and their own sub-graphs) read
// or it outputs, minus what it defines. Recursion is bounded by the decoder's kMaxGraphDepth.
void free_names(const SubGraph& g, std::set<std::string>& out) {
    std::set<std::string> defined, used;
    for (auto& t : g.initializers)
        defined.insert(t.name);
    for (auto& v : g.inputs)
        defined.insert(v.name);
    for (auto& n : g.nodes) {
        for (auto& o : n.outputs)
            defined.insert(o);
        for (auto& x : n.inputs)
            used.insert(x);
        for (auto& a : n.attrs)
            for (auto& sg : a.graphs)
                free_names(*sg, used);
    }
    for (auto& v : g.outputs)
        used.insert(v.name);
    for (auto& x : used)
        if (!x.empty() && !defined.count(x))
            out.insert(x);
}

Status op_if(Importer& imp, const Node& n) { return imp.inline_if(n); }

}  // namespace

void append_outer_refs(std::vector<Node>& nodes) {
    for (auto& n : nodes) {
        std::set<std::string> refs;
        for (auto& a : n.attrs)
            for (auto& sg : a.graphs)
                free_names(*sg, refs);
        // An If without its condition input keeps input 0 empty, so the missing condition is
        // reported as such and not taken from an outer-scope value.
        if (n.inputs.empty() && !refs.empty())
            n.inputs.push_back("");
        for (auto& r : refs)
            if (std::find(n.inputs.begin(), n.inputs.end(), r) == n.inputs.end())
                n.inputs.push_back(r);
    }
}

Status Importer::inline_if(const Node& n) {
    const std::string label = node_label(n);
    const Value& cond = in(0);
    if (!cond.is_const)
        return unsupported("the condition of If " + quote(label) +
                           " depends on input values; nnfold inlines an If only when its condition is a constant "
                           "at import (computed from shapes and constants)");
    if (!cond.c.has_data() || cond.c.numel() != 1)
        return invalid_here("the condition has " + std::to_string(cond.c.numel()) +
                            " elements; If needs a single boolean");
    const bool taken = cond.c.at(0) != 0;
    const std::string branch = taken ? "then_branch" : "else_branch";
    const Attribute* a = n.attr(branch);
    if (!a || a->graphs.size() != 1)
        return invalid_here("the " + branch + " attribute holds no graph");
    const SubGraph& sg = *a->graphs[0];
    if (sg.outputs.size() != n.outputs.size())
        return invalid_here("the " + branch + " has " + std::to_string(sg.outputs.size()) + " outputs, the If " +
                            std::to_string(n.outputs.size()));
    const std::string ctx = "in the " + branch + " of If " + quote(label) + " (taken: its condition is " +
                            (taken ? "true" : "false") + " at import)";

    // The branch's values must be new names (see the file comment).
    auto fresh = [&](const std::string& name) -> Status {
        if (!name.empty() && values_.count(name))
            return invalid_here("value " + quote(name) + " of the " + branch + " is already defined outside it");
        return Status::ok();
    };
    for (auto& t : sg.initializers) {
        NF_RETURN_IF_ERROR(fresh(t.name));
        Value v;
        v.defined = true;
        v.is_const = true;
        v.shape = t.dims;
        v.dtype = t.dtype;
        v.c = t;
        values_[t.name] = std::move(v);
    }
    std::vector<Node> nodes = sg.nodes;
    append_outer_refs(nodes);
    for (auto& bn : nodes)
        for (auto& o : bn.outputs)
            NF_RETURN_IF_ERROR(fresh(o));
    std::set<std::string> available;
    for (auto& kv : values_)
        available.insert(kv.first);
    NF_RETURN_IF_ERROR(topo_sort(nodes, available).with_context(ctx));

    // The nodes the branch's outputs need, checked for support before any is translated (one
    // error listing the operators, as for the main graph).
    std::set<std::string> needed;
    for (auto& o : sg.outputs)
        needed.insert(o.name);
    std::vector<char> live(nodes.size(), 0);
    for (size_t i = nodes.size(); i-- > 0;) {
        for (auto& o : nodes[i].outputs)
            live[i] = live[i] || (!o.empty() && needed.count(o));
        if (live[i])
            for (auto& x : nodes[i].inputs)
                needed.insert(x);
    }
    std::set<std::string> bad;
    for (size_t i = 0; i < nodes.size(); i++) {
        const Node& bn = nodes[i];
        const bool default_domain = bn.domain.empty() || bn.domain == "ai.onnx";
        if (live[i] && (!default_domain || (!op_table().count(bn.op_type) && !fold_only_op(bn.op_type))))
            bad.insert(sanitize(default_domain ? bn.op_type : bn.domain + "." + bn.op_type));
    }
    if (!bad.empty()) {
        std::string list;
        for (auto& b : bad)
            list += (list.empty() ? "" : ", ") + b;
        return unsupported(ctx + ": unsupported ONNX operator" + (bad.size() > 1 ? "s: " : ": ") + list);
    }

    const Node* self = cur;
    for (size_t i = 0; i < nodes.size(); i++) {
        if (!live[i])
            continue;
        cur = &nodes[i];
        Status st = translate_node(nodes[i]);
        if (!st.is_ok()) {
            cur = self;
            return st.with_context(ctx);
        }
    }
    cur = self;
    for (size_t k = 0; k < sg.outputs.size(); k++) {
        auto it = values_.find(sg.outputs[k].name);
        if (it == values_.end())
            return invalid_here("output " + quote(sg.outputs[k].name) + " of the " + branch +
                                " is not produced by any node");
        const Value v = it->second;
        NF_RETURN_IF_ERROR(define_alias(k, v));
    }
    return Status::ok();
}

void register_control_ops(std::map<std::string, OpFn>& t) { t["If"] = op_if; }

}  // namespace onnx
}  // namespace nnfold
