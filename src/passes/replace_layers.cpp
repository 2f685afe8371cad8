// Layers replaced by equivalent, faster ones.
//
// replace_reduction_with_global_pooling
//   Before: x [c,h,w] -> Reduction r1 (mean) [-> Reduction r2 (mean)] -> [c]
//   After:  Pooling (average, global) named like the last Reduction, x -> its output
//   ncnn's Reduction (src/layer/reduction.cpp): params 0 operation (3 = mean), 1 reduce_all,
//   2 coeff, 3 axes, 4 keepdims; axes index the blob outermost first (3D: 0 c, 1 h, 2 w; 2D: 0 h,
//   1 w; negative ones count from the end; a 1D input is always reduced). Without keepdims the
//   reduced axes are dropped, the others keep their order. A mean over w then over h is the mean
//   over h*w (rounding aside), which is what a global average Pooling computes, giving [c].
//   Conditions: every Reduction is a mean with coeff 1 and reduce_all 0; x is 3D with known shape;
//     together they reduce exactly h and w and the result is 1D [c]; r1's output (for the pair)
//     has one consumer and is neither a model output nor kept. ncnnoptimize matches axes numbered
//     by an older Reduction convention; nnfold checks what the layers compute.
//
// replace_prelu_with_leaky_relu
//   Before: PReLU p (one slope, or the same slope for every channel)
//   After:  ReLU p with slope (param 0)
//   ncnn's PReLU and ReLU both compute x < 0 ? x * slope : x.
//
// replace_convolution_with_innerproduct_after_global_pooling
// replace_convolution_with_innerproduct_after_innerproduct
//   Before: global Pooling | InnerProduct -> Convolution cv (1x1 kernel)
//   After:  InnerProduct cv with cv's num_output, bias_term, weight_data_size, activation, weights
//   ncnn's Convolution hands a 1D input of num_input values with a 1x1 kernel to an InnerProduct
//   (src/layer/convolution.cpp), whatever its stride, dilation and padding: the output is 1D
//   [num_output] either way, and both layers store weights as [num_output][num_input] then bias.
//   Conditions: cv has a 1x1 kernel, one input, no int8 weights and no dynamic weights; its input
//   is 1D with num_input values: known from shapes, or, without shapes, after a global Pooling
//   (whose output is always 1D [c]); an InnerProduct's output is 1D unless it runs row-wise on a
//   2D input, so that case needs shapes.
#include <algorithm>
#include <cmath>

#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

// Which input axes (outermost first) a Reduction with these params reduces on a `dims`-D input.
// False when the params are not a plain axis list this pass understands.
bool reduced_axes(const ParamDict& pd, int dims, std::vector<bool>& red) {
    red.assign(dims, false);
    if (pd.get_int(1, 1) != 0)
        return false;  // reduce_all
    if (dims == 1) {
        red[0] = true;
        return true;
    }
    std::vector<int> axes = pd.get_ints(3);
    // axes numbered within the blob's rank are marked by fixbug0 (param 5); older converters
    // counted a batch axis (ncnn and nnfold refuse those)
    if (axes.empty() || pd.get_int(5, 0) != 1)
        return false;
    for (int a : axes) {
        if (a < 0)
            a += dims;
        if (a < 0 || a >= dims)
            return false;
        red[a] = true;
    }
    return true;
}

bool is_plain_mean(const LayerNode& l) {
    return l.type == "Reduction" && l.bottoms.size() == 1 && l.tops.size() == 1 && l.params.get_int(0, 0) == 3 &&
           l.params.get_int(1, 1) == 0 && l.params.get_float(2, 1.f) == 1.f;
}

