// The unit of the optimizer: a named pass with a pure `match` and a `rewrite` (one small named unit per pattern, as in onnx/optimizer).
//
// The driver (optimizer.cpp) walks the layers in execution order and asks the pass whether the
// layer anchors its pattern. `match` only reads the graph; it answers
//   - not a candidate (the anchor is not the start of this pattern: silent),
//   - a candidate it must refuse, with the reason (logged with `explain`), or
//   - a match, with the layers it involves.
// `rewrite` then changes the graph: it edits params and weights, rewires blobs and marks layers
// erased. It never compacts: the driver removes erased layers after the pass, so indices in a
// Candidate stay valid while a pass runs, and no placeholder layer survives.
//
// Every condition a pass's algebra needs is checked in `match` (docs/optimizer.md): the
// producer's fused activation, int8 weights, dynamic weights, the consumer count of every blob that
// disappears, model outputs and kept blobs, broadcasting shapes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

// What a pass sees: the graph, the shape of every blob (dims 0 where unknown: an input without a
// declared shape, or a data-dependent detection output) and the blobs no rewrite may remove,
// rename or change: the model's outputs and the names the caller asked to keep.
struct PassContext {
    Graph& g;
    std::vector<Shape> shapes;          // per blob index
    std::vector<char> protected_blob;   // per blob index
    std::vector<std::string> protected_why;  // per blob index: "a model output" / "kept (--keep)"

    explicit PassContext(Graph& graph) : g(graph) {}

    const Shape& shape(int blob) const;
    bool is_protected(int blob) const { return blob >= 0 && blob < (int)protected_blob.size() && protected_blob[blob]; }
};

// The layers a match involves (anchor first) and whatever the rewrite needs from the analysis.
struct Candidate {
    std::vector<int> layers;
    std::vector<int> ints;      // pass-specific (e.g. which bottom is the constant operand)
    std::vector<float> values;  // pass-specific (e.g. per-channel factors)
};

struct MatchResult {
    enum Kind { None, Blocked, Ok };
    Kind kind = None;
    std::string reason;  // for Blocked

    static MatchResult none() { return MatchResult(); }
    static MatchResult ok() {
        MatchResult r;
        r.kind = Ok;
        return r;
    }
    static MatchResult blocked(std::string why) {
        MatchResult r;
        r.kind = Blocked;
        r.reason = std::move(why);
        return r;
    }
};

// Returns the MatchResult of `expr` from the enclosing match unless it is Ok: the match-side twin
// of NF_RETURN_IF_ERROR, for the checks (pass_util.h) a match chains one after another.
#define NF_RETURN_IF_NOT_MATCHED(expr)                            \
    do {                                                          \
        ::nnfold::MatchResult nf_match_ = (expr);                 \
        if (nf_match_.kind != ::nnfold::MatchResult::Ok)          \
            return nf_match_;                                     \
    } while (0)

class Pass {
public:
    explicit Pass(std::string name) : name_(std::move(name)) {}
    virtual ~Pass() = default;

    // The registry name (ncnnoptimize's where it has one, e.g. "fuse_convolution_batchnorm").
    const std::string& name() const { return name_; }

    // Pure: looks at the pattern anchored at layer `anchor` (a live layer).
    virtual MatchResult match(const PassContext& ctx, int anchor, Candidate& c) const = 0;
    // Applies a candidate `match` accepted in the current graph. `detail` says what changed
    // ("folded BatchNorm bn1 into conv1: 64 channels").
    virtual Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const = 0;

private:
    std::string name_;
};

}  // namespace nnfold
