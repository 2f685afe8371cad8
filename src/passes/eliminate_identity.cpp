// Layers that compute the identity, removed (pass_util.h remove_identity keeps every model input
// and output name: consumers of the layer's output read its input instead, or, when the output is
// a model output or kept, the input's producer writes the output directly).
//
// eliminate_dropout
//   Dropout with scale (param 0) 1: ncnn's inference Dropout multiplies by scale.
// eliminate_pooling1x1
//   Pooling with a 1x1 kernel, stride 1, no padding, not global, not adaptive: max and average of
//   one element are the element (any pad_mode: a 1x1 window at stride 1 adds no padding).
//   Condition: the output shape equals the input shape (ncnn's Pooling makes a 1D or 2D input 3D),
//   so the input shape must be known.
// eliminate_noop
//   Noop (ncnn src/layer/noop.cpp) passes each input through as the output of the same position.
//   Condition: as many outputs as inputs, inputs distinct.
// eliminate_split
//   A Split with one output (left by other passes: ncnn's reader inserts Split for every blob with
//   several consumers) is the identity; one with no output computes nothing.
// eliminate_flatten_after_global_pooling, eliminate_reshape_after_global_pooling,
// eliminate_flatten_after_innerproduct
//   Flatten / Reshape whose output has its input's shape: the data is dense and row-major in both,
//   so a reshape to the same shape is the identity. Shapes are compared when known; without
//   shapes, a global Pooling's output is 1D [c] (always), so a Flatten after it and a Reshape to
//   1D with w -1 or 0 (ncnn: infer / keep) are identities; an InnerProduct may run row-wise (2D),
//   so that case needs shapes. Reshape must not permute (param 3).
// All: the removed layer has one input per output, and each condition of remove_identity holds
// (the blob that disappears has no other consumer and is not a model output, input or kept).
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

// Blocked when the input and output shapes of layer i (one of each) are both known and differ;
// `known` says whether both are.
MatchResult check_keeps_shape(const PassContext& ctx, int i, bool& known) {
    const Graph& g = ctx.g;
    const Shape& in = ctx.shape(g.layers[i].bottoms[0]);
    const Shape& out = ctx.shape(g.layers[i].tops[0]);
    known = in.known() && out.known();
    if (known && in != out)
        return MatchResult::blocked(lq(g, i) + " turns " + in.str() + " into " + out.str());
    return MatchResult::ok();
}

// What the identities share: the anchor (a layer of `type`), the candidate (that layer; the
// reshapes add their producer in front), the checks of every (input, output) pair and the
// rewrite. `why` says in the log what made the layer the identity.
class IdentityPass : public Pass {
public:
    IdentityPass(const std::string& name, std::string type, std::string why)
        : Pass(name), type_(std::move(type)), why_(std::move(why)) {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        if (ctx.g.layers[i].type != type_)
            return MatchResult::none();
        c.layers = {i};
        return match_identity(ctx, i, c);
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int i = c.layers.back();
        const LayerNode& l = g.layers[i];
        detail = "removed " + l.type + " " + l.name + " (" + why_ + ")";
        for (size_t k = 0; k < l.tops.size(); k++)
            remove_identity(ctx, i, g.layers[i].bottoms[k], g.layers[i].tops[k]);
        if (l.tops.empty())
            g.erase_layer(i);
        return Status::ok();
    }

protected:
    // The type's own conditions, for a layer of type `type` (c.layers is {i}).
    virtual MatchResult match_identity(const PassContext& ctx, int i, Candidate& c) const = 0;
    // Checks every (input, output) pair of layer i and names the layer as the candidate.
    MatchResult check_pairs(const PassContext& ctx, int i, Candidate& c) const {
        const LayerNode& l = ctx.g.layers[i];
        c.layers = {i};
        for (size_t k = 0; k < l.tops.size(); k++) {
            NF_RETURN_IF_NOT_MATCHED(check_remove_identity(ctx, i, l.bottoms[k], l.tops[k]));
        }
        return MatchResult::ok();
    }

    const std::string type_;

private:
    const std::string why_;
};

class EliminateDropout : public IdentityPass {
public:
    EliminateDropout() : IdentityPass("eliminate_dropout", "Dropout", "scale 1") {}

protected:
    MatchResult match_identity(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, i));
        float scale = g.layers[i].params.get_float(0, 1.f);
        if (scale != 1.f)
            return MatchResult::blocked(lq(g, i) + " scales by " + fmt(scale));
        return check_pairs(ctx, i, c);
    }
};

