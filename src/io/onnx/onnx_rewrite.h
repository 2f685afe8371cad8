// ONNX-level rewrites: patterns the importer changes on the ONNX nodes before translating them,
// where the ONNX form says more than the ncnn layers would (one Gelu instead of five elementwise
// layers; no layout shuffles around an NHWC input). Built like the optimizer's passes
// (src/passes/pass.h): each rewrite is a named unit with a header comment (Before / After /
// Conditions / Math), a pure `match` and a `rewrite`, and every rewrite applied is logged
// (OnnxRewriteRecord, returned by import_onnx).
//
// Rewrites never delete nodes: a node they make useless keeps its place (with its output
// cleared, or simply unread), and the driver's live-node walk (live_nodes) leaves it out of the
// translation. So node indices in a match stay valid while it is applied.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/onnx/onnx_graph.h"
#include "io/onnx/onnx_import.h"

namespace nnfold {
namespace onnx {

// What a rewrite sees and may change: the sorted nodes, the initializers, the graph inputs'
// shapes, and the inputs whose layout was absorbed (name -> permutation from the declared layout
// to the one the ncnn input takes). `graph` describes `nodes` as they are (the driver rebuilds it
// after every rewrite).
struct RewriteContext {
    std::vector<Node>& nodes;
    const Model& model;
    std::map<std::string, Tensor>& consts;
    std::map<std::string, std::vector<int64_t>>& input_shapes;
    std::map<std::string, std::vector<int>>& absorbed;
    NodeGraph graph;

    RewriteContext(std::vector<Node>& n, const Model& m, std::map<std::string, Tensor>& c,
                   std::map<std::string, std::vector<int64_t>>& in, std::map<std::string, std::vector<int>>& ab)
        : nodes(n), model(m), consts(c), input_shapes(in), absorbed(ab), graph(n, m) {}

    // The value of a constant: an initializer, or the value of a Constant node (`value` with one
    // tensor, or `value_float`); nullptr otherwise.
    const Tensor* constant(const std::string& value) const;
    // A constant with one element: its value.
    bool scalar(const std::string& value, double& v) const;

private:
    mutable Tensor value_float_;  // a Constant's value_float, as a tensor for `constant`
};

// What a match found: the nodes involved (anchor first) and what the rewrite needs.
struct RewriteMatch {
    std::vector<int> nodes;
    int target = -1;              // the node the rewrite turns into the result, when there is one
    std::string value;            // pass-specific (GELU's x, the absorbed input's name)
    std::vector<int64_t> perm;    // pass-specific (the merged permutation)
    std::vector<int> ints;        // pass-specific (how many of `nodes` are the absorbed Transposes)
    std::vector<std::string> labels;  // for the log when the anchor is not a node (an input)
};

class OnnxRewrite {
public:
    // What the driver walks: every node (in order), or every graph input (by name).
    enum class Anchor { Node, Input };

    explicit OnnxRewrite(std::string name) : name_(std::move(name)) {}
    virtual ~OnnxRewrite() = default;

    const std::string& name() const { return name_; }
    virtual Anchor anchor() const { return Anchor::Node; }
    // After a rewrite the driver starts again from the first anchor (a rewrite can complete a
    // pattern anchored earlier), unless this says each anchor is visited once.
    virtual bool revisit() const { return true; }

    // Pure: the pattern anchored at node (or input) index `anchor`.
    virtual bool match(const RewriteContext& ctx, int anchor, RewriteMatch& m) const = 0;
    // Applies a match in the current nodes; `detail` says what changed.
    virtual void rewrite(RewriteContext& ctx, const RewriteMatch& m, std::string& detail) const = 0;

private:
    std::string name_;
};

// The rewrites in the order they run (each to its fixed point before the next):
//   fuse_gelu              (onnx_rewrite_gelu.cpp)
//   fuse_space_to_batch    (onnx_rewrite_space_to_batch.cpp)
//   fuse_qkv_attention     (onnx_rewrite_attention.cpp)
//   merge_transpose_pair   (onnx_rewrite_transpose_pair.cpp)
//   absorb_input_transpose (onnx_rewrite_input_transpose.cpp; OnnxImportOptions::absorb_input_transpose)
std::unique_ptr<OnnxRewrite> make_fuse_gelu();
std::unique_ptr<OnnxRewrite> make_fuse_space_to_batch();
std::unique_ptr<OnnxRewrite> make_fuse_qkv_attention();
std::unique_ptr<OnnxRewrite> make_merge_transpose_pair();
std::unique_ptr<OnnxRewrite> make_absorb_input_transpose();

// Runs the rewrites `opt` enables on ctx.nodes, appending one record per rewrite to `log`.
void run_onnx_rewrites(RewriteContext& ctx, const OnnxImportOptions& opt, std::vector<OnnxRewriteRecord>& log);

}  // namespace onnx
}  // namespace nnfold
