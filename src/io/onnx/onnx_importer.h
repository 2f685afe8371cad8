// Internal to the ONNX importer: the state shared by the driver (onnx_import.cpp), constant folding
// (onnx_fold.cpp) and the operator translators (onnx_ops_*.cpp).
//
// Every ONNX value has a static shape at import (inputs' shapes are declared or given in the
// options; shape subgraphs fold to constants), which lets each translator pick ncnn layers that
// compute exactly the ONNX result and lets the driver check the emitted graph: after import,
// nnfold's own shape inference must give every blob the shape the translators expected.
//
// Layout rule (ONNX tensor -> ncnn blob): the values stay in the same dense order; a leading axis
// of size 1 on a tensor of rank >= 2 (the batch) is dropped; what remains is the ncnn shape,
// outermost first ([c, h, w], [h, w], [w]; rank 0 becomes [1]).
//
// Tensors above 4 axes (after the batch axis; docs/shapes-and-files.md, up to 6 dimensions in all)
// are held in a folded view: the same dense values, size-1 axes dropped, the outermost axes merged
// until 4 remain (ncnn_shape_of). Only operators that know this (high_rank_aware_op) read or
// write such a tensor, and each views the blob again as its own axes need: a Transpose moves
// groups of axes that stay together (several Permutes when more than 4 groups move), an axis op
// (Split, Slice, Gather, Concat, Softmax, Reduce) works on [outer, axis, inner], elementwise ops
// merge the axes along which every operand varies (or repeats) alike, a batched MatMul merges
// its batch axes. Any other operator given such a tensor is an Unsupported error naming the
// node, the shape and the rank; nothing is ever dropped silently.
#pragma once

#include <deque>
#include <exception>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "io/io_map.h"
#include "io/onnx/onnx_import.h"
#include "io/onnx/onnx_model.h"
#include "model/graph.h"
#include "model/shape_params.h"

