// fuse_padding_convolution (nnfold; pnnx does the same, ncnnoptimize does not)
//
//   Before: x [c,h,w] -> Padding p (constant v; top, bottom, left, right) -> Convolution |
//           ConvolutionDepthWise cv
//   After:  cv reads x, with p's pads added to its own (params 4 left, 15 right, 14 top, 16 bottom)
//           and pad_value v (param 18)
//   ncnn's Convolution pads its input with copy_make_border(pad_top, pad_bottom, pad_left,
//   pad_right, BORDER_CONSTANT, pad_value) before sliding the window, which is what a constant
//   Padding computes: two constant borders of the same value are one wider border.
//   Conditions: p has one input, type 0 (constant), no per-channel values, no front/behind
//     (channel) padding, non-negative pads (not the run-time -233 form); x is 3D (known shape: a
//     1D or 2D blob is padded otherwise than the convolution views it); p's output has one
//     consumer (cv) and is neither a model output nor kept; cv has one input, explicit
//     non-negative pads (not SAME), and when it already pads (a pad > 0) its pad_value equals v.
#include <cstring>

#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

struct ConvPads {
    int left, right, top, bottom;
    float value;
    explicit ConvPads(const ParamDict& pd) {
        left = pd.get_int(4, 0);
        top = pd.get_int(14, left);
        right = pd.get_int(15, left);
        bottom = pd.get_int(16, top);
        value = pd.get_float(18, 0.f);
    }
    bool any() const { return left || right || top || bottom; }
};

class FusePaddingConvolution : public Pass {
public:
    FusePaddingConvolution() : Pass("fuse_padding_convolution") {}

    // Anchored at the convolution.
    MatchResult match(const PassContext& ctx, int j, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& cv = g.layers[j];
        if ((cv.type != "Convolution" && cv.type != "ConvolutionDepthWise") || cv.bottoms.empty())
            return MatchResult::none();
        int i = g.producer(cv.bottoms[0]);
        if (i < 0 || g.layers[i].type != "Padding")
            return MatchResult::none();
        const LayerNode& p = g.layers[i];
        c.layers = {i, j};
        const ParamDict& pp = p.params;
        int top = pp.get_int(0, 0), bottom = pp.get_int(1, 0), left = pp.get_int(2, 0), right = pp.get_int(3, 0);
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, i));
        if (pp.get_int(4, 0) != 0)
            return MatchResult::blocked(lq(g, i) + " does not pad with a constant (type " +
                                        std::to_string(pp.get_int(4, 0)) + ")");
        if (pp.get_int(6, 0) != 0)
            return MatchResult::blocked(lq(g, i) + " pads with per-channel values");
        if (pp.get_int(7, 0) != 0 || pp.get_int(8, 0) != 0)
            return MatchResult::blocked(lq(g, i) + " pads channels (front/behind)");
        if (top < 0 || bottom < 0 || left < 0 || right < 0)
            return MatchResult::blocked(lq(g, i) + " has negative or run-time pads");
        if (cv.bottoms.size() != 1 || cv.tops.size() != 1)
            return MatchResult::blocked(lq(g, j) + " takes its weights from a blob (dynamic_weight)");
        NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, i, p.tops[0]));
        const Shape& x = ctx.shape(p.bottoms[0]);
        if (!x.known())
            return MatchResult::blocked("the input shape of " + lq(g, i) + " is unknown (give input shapes)");
        if (x.dims != 3)
            return MatchResult::blocked(lq(g, i) + "'s input " + x.str() + " is not 3D");
        ConvPads cp(cv.params);
        if (cp.left < 0 || cp.right < 0 || cp.top < 0 || cp.bottom < 0)
            return MatchResult::blocked(lq(g, j) + " uses SAME padding (-233/-234)");
        float v = pp.get_float(5, 0.f);
        if (cp.any() && std::memcmp(&cp.value, &v, 4) != 0)
            return MatchResult::blocked(lq(g, j) + " pads with " + fmt(cp.value) + ", " + lq(g, i) + " with " + fmt(v));
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        const LayerNode& p = g.layers[c.layers[0]];
        LayerNode& cv = g.layers[c.layers[1]];
        const ParamDict& pp = p.params;
        ConvPads cp(cv.params);
        int top = cp.top + pp.get_int(0, 0), bottom = cp.bottom + pp.get_int(1, 0);
        int left = cp.left + pp.get_int(2, 0), right = cp.right + pp.get_int(3, 0);
        cv.params.set_int(4, left);
        cv.params.set_int(15, right);
        cv.params.set_int(14, top);
        cv.params.set_int(16, bottom);
        cv.params.set_float(18, pp.get_float(5, 0.f));
        g.set_bottom(c.layers[1], 0, p.bottoms[0]);
        detail = "folded Padding " + p.name + " into " + cv.type + " " + cv.name + ": pads left " +
                 std::to_string(left) + ", right " + std::to_string(right) + ", top " + std::to_string(top) +
                 ", bottom " + std::to_string(bottom) + ", value " + fmt(pp.get_float(5, 0.f));
        g.erase_layer(c.layers[0]);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_padding_convolution() { return std::make_unique<FusePaddingConvolution>(); }

}  // namespace nnfold
