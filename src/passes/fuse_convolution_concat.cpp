// Parallel convolutions joined by a channel Concat, folded into one layer (the seed fusions: a
// grouped convolution written as Slice -> N convolutions -> Concat, as converters from frameworks
// without groups produce, and N convolutions of one input stacked into one).
//
// fuse_slice_convolution_concat
//   Before: x [C,h,w] -> Slice s (channels, N equal parts) -> Convolution cv_k on part k -> Concat
//   After:  ConvolutionDepthWise (group N) named like cv_1, x -> Concat's output; a BatchNorm
//           after the Concat can then fold into it (fuse_convolutiondepthwise_batchnorm)
//   Math: part k holds channels [k C/N, (k+1) C/N) and cv_k's outputs land at channels
//     [k M, (k+1) M) of the Concat: exactly group k of a grouped convolution, whose ncnn weight
//     layout [group][M][C/N][kh][kw] is cv_1's weights, then cv_2's, ...; biases likewise.
//   Conditions: N >= 2; s has one input, N outputs each read only by its cv_k, taken by the
//     Concat in Slice order; every cv_k is a Convolution with one input and the same kernel,
//     dilation, stride, padding, pad value, bias_term, activation and num_output M, no int8 and no
//     dynamic weights, its output read only by the Concat; shapes known: x 3D, every part
//     [C/N,h,w] (so s cuts channels in equal parts), every cv_k output 3D and the Concat output
//     their channel concatenation; no blob that disappears is a model output or kept.
//
// fuse_split_convolution_concat
//   Before: x -> [Split ->] Convolution cv_k (k = 1..N, all on x) -> Concat (axis 0)
//   After:  one Convolution named like cv_1 with the filters of cv_1, cv_2, ... stacked (ncnn
//           layout [num_output][C][kh][kw]: concatenating the weight arrays stacks the filters),
//           writing the Concat's output
//   Conditions: N >= 2; every Concat input comes from a distinct cv_k reading x (directly or
//     through outputs of one Split of x, each read only by its cv_k); the cv_k share kernel,
//     dilation, stride, padding, pad value and activation (num_output and bias_term may differ: a
//     missing bias is 0), no int8 and no dynamic weights; every cv_k output is read only by the
//     Concat; the Concat is along axis 0 (channels of a 3D output, or the values of the 1D output
//     of ncnn's InnerProduct path: stacking holds for both); no blob that disappears is a model
//     output or kept.
#include <algorithm>
#include <cstring>

#include "layers/convolution.h"
#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

std::unique_ptr<Convolution> parse_conv(const LayerNode& l) {
    if (l.type != "Convolution")
        return nullptr;
    std::unique_ptr<Layer> impl = create_layer("Convolution", false);
    if (!impl || !impl->load_param(l.params))
        return nullptr;
    return std::unique_ptr<Convolution>(static_cast<Convolution*>(impl.release()));
}

// Same window, padding and activation (what every branch must share to stack or group).
bool same_geometry(const Convolution& a, const Convolution& b) {
    return a.kernel_w == b.kernel_w && a.kernel_h == b.kernel_h && a.dilation_w == b.dilation_w &&
           a.dilation_h == b.dilation_h && a.stride_w == b.stride_w && a.stride_h == b.stride_h &&
           a.pad_left == b.pad_left && a.pad_right == b.pad_right && a.pad_top == b.pad_top &&
           a.pad_bottom == b.pad_bottom && std::memcmp(&a.pad_value, &b.pad_value, 4) == 0 &&
           a.activation.type == b.activation.type && std::memcmp(&a.activation.p0, &b.activation.p0, 4) == 0 &&
           std::memcmp(&a.activation.p1, &b.activation.p1, 4) == 0;
}