class ReplaceReductionWithGlobalPooling : public Pass {
public:
    ReplaceReductionWithGlobalPooling() : Pass("replace_reduction_with_global_pooling") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& r1 = g.layers[i];
        if (!is_plain_mean(r1))
            return MatchResult::none();
        const Shape& x = ctx.shape(r1.bottoms[0]);
        if (single_reduction_ok(ctx, i)) {
            c.layers = {i};
            return MatchResult::ok();
        }
        int j = sole_consumer(g, r1.tops[0]);
        if (j < 0 || !is_plain_mean(g.layers[j]))
            return MatchResult::none();
        c.layers = {i, j};
        if (!x.known())
            return MatchResult::blocked("the input shape of " + lq(g, i) + " is unknown (give input shapes)");
        if (x.dims != 3)
            return MatchResult::blocked(lq(g, i) + "'s input is " + x.str() + ", not 3D");
        NF_RETURN_IF_NOT_MATCHED(check_intermediate(ctx, i, r1.tops[0]));
        // track the original axes through r1
        std::vector<bool> red1, red2;
        if (!reduced_axes(r1.params, 3, red1))
            return MatchResult::blocked(lq(g, i) + " has axes this pass does not handle");
        bool keep1 = r1.params.get_int(4, 0) != 0;
        std::vector<int> remaining;  // original axis of each axis of r1's output
        for (int a = 0; a < 3; a++)
            if (keep1 || !red1[a])
                remaining.push_back(a);
        const Shape& mid = ctx.shape(r1.tops[0]);
        if (!mid.known() || mid.dims != (int)remaining.size())
            return MatchResult::blocked(lq(g, i) + " gives " + mid.str() + ", not what its axes say");
        if (!reduced_axes(g.layers[j].params, mid.dims, red2))
            return MatchResult::blocked(lq(g, j) + " has axes this pass does not handle");
        bool total[3] = {false, false, false};
        for (int a = 0; a < 3; a++)
            total[a] = red1[a];
        for (size_t k = 0; k < remaining.size(); k++)
            total[remaining[k]] = total[remaining[k]] || red2[k];
        const Shape& out = ctx.shape(g.layers[j].tops[0]);
        if (total[0] || !total[1] || !total[2])
            return MatchResult::blocked(lq(g, i) + " and " + lq(g, j) + " do not reduce exactly h and w");
        if (out != Shape::d1(x.c))
            return MatchResult::blocked(lq(g, j) + " gives " + out.str() + ", not [" + std::to_string(x.c) + "]");
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        int first = c.layers.front(), last = c.layers.back();
        int x = g.layers[first].bottoms[0];
        LayerNode& p = g.layers[last];
        std::string names = g.layers[first].name + (first != last ? " and " + p.name : "");
        p.type = "Pooling";
        p.params.clear();
        p.params.set_int(0, 1);  // average
        p.params.set_int(4, 1);  // global
        g.set_bottoms(last, {x});
        p.weights.clear();
        if (first != last)
            g.erase_layer(first);
        detail = "Reduction (mean over h, w) " + names + " became global average Pooling " + p.name;
        return Status::ok();
    }

private:
    // One Reduction that alone means over h and w of a 3D input giving [c].
    static bool single_reduction_ok(const PassContext& ctx, int i) {
        const LayerNode& r = ctx.g.layers[i];
        const Shape& x = ctx.shape(r.bottoms[0]);
        const Shape& out = ctx.shape(r.tops[0]);
        std::vector<bool> red;
        return x.known() && x.dims == 3 && reduced_axes(r.params, 3, red) && !red[0] && red[1] && red[2] &&
               out == Shape::d1(x.c);
    }
};