class EliminatePooling1x1 : public IdentityPass {
public:
    EliminatePooling1x1() : IdentityPass("eliminate_pooling1x1", "Pooling", "1x1 kernel, stride 1") {}

protected:
    MatchResult match_identity(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const ParamDict& pd = g.layers[i].params;
        int kw = pd.get_int(1, 0), kh = pd.get_int(11, kw), sw = pd.get_int(2, 1), sh = pd.get_int(12, sw);
        int pl = pd.get_int(3, 0), pt = pd.get_int(13, pl), pr = pd.get_int(14, pl), pb = pd.get_int(15, pt);
        if (kw != 1 || kh != 1 || sw != 1 || sh != 1 || pl != 0 || pt != 0 || pr != 0 || pb != 0 ||
            pd.get_int(4, 0) != 0 || pd.get_int(7, 0) != 0)
            return MatchResult::none();
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, i));
        bool known = false;
        NF_RETURN_IF_NOT_MATCHED(check_keeps_shape(ctx, i, known));
        if (!known)
            return MatchResult::blocked(lq(g, i) + "'s input shape is unknown (give input shapes): Pooling turns a 1D or "
                                        "2D input into 3D");
        return check_pairs(ctx, i, c);
    }
};

class EliminateNoop : public IdentityPass {
public:
    EliminateNoop() : IdentityPass("eliminate_noop", "Noop", "identity") {}

protected:
    MatchResult match_identity(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& l = g.layers[i];
        if (l.bottoms.empty() || l.bottoms.size() != l.tops.size())
            return MatchResult::blocked(lq(g, i) + " has " + std::to_string(l.bottoms.size()) + " inputs and " +
                                        std::to_string(l.tops.size()) + " outputs");
        for (size_t a = 0; a < l.bottoms.size(); a++)
            for (size_t b = a + 1; b < l.bottoms.size(); b++)
                if (l.bottoms[a] == l.bottoms[b])
                    return MatchResult::blocked(lq(g, i) + " reads " + bq(g, l.bottoms[a]) + " twice");
        return check_pairs(ctx, i, c);
    }
};

class EliminateSplit : public IdentityPass {
public:
    EliminateSplit() : IdentityPass("eliminate_split", "Split", "one output") {}

protected:
    MatchResult match_identity(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& l = g.layers[i];
        if (l.tops.size() > 1)
            return MatchResult::none();
        if (l.bottoms.size() != 1)
            return MatchResult::blocked(lq(g, i) + " does not have one input");
        if (l.tops.empty())
            return MatchResult::ok();
        return check_pairs(ctx, i, c);
    }
};

class EliminateReshapeAfter : public IdentityPass {
public:
    EliminateReshapeAfter(const std::string& name, std::string type, std::string producer)
        : IdentityPass(name, std::move(type), "its output has its input's shape"), producer_(std::move(producer)) {}

protected:
    MatchResult match_identity(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& l = g.layers[i];
        if (l.bottoms.empty())
            return MatchResult::none();
        int p = g.producer(l.bottoms[0]);
        if (p < 0)
            return MatchResult::none();
        const LayerNode& pl = g.layers[p];
        bool global_pool = pl.type == "Pooling" && pl.params.get_int(4, 0) != 0;
        if (producer_ == "global_pooling" ? !global_pool : pl.type != producer_)
            return MatchResult::none();
        c.layers = {p, i};
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, i));
        if (type_ == "Reshape" && l.params.get_int(3, 0) != 0)
            return MatchResult::blocked(lq(g, i) + " permutes (param 3)");
        bool known = false;
        NF_RETURN_IF_NOT_MATCHED(check_keeps_shape(ctx, i, known));
        if (!known && !(global_pool && identity_on_1d(l)))
            return MatchResult::blocked(lq(g, i) + "'s input shape is unknown (give input shapes)");
        MatchResult r = check_pairs(ctx, i, c);
        c.layers = {p, i};
        return r;
    }

private:
    // On a 1D input: Flatten always; Reshape to 1D (h, d, c absent: -233) with w -1 or 0.
    bool identity_on_1d(const LayerNode& l) const {
        if (l.type == "Flatten")
            return true;
        const ParamDict& pd = l.params;
        int w = pd.get_int(0, -233), h = pd.get_int(1, -233), d = pd.get_int(11, -233), cc = pd.get_int(2, -233);
        return h == -233 && d == -233 && cc == -233 && (w == -1 || w == 0);
    }

    std::string producer_;
};

}  // namespace

std::unique_ptr<Pass> make_eliminate_dropout() { return std::make_unique<EliminateDropout>(); }
std::unique_ptr<Pass> make_eliminate_pooling1x1() { return std::make_unique<EliminatePooling1x1>(); }
std::unique_ptr<Pass> make_eliminate_noop() { return std::make_unique<EliminateNoop>(); }
std::unique_ptr<Pass> make_eliminate_split() { return std::make_unique<EliminateSplit>(); }
std::unique_ptr<Pass> make_eliminate_reshape_after(const std::string& name, const std::string& reshape_type,
                                                   const std::string& producer_kind) {
    return std::make_unique<EliminateReshapeAfter>(name, reshape_type, producer_kind);
}

}  // namespace nnfold