// Common checks of one branch convolution: returns its parsed params or blocks.
MatchResult check_branch(const PassContext& ctx, int k, std::unique_ptr<Convolution>& conv) {
    const Graph& g = ctx.g;
    const LayerNode& l = g.layers[k];
    conv = parse_conv(l);
    if (!conv)
        return MatchResult::blocked(lq(g, k) + " has params nnfold cannot read");
    if (l.bottoms.size() != 1 || l.tops.size() != 1 || conv->dynamic_weight)
        return MatchResult::blocked(lq(g, k) + " takes its weights from a blob (dynamic_weight)");
    if (conv->int8_scale_term)
        return MatchResult::blocked(lq(g, k) + " has int8 weights");
    size_t need = conv->bias_term ? 2 : 1;
    if (l.weights.size() != need || l.weights[0].storage == WeightStorage::Int8 ||
        l.weights[0].data.size() != (size_t)conv->weight_data_size)
        return MatchResult::blocked(lq(g, k) + " has no fp32 weights loaded");
    return check_intermediate(ctx, k, l.tops[0]);
}

bool concat_axis0(const LayerNode& concat) { return concat.params.get_int(0, 0) == 0; }

// Stacks the weights (and biases, 0 where absent) of `convs` into layer `into`.
void stack_weights(Graph& g, const std::vector<int>& convs, LayerNode& into, std::vector<float>& w, std::vector<float>& b,
                   bool& any_bias) {
    any_bias = false;
    for (int k : convs)
        any_bias = any_bias || g.layers[k].params.get_int(5, 0) != 0;
    for (int k : convs) {
        const LayerNode& l = g.layers[k];
        int n = l.params.get_int(0, 0);
        w.insert(w.end(), l.weights[0].data.begin(), l.weights[0].data.end());
        if (l.params.get_int(5, 0))
            b.insert(b.end(), l.weights[1].data.begin(), l.weights[1].data.end());
        else
            b.insert(b.end(), (size_t)n, 0.f);
    }
    (void)into;
}

// The Convolutions (one input each) producing every input of Concat `ci`, in input order; false
// when `ci` is not a Concat of at least two such inputs with one output.
bool concat_of_convolutions(const Graph& g, int ci, std::vector<int>& convs) {
    const LayerNode& cat = g.layers[ci];
    if (cat.type != "Concat" || cat.bottoms.size() < 2 || cat.tops.size() != 1)
        return false;
    convs.clear();
    for (int b : cat.bottoms) {
        int k = g.producer(b);
        if (k < 0 || g.layers[k].type != "Convolution" || g.layers[k].bottoms.size() != 1)
            return false;
        convs.push_back(k);
    }
    return true;
}

// Both fusions anchor at a Concat of Convolutions (concat_of_convolutions); each then matches what
// feeds the convolutions.
class ConcatOfConvolutionsPass : public Pass {
public:
    using Pass::Pass;

    MatchResult match(const PassContext& ctx, int ci, Candidate& c) const override {
        std::vector<int> convs;
        if (!concat_of_convolutions(ctx.g, ci, convs))
            return MatchResult::none();
        return match_sources(ctx, ci, convs, c);
    }

protected:
    // convs: the Concat's producers in its input order.
    virtual MatchResult match_sources(const PassContext& ctx, int ci, const std::vector<int>& convs,
                                      Candidate& c) const = 0;
};

