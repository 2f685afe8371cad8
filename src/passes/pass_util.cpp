#include "passes/pass_util.h"

#include <cmath>
#include <cstdio>

#include "core/strings.h"
#include "model/shape_params.h"

namespace nnfold {

const Shape& PassContext::shape(int blob) const {
    static const Shape unknown;
    if (blob < 0 || blob >= (int)shapes.size())
        return unknown;
    return shapes[blob];
}

std::string lq(const Graph& g, int layer) { return quote(g.layers[layer].name); }
std::string bq(const Graph& g, int blob) { return quote(g.blobs[blob].name); }

std::string fmt(double v) {
    char buf[64];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v || prec == 17)
            break;
    }
    return buf;
}

int sole_consumer(const Graph& g, int blob) {
    std::vector<int> c = g.consumers(blob);
    return c.size() == 1 ? c[0] : -1;
}

MatchResult check_intermediate(const PassContext& ctx, int owner, int blob) {
    const Graph& g = ctx.g;
    if (ctx.is_protected(blob))
        return MatchResult::blocked(lq(g, owner) + "'s output " + bq(g, blob) + " is " + ctx.protected_why[blob]);
    int n = g.consumer_count(blob);
    if (n != 1)
        return MatchResult::blocked(lq(g, owner) + "'s output " + bq(g, blob) + " has " + std::to_string(n) +
                                    " consumers");
    return MatchResult::ok();
}

MatchResult check_one_in_one_out(const Graph& g, int layer) {
    if (g.layers[layer].bottoms.size() != 1 || g.layers[layer].tops.size() != 1)
        return MatchResult::blocked(lq(g, layer) + " does not have one input and one output");
    return MatchResult::ok();
}

int next_consumer(const Graph& g, int layer, const std::function<bool(const LayerNode&)>& accept) {
    if (g.layers[layer].tops.size() != 1)
        return -1;
    for (int k : g.consumers(g.layers[layer].tops[0]))
        if (accept(g.layers[k]))
            return k;
    return -1;
}

int next_of_type(const Graph& g, int layer, const std::string& type) {
    return next_consumer(g, layer, [&](const LayerNode& l) { return l.type == type; });
}

MatchResult match_pair(const PassContext& ctx, int layer, int next, Candidate& c) {
    c.layers = {layer, next};
    return check_intermediate(ctx, layer, ctx.g.layers[layer].tops[0]);
}

MatchResult match_pair_of_type(const PassContext& ctx, int layer, const std::string& type, Candidate& c, int& next) {
    next = next_of_type(ctx.g, layer, type);
    if (next < 0)
        return MatchResult::none();
    return match_pair(ctx, layer, next, c);
}

MatchResult check_kept_constant_keeps_a_reader(const PassContext& ctx, int memorydata, int split) {
    const Graph& g = ctx.g;
    int mblob = g.layers[memorydata].tops[0];
    if (!ctx.is_protected(mblob))
        return MatchResult::ok();
    // the rewrite drops one reader of mblob: the reading layer itself, or one output of the Split
    // (the Split goes with its last output)
    bool last_reader = g.consumer_count(mblob) == 1 && (split < 0 || g.layers[split].tops.size() == 1);
    if (last_reader)
        return MatchResult::blocked("the constant " + bq(g, mblob) + " of MemoryData " + lq(g, memorydata) + " is " +
                                    ctx.protected_why[mblob] +
                                    " and this is its last reader: it would become a new model output");
    return MatchResult::ok();
}

void absorb_consumer(PassContext& ctx, int p, int c) {
    Graph& g = ctx.g;
    g.set_top(p, 0, g.layers[c].tops[0]);
    g.erase_layer(c);
}

bool is_affine_host_type(const std::string& t) {
    return t == "Convolution" || t == "ConvolutionDepthWise" || t == "Deconvolution" || t == "DeconvolutionDepthWise" ||
           t == "InnerProduct";
}