class ReplacePReLUWithLeakyReLU : public Pass {
public:
    ReplacePReLUWithLeakyReLU() : Pass("replace_prelu_with_leaky_relu") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& l = g.layers[i];
        if (l.type != "PReLU")
            return MatchResult::none();
        c.layers = {i};
        NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(g, i));
        int n = l.params.get_int(0, 0);
        if (l.weights.size() != 1 || n <= 0 || l.weights[0].data.size() != (size_t)n)
            return MatchResult::blocked(lq(g, i) + " has no slopes loaded");
        const auto& s = l.weights[0].data;
        for (float v : s)
            if (!(v == s[0]) || (v == 0.f && std::signbit(v) != std::signbit(s[0])))
                return MatchResult::blocked(lq(g, i) + " has " + std::to_string(n) + " different slopes");
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        LayerNode& l = ctx.g.layers[c.layers[0]];
        float slope = l.weights[0].data[0];
        int n = l.params.get_int(0, 0);
        l.type = "ReLU";
        l.params.clear();
        l.params.set_float(0, slope);
        l.weights.clear();
        detail = "PReLU " + l.name + " (" + (n == 1 ? std::string("one slope") : std::to_string(n) + " equal slopes") +
                 ") became ReLU with slope " + fmt(slope);
        return Status::ok();
    }
};

class ReplaceConvolutionWithInnerProduct : public Pass {
public:
    ReplaceConvolutionWithInnerProduct(const std::string& name, std::string after) : Pass(name), after_(std::move(after)) {}

    MatchResult match(const PassContext& ctx, int j, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& cv = g.layers[j];
        if (cv.type != "Convolution" || cv.bottoms.empty())
            return MatchResult::none();
        int p = g.producer(cv.bottoms[0]);
        if (p < 0)
            return MatchResult::none();
        bool global_pool = g.layers[p].type == "Pooling" && g.layers[p].params.get_int(4, 0) != 0;
        if (after_ == "global_pooling" ? !global_pool : g.layers[p].type != after_)
            return MatchResult::none();
        c.layers = {p, j};
        AffineHost h = affine_host(cv);
        if (!h.kernel_1x1)
            return MatchResult::blocked(lq(g, j) + " does not have a 1x1 kernel");
        if (cv.bottoms.size() != 1 || cv.tops.size() != 1 || h.dynamic_weight)
            return MatchResult::blocked(lq(g, j) + " takes its weights from a blob (dynamic_weight)");
        if (h.int8_scale_term)
            return MatchResult::blocked(lq(g, j) + " has int8 weights");
        if (h.num_output <= 0 || h.weight_data_size <= 0 || h.weight_data_size % h.num_output)
            return MatchResult::blocked(lq(g, j) + " has inconsistent num_output / weight_data_size");
        int num_input = h.weight_data_size / h.num_output;
        const Shape& in = ctx.shape(cv.bottoms[0]);
        if (in.known()) {
            if (in.dims != 1 || in.w != num_input)
                return MatchResult::blocked(lq(g, j) + "'s input is " + in.str() + ", not 1D [" +
                                            std::to_string(num_input) + "]");
        } else if (!global_pool) {
            return MatchResult::blocked(lq(g, j) + "'s input shape is unknown (give input shapes): " + lq(g, p) +
                                        " may run row-wise");
        }
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        LayerNode& cv = ctx.g.layers[c.layers[1]];
        AffineHost h = affine_host(cv);
        ParamDict pd;
        pd.set_int(0, h.num_output);
        if (h.bias_term)
            pd.set_int(1, 1);
        pd.set_int(2, h.weight_data_size);
        if (h.activation_type) {
            pd.set_int(9, h.activation_type);
            if (cv.params.has(10))
                pd.at(10) = cv.params.at(10);
        }
        cv.type = "InnerProduct";
        cv.params = pd;
        detail = "Convolution " + cv.name + " (1x1 kernel on a 1D input) became InnerProduct";
        return Status::ok();
    }

private:
    std::string after_;
};

}  // namespace

std::unique_ptr<Pass> make_replace_reduction_with_global_pooling() {
    return std::make_unique<ReplaceReductionWithGlobalPooling>();
}
std::unique_ptr<Pass> make_replace_prelu_with_leaky_relu() { return std::make_unique<ReplacePReLUWithLeakyReLU>(); }
std::unique_ptr<Pass> make_replace_convolution_with_innerproduct(const std::string& name, const std::string& after) {
    return std::make_unique<ReplaceConvolutionWithInnerProduct>(name, after);
}

}  // namespace nnfold