namespace nnfold {
namespace onnx {

using Dims = std::vector<int64_t>;

struct Value {
    bool defined = false;
    bool is_const = false;
    Tensor c;         // the value when is_const
    Dims shape;       // static ONNX shape
    int dtype = kFloat;
    int blob = -1;    // ncnn blob of a runtime value
};

std::string dims_str(const Dims& d);
// True when the layout rule drops the leading axis.
inline bool drops_batch(const Dims& s) { return s.size() >= 2 && s[0] == 1; }
// The ncnn shape of an ONNX shape (layout rule above). Unsupported for >4 remaining axes or 0-size.
Status ncnn_shape_of(const Dims& s, Shape& out);
// The ncnn shape an operand of a broadcasting op gets so that its rank equals the output's ncnn
// rank: pad with leading 1s to the output's rank, drop the batch axis when the output drops it.
Status operand_ncnn_shape(const Dims& operand, const Dims& out, Shape& result);
// The most dimensions an ONNX tensor may have inside a graph (docs/shapes-and-files.md).
constexpr size_t kMaxOnnxRank = 6;
// True when the layout rule leaves more than 4 axes (the folded view holds the tensor).
bool high_rank(const Dims& s);
// A broadcasting op's operands and output (`out` = broadcast of a and b) on fewer axes: axes of
// size 1 in the output go, adjacent axes along which each operand either varies or repeats alike
// merge. The results have equal ranks; false when more than 4 axes remain.
bool collapse_broadcast(const Dims& a, const Dims& b, const Dims& out, Dims& ca, Dims& cb, Dims& co);

// Numpy broadcasting of two shapes; false when they do not broadcast.
bool broadcast_shapes(const Dims& a, const Dims& b, Dims& out);
// Normalizes an axis into [0, rank); false when out of range.
bool norm_axis(int64_t axis, size_t rank, int& out);

// Thrown by Importer::in for a required input the node does not have.
struct MissingInput : std::exception {
    std::string message;
    explicit MissingInput(std::string m) : message(std::move(m)) {}
    const char* what() const noexcept override { return message.c_str(); }
};

class Importer;
using OpFn = Status (*)(Importer&, const Node&);
// Operators whose translators handle tensors above 4 axes (the layout rule above).
bool high_rank_aware_op(const std::string& op);
// The translator for a node whose inputs hold a tensor above 4 axes (onnx_high_rank.cpp): the
// operator's own translator when it is rank-agnostic, a dedicated one otherwise, null when the
// operator cannot take such a tensor.
OpFn high_rank_translator(const std::string& op);
// `blob` (values of shape `xview`) repeated into `oview` (same rank; numpy broadcasting), as a
// BinaryOp add onto zeros with the axes that repeat alike merged; `top` holds the result
// (onnx_high_rank.cpp). Expand and Tile of runtime tensors use it.
Status repeat_onto_zeros(Importer& im, int blob, const Dims& xview, const Dims& oview, int& top);
// Expand whose input or result is such a tensor (onnx_high_rank.cpp).
Status expand_high_rank(Importer& im, const Node& n);
// Reduce* on such a tensor (onnx_ops_nn.cpp).
Status op_reduce_high_rank(Importer& im, const Node& n);
// The translator table (onnx_ops_*.cpp register their operators here).
const std::map<std::string, OpFn>& op_table();
void register_elementwise_ops(std::map<std::string, OpFn>& t);
void register_nn_ops(std::map<std::string, OpFn>& t);
void register_shape_ops(std::map<std::string, OpFn>& t);
void register_rnn_ops(std::map<std::string, OpFn>& t);  // onnx_ops_rnn.cpp
void register_control_ops(std::map<std::string, OpFn>& t);
void register_scatter_ops(std::map<std::string, OpFn>& t);
void register_logic_ops(std::map<std::string, OpFn>& t);
void register_cumsum_ops(std::map<std::string, OpFn>& t);
// The node fuse_qkv_attention makes (onnx_rewrite_attention.cpp) and its translator. Op types
// starting "nnfold." are internal: a model's own node of such a type is refused as unsupported.
constexpr const char* kFusedAttentionOp = "nnfold.MultiHeadAttention";
void register_attention_ops(std::map<std::string, OpFn>& t);
void register_index_ops(std::map<std::string, OpFn>& t);   // onnx_ops_index.cpp
void register_einsum_ops(std::map<std::string, OpFn>& t);  // onnx_ops_einsum.cpp
// Puts `fn` in t[op] and returns the translator it replaces (null when there is none): the
// register_*_ops below install a translator for an input computed at run time that hands the
// constant case on to the one it replaced.
OpFn wrap_op(std::map<std::string, OpFn>& t, const std::string& op, OpFn fn);
// After register_shape_ops: wraps its Gather (constant indices) for runtime indices.
void register_gather_ops(std::map<std::string, OpFn>& t);
// After register_shape_ops: wraps its Expand (views) for an Expand that repeats data.
void register_expand_ops(std::map<std::string, OpFn>& t);
// After register_elementwise_ops: wraps its Clip (constant bounds) for bounds computed at run time.
void register_clip_ops(std::map<std::string, OpFn>& t);
// Ops that only ever fold (their inputs must be constant, or their result depends only on shapes).
bool fold_only_op(const std::string& op);
// Appends to each node with sub-graphs (If) the enclosing-scope values those sub-graphs read, as
// extra inputs, so that sorting, liveness and the rewrites see the dependency
// (onnx_ops_control.cpp).
void append_outer_refs(std::vector<Node>& nodes);

// The operators fold_node evaluates (sorted).
std::vector<std::string> folded_operators();
// Constant folding (onnx_fold.cpp): computes a node whose inputs are all constants. `done` false
// means the op has no folder (the node is then translated to layers).
Status fold_node(const Node& n, int64_t opset, const std::vector<const Tensor*>& inputs, std::vector<Tensor>& out,
                 bool& done);
// ScatterND, ScatterElements/Scatter and GatherElements on constants (onnx_fold_scatter.cpp).
Status fold_scatter_gather(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out);
// Limit for a tensor folded at import (elements), so a hostile ConstantOfShape cannot exhaust memory.
constexpr uint64_t kMaxFoldElements = uint64_t(1) << 26;

class Importer {
public:
    Importer(const Model& m, Graph& g, IoMap& io, Warnings& w, const OnnxImportOptions& opt)
        : model(m), g(g), io(io), warn(w), opt(opt) {}

    // Imports the model: the steps below, in order.
    Status run();
    // The ONNX-level rewrites run() applied, in order.
    std::vector<OnnxRewriteRecord> rewrites;

    const Model& model;
    Graph& g;
    IoMap& io;
    Warnings& warn;
    const OnnxImportOptions& opt;
    int64_t opset = 13;
    const Node* cur = nullptr;

    // --- messages ---
    std::string where() const;  // "node 'conv1' (Conv)"
    Status unsupported_here(const std::string& msg) const { return unsupported(where() + ": " + msg); }
    Status invalid_here(const std::string& msg) const { return invalid_model(where() + ": " + msg); }

    // --- attributes of the current node ---
    int64_t attr_i(const char* name, int64_t def) const;
    float attr_f(const char* name, float def) const;
    std::string attr_s(const char* name, const std::string& def) const;
    bool attr_ints(const char* name, Dims& out) const;  // false when absent
    bool has_attr(const char* name) const { return cur->attr(name) != nullptr; }