AffineHost affine_host(const LayerNode& l) {
    AffineHost h;
    if (!is_affine_host_type(l.type))
        return h;
    const ParamDict& pd = l.params;
    h.is_host = true;
    h.num_output = pd.get_int(0, 0);
    h.activation_type = pd.get_int(9, 0);
    if (l.type == "InnerProduct") {
        h.bias_param = 1;
        h.bias_term = pd.get_int(1, 0);
        h.weight_data_size = pd.get_int(2, 0);
        h.int8_scale_term = pd.get_int(8, 0);
        return h;
    }
    h.conv_family = true;
    h.bias_param = 5;
    h.bias_term = pd.get_int(5, 0);
    h.weight_data_size = pd.get_int(6, 0);
    bool deconv = l.type == "Deconvolution" || l.type == "DeconvolutionDepthWise";
    // Deconvolution has no int8 form in ncnn; its dynamic_weight is param 28 (19 for convolutions)
    h.int8_scale_term = deconv ? 0 : pd.get_int(8, 0);
    h.dynamic_weight = pd.get_int(deconv ? 28 : 19, 0);
    int kw = pd.get_int(1, 0), kh = pd.get_int(11, kw);
    h.kernel_1x1 = !deconv && kw == 1 && kh == 1;
    return h;
}

MatchResult check_foldable_weights(const PassContext& ctx, int layer) {
    const LayerNode& l = ctx.g.layers[layer];
    AffineHost h = affine_host(l);
    std::string who = lq(ctx.g, layer);
    if (!h.is_host)
        return MatchResult::blocked(who + " (" + l.type + ") has no weights to fold into");
    if (h.activation_type != 0)
        return MatchResult::blocked(who + " already applies a fused activation (activation_type " +
                                    std::to_string(h.activation_type) + ")");
    if (h.int8_scale_term != 0)
        return MatchResult::blocked(who + " has int8 weights (int8_scale_term " + std::to_string(h.int8_scale_term) + ")");
    if (h.dynamic_weight != 0)
        return MatchResult::blocked(who + " takes its weights from a blob (dynamic_weight)");
    if (h.num_output <= 0 || h.weight_data_size <= 0 || h.weight_data_size % h.num_output != 0)
        return MatchResult::blocked(who + " has inconsistent num_output / weight_data_size params");
    size_t need = h.bias_term ? 2 : 1;
    if (l.weights.size() < need)
        return MatchResult::blocked(who + " has no weights loaded");
    if (l.weights[0].storage == WeightStorage::Int8)
        return MatchResult::blocked(who + " stores int8 weights");
    if (l.weights[0].data.size() != (size_t)h.weight_data_size ||
        (h.bias_term && l.weights[1].data.size() != (size_t)h.num_output))
        return MatchResult::blocked(who + " has weight arrays of unexpected size");
    return MatchResult::ok();
}

Status fold_affine(LayerNode& l, const std::vector<double>& scale, const std::vector<double>& shift) {
    AffineHost h = affine_host(l);
    if (!h.is_host)
        return internal_error("fold_affine on " + layer_desc(l.name, l.type));
    const int n = h.num_output;
    if ((!scale.empty() && (int)scale.size() != n) || (!shift.empty() && (int)shift.size() != n))
        return internal_error("fold_affine: " + std::to_string(n) + " channels, factors do not match");
    const size_t per = (size_t)h.weight_data_size / n;
    std::vector<float> w = l.weights[0].data;
    std::vector<float> b = h.bias_term ? l.weights[1].data : std::vector<float>(n, 0.f);
    for (int o = 0; o < n; o++) {
        double s = scale.empty() ? 1.0 : scale[o];
        double t = shift.empty() ? 0.0 : shift[o];
        if (!scale.empty())
            for (size_t k = 0; k < per; k++)
                w[o * per + k] = (float)((double)w[o * per + k] * s);
        b[o] = (float)((double)b[o] * s + t);
    }
    for (float v : w)
        if (!std::isfinite(v))
            return unsupported("folding would give non-finite weights in " + layer_desc(l.name, l.type));
    for (float v : b)
        if (!std::isfinite(v))
            return unsupported("folding would give a non-finite bias in " + layer_desc(l.name, l.type));
    bool shift_nonzero = false;
    for (double t : shift)
        shift_nonzero = shift_nonzero || t != 0.0;
    l.weights[0].set_values(std::move(w));
    if (h.bias_term) {
        l.weights[1].set_values(std::move(b));
    } else if (shift_nonzero) {
        l.params.set_int(h.bias_param, 1);
        // the bias array follows the weights (and precedes any int8 scales, absent here)
        l.weights.insert(l.weights.begin() + 1, WeightArray::untagged(std::move(b)));
    }
    return Status::ok();
}

int host_output_dims(const PassContext& ctx, int layer) {
    const LayerNode& l = ctx.g.layers[layer];
    const Shape& out = ctx.shape(l.tops[0]);
    if (out.known())
        return out.dims;
    AffineHost h = affine_host(l);
    if (h.conv_family && !h.kernel_1x1)
        return 3;
    return 0;
}