class FuseSliceConvolutionConcat : public ConcatOfConvolutionsPass {
public:
    FuseSliceConvolutionConcat() : ConcatOfConvolutionsPass("fuse_slice_convolution_concat") {}

protected:
    // layers: [slice, cv_1..cv_N, concat]
    MatchResult match_sources(const PassContext& ctx, int ci, const std::vector<int>& convs,
                              Candidate& c) const override {
        const Graph& g = ctx.g;
        int slice = -1;
        for (int k : convs) {
            int s = g.producer(g.layers[k].bottoms[0]);
            if (s < 0 || g.layers[s].type != "Slice" || (slice >= 0 && s != slice))
                return MatchResult::none();
            slice = s;
        }
        const LayerNode& cat = g.layers[ci];
        const LayerNode& sl = g.layers[slice];
        const int n = (int)convs.size();
        c.layers = {slice};
        c.layers.insert(c.layers.end(), convs.begin(), convs.end());
        c.layers.push_back(ci);
        if (sl.bottoms.size() != 1 || (int)sl.tops.size() != n)
            return MatchResult::blocked(lq(g, slice) + " has " + std::to_string(sl.tops.size()) + " outputs, the Concat " +
                                        std::to_string(n) + " convolutions");
        for (int k = 0; k < n; k++) {
            if (g.layers[convs[k]].bottoms[0] != sl.tops[k])
                return MatchResult::blocked(lq(g, ci) + " does not take the convolutions in " + lq(g, slice) + "'s order");
            NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, slice, sl.tops[k]));
        }
        std::unique_ptr<Convolution> first;
        for (int k = 0; k < n; k++) {
            std::unique_ptr<Convolution> cv;
            NF_RETURN_IF_NOT_MATCHED(check_branch(ctx, convs[k], cv));
            if (!first) {
                first = std::move(cv);
                continue;
            }
            if (!same_geometry(*first, *cv) || cv->num_output != first->num_output || cv->bias_term != first->bias_term ||
                cv->weight_data_size != first->weight_data_size)
                return MatchResult::blocked(lq(g, convs[k]) + " differs from " + lq(g, convs[0]) +
                                            " (kernel, stride, padding, outputs, bias or activation)");
        }
        // shapes decide that the Slice cuts channels in equal parts and the Concat joins channels
        const Shape& x = ctx.shape(sl.bottoms[0]);
        const Shape& y = ctx.shape(cat.tops[0]);
        if (!x.known() || !y.known())
            return MatchResult::blocked("shapes are unknown (give input shapes)");
        if (x.dims != 3 || x.c % n != 0)
            return MatchResult::blocked(lq(g, slice) + "'s input " + x.str() + " is not 3D with channels divisible by " +
                                        std::to_string(n));
        Shape part = Shape::d3(x.w, x.h, x.c / n);
        for (int t : sl.tops)
            if (ctx.shape(t) != part)
                return MatchResult::blocked(lq(g, slice) + " does not cut " + x.str() + " into " + std::to_string(n) +
                                            " equal channel parts " + part.str());
        if (first->num_input() != x.c / n)
            return MatchResult::blocked(lq(g, convs[0]) + " expects " + std::to_string(first->num_input()) +
                                        " input channels, a part has " + std::to_string(x.c / n));
        const Shape& o = ctx.shape(g.layers[convs[0]].tops[0]);
        if (o.dims != 3 || y != Shape::d3(o.w, o.h, o.c * n))
            return MatchResult::blocked(lq(g, ci) + " gives " + y.str() + ", not the channel concatenation of " +
                                        std::to_string(n) + " x " + o.str());
        return MatchResult::ok();
    }

public:
    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int slice = c.layers.front(), ci = c.layers.back();
        std::vector<int> convs(c.layers.begin() + 1, c.layers.end() - 1);
        const int n = (int)convs.size();
        std::vector<float> w, b;
        bool any_bias;
        LayerNode& dst = g.layers[convs[0]];
        stack_weights(g, convs, dst, w, b, any_bias);
        int m = dst.params.get_int(0, 0);
        ParamDict pd = dst.params;
        pd.set_int(0, m * n);
        pd.set_int(6, (int)w.size());
        pd.set_int(7, n);
        dst.type = "ConvolutionDepthWise";
        dst.params = pd;
        dst.weights.clear();
        dst.weights.push_back(WeightArray::tagged_f32(std::move(w)));
        if (any_bias)
            dst.weights.push_back(WeightArray::untagged(std::move(b)));
        g.set_bottoms(convs[0], {g.layers[slice].bottoms[0]});
        g.set_tops(convs[0], {g.layers[ci].tops[0]});
        std::string names;
        for (int k = 1; k < n; k++) {
            names += (k > 1 ? ", " : "") + g.layers[convs[k]].name;
            g.erase_layer(convs[k]);
        }
        detail = "Slice " + g.layers[slice].name + ", " + std::to_string(n) + " Convolutions and Concat " +
                 g.layers[ci].name + " became ConvolutionDepthWise " + dst.name + " (group " + std::to_string(n) + ", " +
                 std::to_string(m * n) + " outputs)";
        g.erase_layer(slice);
        g.erase_layer(ci);
        return Status::ok();
    }
};