    // --- inputs of the current node ---
    size_t num_inputs() const { return cur->inputs.size(); }
    bool has_in(size_t k) const { return k < cur->inputs.size() && !cur->inputs[k].empty(); }
    // Input k; when the node lacks it (a malformed file: operators read their required inputs
    // without checking the count), throws MissingInput, which import_onnx turns into an
    // invalid_model error naming the node (found by the ONNX fuzz target, tests/fuzz/).
    const Value& in(size_t k) const;
    const Tensor* const_in(size_t k) const;  // nullptr when absent or not constant
    // A constant input required by the translator (weights, shapes, pads...).
    Status need_const(size_t k, const char* what, const Tensor*& t) const;
    Status need_ints(size_t k, const char* what, Dims& out) const;
    // An int list that moved from attribute `name` to constant input k in a later opset (Squeeze's
    // and Unsqueeze's axes in 13, Reduce*'s in 13 or 18): the input when present, else the
    // attribute; `has` false when neither is there.
    Status ints_attr_or_input(const char* name, size_t k, Dims& out, bool& has) const;

    // The ncnn blob of an input: its runtime blob, or a MemoryData holding the constant.
    Status input_blob(size_t k, int& blob);
    // The blob of input k shaped for a broadcasting op whose output has ONNX shape `out`.
    Status operand_blob(size_t k, const Dims& out, int& blob);
    // MemoryData with `t`'s values in ncnn shape `s` (cached per tensor name and shape).
    Status const_blob(const Tensor& t, const Shape& s, int& blob);
    // `blob` viewed as ncnn shape `s` (a Reshape layer when the shapes differ).
    Status reshape_blob(int blob, const Shape& s, int& out);

    // --- emitting ---
    int temp_blob(const Shape& s);
    // Appends a layer of `type` named after the current node (suffix for helper layers).
    int emit(const std::string& type, const std::string& suffix, const std::vector<int>& bottoms,
             const std::vector<int>& tops, const ParamDict& pd = ParamDict());
    // Sets a layer's weight arrays in its weight_specs order (tagged or raw as the spec says).
    Status set_weights(int layer, std::vector<std::vector<float>> arrays);
    // Keeps a constant made during translation (a broadcast operand) alive until import ends.
    const Tensor& keep_const(Tensor t) {
        kept_consts_.push_back(std::move(t));
        return kept_consts_.back();
    }
    // Marks an extension layer type for the "stock ncnn cannot load this" warning.
    void note_extension(const std::string& type) { extension_types_.insert(type); }

    // --- defining the current node's outputs ---
    // Output k is the runtime value in `blob` with ONNX shape `shape` (the blob is renamed to the
    // output's name, or reshaped when its ncnn shape differs from the layout rule's).
    Status define_runtime(size_t k, int blob, const Dims& shape, int dtype = kFloat);
    Status define_const(size_t k, Tensor t);
    Status define_alias(size_t k, const Value& v);

    // --- control flow (onnx_ops_control.cpp) ---
    // An If whose condition is a constant at import: the taken branch's nodes are translated in
    // place of the If, whose outputs become the branch's outputs.
    Status inline_if(const Node& n);

private:
    // True while a translator that knows the folded view of tensors above 4 axes runs (the
    // layout rule above): define_runtime refuses such an output from any other.
    bool rank_aware_ = false;
    std::deque<Tensor> kept_consts_;  // stable addresses
    std::map<std::string, Value> values_;
    std::set<std::string> layer_names_, blob_names_;
    std::vector<char> blob_is_temp_;
    std::map<std::string, int> const_cache_;
    std::set<std::string> extension_types_;
    int temp_seq_ = 0;

    std::string ncnn_name(const std::string& original, bool blob);
    std::string unique_layer_name(const std::string& name);
    void rename_layer(int layer, const std::string& name);
    std::string unique_blob_name(const std::string& base);
    int add_blob(const std::string& name, const Shape& s, bool temp);

    // Steps of run(), in order.
    void check_opset();
    Status collect_initializers(std::map<std::string, Tensor>& consts);
    Status resolve_input_shapes(const std::map<std::string, Tensor>& consts, std::vector<const ValueInfo*>& inputs,
                                std::map<std::string, Dims>& shapes);
    Status given_input_shape(const ValueInfo& vi, const Dims& given, Dims& shape);
    Status declared_input_shape(const ValueInfo& vi, Dims& shape);
    Status check_supported(const std::vector<Node>& nodes, const std::set<std::string>& available);
    void define_constants(const std::map<std::string, Tensor>& consts);
    Status define_inputs(const std::vector<const ValueInfo*>& inputs, const std::map<std::string, Dims>& shapes,
                         const std::map<std::string, std::vector<int>>& absorbed);
    Status translate(const std::vector<Node>& nodes);
    Status translate_node(const Node& n);
    Status fold_shape_query(const Node& n);
    Status define_outputs();
    Status finish();
    void remove_dead_layers();
    void insert_splits();
    Status verify_shapes();
};

}  // namespace onnx
}  // namespace nnfold