Broadcast classify_constant_operand(const Shape& out, int out_dims, bool inner_product, int channels, const Shape& op,
                                    std::string& why) {
    auto list = op.to_list();
    std::string opstr = op.str();
    if (!op.known()) {
        why = "the constant operand's shape is unknown";
        return Broadcast::None;
    }
    // [1], [1,1], [1,1,1]: one value. A rank above the output's would raise the output's rank.
    if (op.total() == 1) {
        if (op.dims == 1 || (out_dims != 0 && op.dims <= out_dims))
            return Broadcast::Scalar;
        why = "the constant " + opstr + " has more dimensions than the output could have";
        return Broadcast::None;
    }
    auto is = [&](std::initializer_list<int> want) { return list == std::vector<int>(want); };
    switch (out_dims) {
    case 3:
        // aligned with the outer axes: [c] -> [c,1,1]; [c,1] -> [c,1,1]; [c,1,1] as is
        if (is({channels}) || is({channels, 1}) || is({channels, 1, 1}))
            return Broadcast::PerChannel;
        break;
    case 1:
        if (is({channels}))
            return Broadcast::PerChannel;
        break;
    case 2:
        // row-wise InnerProduct [h, num_output]: channels run along w. [1, num_output] is per
        // column; a 1D [num_output] aligns with the rows when num_output == h, else with w
        if (is({1, channels}) || (is({channels}) && out.known() && out.h != channels))
            return Broadcast::PerChannel;
        break;
    case 0:
        // Convolution family: 3D or (InnerProduct path) 1D [num_output]; [c] is per channel for both.
        // InnerProduct: 1D [num_output] or row-wise 2D, where [c] would run along the rows.
        if (!inner_product && is({channels}))
            return Broadcast::PerChannel;
        why = "the output shape is unknown (give input shapes), and " + opstr +
              " is not per channel for every shape it could have";
        return Broadcast::None;
    default: break;
    }
    why = "the constant " + opstr + " does not broadcast per output channel (" + std::to_string(channels) +
          " channels) against a " + std::to_string(out_dims) + "D output";
    return Broadcast::None;
}

Shape memorydata_shape(const LayerNode& l) {
    return memorydata_shape(l.params.get_int(0, 0), l.params.get_int(1, 0), l.params.get_int(11, 0),
                            l.params.get_int(2, 0));
}

bool is_input_blob(const Graph& g, int blob) {
    int p = g.producer(blob);
    return p >= 0 && g.layers[p].type == "Input";
}

MatchResult check_remove_identity(const PassContext& ctx, int layer, int in_blob, int out_blob) {
    const Graph& g = ctx.g;
    int in_consumers = g.consumer_count(in_blob);
    if (!ctx.is_protected(out_blob)) {
        if (in_consumers != 1)
            return MatchResult::blocked(lq(g, layer) + "'s input " + bq(g, in_blob) + " has " +
                                        std::to_string(in_consumers) +
                                        " consumers; bypassing it would give that blob several consumers");
        return MatchResult::ok();
    }
    // out is a model output or kept: the producer of `in` must write it
    std::string why_out = bq(g, out_blob) + " is " + ctx.protected_why[out_blob];
    int p = g.producer(in_blob);
    if (p < 0 || g.layers[p].type == "Input")
        return MatchResult::blocked(lq(g, layer) + "'s output " + why_out + " and its input " + bq(g, in_blob) +
                                    " is a model input");
    if (ctx.is_protected(in_blob))
        return MatchResult::blocked(lq(g, layer) + "'s output " + why_out + " and its input " + bq(g, in_blob) +
                                    " is " + ctx.protected_why[in_blob]);
    if (in_consumers != 1)
        return MatchResult::blocked(lq(g, layer) + "'s output " + why_out + " and its input " + bq(g, in_blob) +
                                    " has " + std::to_string(in_consumers) + " consumers");
    return MatchResult::ok();
}

void remove_identity(PassContext& ctx, int layer, int in_blob, int out_blob) {
    Graph& g = ctx.g;
    if (!ctx.is_protected(out_blob)) {
        g.erase_layer(layer);
        g.replace_uses(out_blob, in_blob);
        return;
    }
    int p = g.producer(in_blob);
    for (size_t k = 0; k < g.layers[p].tops.size(); k++)
        if (g.layers[p].tops[k] == in_blob)
            g.set_top(p, k, out_blob);
    g.erase_layer(layer);
}

}  // namespace nnfold