class FuseSplitConvolutionConcat : public ConcatOfConvolutionsPass {
public:
    FuseSplitConvolutionConcat() : ConcatOfConvolutionsPass("fuse_split_convolution_concat") {}

protected:
    // layers: [split (if any), cv_1..cv_N, concat]; ints: [split or -1]
    MatchResult match_sources(const PassContext& ctx, int ci, const std::vector<int>& all,
                              Candidate& c) const override {
        const Graph& g = ctx.g;
        std::vector<int> convs;
        int source = -1, split = -1;
        for (int k : all) {
            int in = g.layers[k].bottoms[0];
            int s = g.producer(in);
            int x = in, sp = -1;
            if (s >= 0 && g.layers[s].type == "Split" && g.layers[s].bottoms.size() == 1) {
                x = g.layers[s].bottoms[0];
                sp = s;
            }
            if (source >= 0 && (x != source || sp != split))
                return MatchResult::none();
            source = x;
            split = sp;
            if (std::find(convs.begin(), convs.end(), k) != convs.end())
                return MatchResult::none();
            convs.push_back(k);
        }
        const int n = (int)convs.size();
        if (split >= 0)
            c.layers.push_back(split);
        c.layers.insert(c.layers.end(), convs.begin(), convs.end());
        c.layers.push_back(ci);
        if (!concat_axis0(g.layers[ci]))
            return MatchResult::blocked(lq(g, ci) + " is not along axis 0");
        std::unique_ptr<Convolution> first;
        for (int k = 0; k < n; k++) {
            std::unique_ptr<Convolution> cv;
            NF_RETURN_IF_NOT_MATCHED(check_branch(ctx, convs[k], cv));
            if (split >= 0) {
                // the branch reads its own Split output
                NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, split, g.layers[convs[k]].bottoms[0]));
            }
            if (!first) {
                first = std::move(cv);
                continue;
            }
            if (!same_geometry(*first, *cv) || cv->num_input() != first->num_input())
                return MatchResult::blocked(lq(g, convs[k]) + " differs from " + lq(g, convs[0]) +
                                            " (kernel, stride, dilation, padding, inputs or activation)");
        }
        c.ints = {split};
        return MatchResult::ok();
    }

public:
    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int split = c.ints[0];
        int ci = c.layers.back();
        std::vector<int> convs(c.layers.begin() + (split >= 0 ? 1 : 0), c.layers.end() - 1);
        const int n = (int)convs.size();
        std::vector<float> w, b;
        bool any_bias;
        LayerNode& dst = g.layers[convs[0]];
        stack_weights(g, convs, dst, w, b, any_bias);
        int outputs = (int)b.size();
        dst.params.set_int(0, outputs);
        dst.params.set_int(6, (int)w.size());
        if (any_bias)
            dst.params.set_int(5, 1);
        dst.weights.clear();
        dst.weights.push_back(WeightArray::tagged_f32(std::move(w)));
        if (any_bias)
            dst.weights.push_back(WeightArray::untagged(std::move(b)));
        g.set_tops(convs[0], {g.layers[ci].tops[0]});
        std::string names;
        for (int k = 1; k < n; k++) {
            const LayerNode& l = g.layers[convs[k]];
            names += (k > 1 ? ", " : "") + l.name;
            if (split >= 0) {
                const auto& tops = g.layers[split].tops;
                g.erase_top(split, std::find(tops.begin(), tops.end(), l.bottoms[0]) - tops.begin());
            }
            g.erase_layer(convs[k]);
        }
        detail = std::to_string(n) + " Convolutions on " + g.blobs[dst.bottoms[0]].name + " (" + dst.name + ", " + names +
                 ") and Concat " + g.layers[ci].name + " became one Convolution " + dst.name + " with " +
                 std::to_string(outputs) + " stacked filters";
        g.erase_layer(ci);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_slice_convolution_concat() { return std::make_unique<FuseSliceConvolutionConcat>(); }
std::unique_ptr<Pass> make_fuse_split_convolution_concat() { return std::make_unique<FuseSplitConvolutionConcat>(); }

}  // namespace nnfold
