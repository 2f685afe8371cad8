// Neural-network ONNX operators -> ncnn layers: Conv, ConvTranspose, pooling, normalizations,
// Gemm/MatMul, reductions. Weight layouts follow Tencent/ncnn tools/onnx/onnx2ncnn.cpp; padding
// and output sizes are computed here from the static shapes (SAME pads resolved to explicit
// numbers), so every layer gets explicit parameters and its output shape can be checked.
#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

namespace {

std::vector<float> floats_of(const Tensor& t) {
    std::vector<float> v(t.numel());
    for (size_t k = 0; k < v.size(); k++)
        v[k] = (float)t.at(k);
    return v;
}

// Spatial geometry of a 1D or 2D window op, ONNX attributes resolved against the input size.
struct Window {
    int kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
    int pt = 0, pl = 0, pb = 0, pr = 0;  // explicit pads
    int64_t oh = 1, ow = 1;              // ONNX output size
};

// A Window from per-axis values (outermost spatial axis first; 1 or 2 axes, a 1D window keeps
// the h members at their defaults).
Window make_window(const Dims& kernel, const Dims& strides, const Dims& dil, const Dims& pad_begin, const Dims& pad_end,
                   const Dims& out) {
    Window w;
    size_t iw = kernel.size() - 1;
    w.kw = (int)kernel[iw];
    w.sw = (int)strides[iw];
    w.dw = (int)dil[iw];
    w.pl = (int)pad_begin[iw];
    w.pr = (int)pad_end[iw];
    w.ow = out[iw];
    if (kernel.size() == 2) {
        w.kh = (int)kernel[0];
        w.sh = (int)strides[0];
        w.dh = (int)dil[0];
        w.pt = (int)pad_begin[0];
        w.pb = (int)pad_end[0];
        w.oh = out[0];
    }
    return w;
}

// kernel/strides/dilations/pads/auto_pad of Conv and pooling ops. `spatial` is 1 or 2; for 1D the
// h members describe a dummy axis of size 1.
Status conv_window(Importer& im, const Dims& in_spatial, const Dims& kernel, bool ceil_mode, Window& w) {
    size_t ns = in_spatial.size();
    Dims strides(ns, 1), dil(ns, 1), pads(2 * ns, 0);
    Dims tmp;
    if (im.attr_ints("strides", tmp)) {
        if (tmp.size() != ns)
            return im.invalid_here("strides has " + std::to_string(tmp.size()) + " entries for " +
                                   std::to_string(ns) + " spatial axes");
        strides = tmp;
    }
    if (im.attr_ints("dilations", tmp)) {
        if (tmp.size() != ns)
            return im.invalid_here("dilations has the wrong length");
        dil = tmp;
    }
    if (im.attr_ints("pads", tmp)) {
        if (tmp.size() != 2 * ns)
            return im.invalid_here("pads has " + std::to_string(tmp.size()) + " entries for " + std::to_string(ns) +
                                   " spatial axes");
        pads = tmp;
    }
    if (kernel.size() != ns)
        return im.invalid_here("kernel_shape has the wrong length");
    std::string auto_pad = im.attr_s("auto_pad", "NOTSET");
    Dims out(ns), pb(ns), pe(ns);
    for (size_t k = 0; k < ns; k++) {
        int64_t in = in_spatial[k], kk = kernel[k], s = strides[k], d = dil[k];
        if (kk <= 0 || s <= 0 || d <= 0 || kk > 65536 || s > 65536 || d > 65536)
            return im.invalid_here("kernel, stride and dilation must be positive (and sane)");
        int64_t ext = (kk - 1) * d + 1;
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            out[k] = (in + s - 1) / s;
            int64_t total = std::max<int64_t>((out[k] - 1) * s + ext - in, 0);
            pb[k] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
            pe[k] = total - pb[k];
        } else if (auto_pad == "VALID") {
            pb[k] = pe[k] = 0;
            out[k] = in >= ext ? (in - ext) / s + 1 : 0;
        } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
            pb[k] = pads[k];
            pe[k] = pads[k + ns];
            if (pb[k] < 0 || pe[k] < 0 || pb[k] > 65536 || pe[k] > 65536)
                return im.unsupported_here("negative or huge pads");
            int64_t span = in + pb[k] + pe[k] - ext;
            if (span < 0)
                return im.invalid_here("input " + std::to_string(in) + " is smaller than the kernel extent " +
                                       std::to_string(ext));
            out[k] = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
            // ceil mode: a window that would start inside the end padding is dropped (as PyTorch
            // and onnxruntime do)
            if (ceil_mode && (out[k] - 1) * s >= in + pb[k])
                out[k]--;
        } else {
            return im.invalid_here("auto_pad '" + sanitize(auto_pad) + "' is not valid");
        }
        if (out[k] <= 0)
            return im.invalid_here("output size is not positive");
    }
    // the ncnn pads that give exactly the ONNX output with ncnn's floor rule: the end pad covers
    // the last window (in ceil mode this extends past the ONNX pad)
    for (size_t k = 0; k < ns; k++) {
        int64_t ext = (kernel[k] - 1) * dil[k] + 1;
        pe[k] = std::max<int64_t>(0, (out[k] - 1) * strides[k] + ext - in_spatial[k] - pb[k]);
    }
    w = make_window(kernel, strides, dil, pb, pe, out);
    return Status::ok();
}

// The input as ncnn 3D [c, h, w] for a window op on an ONNX [1, C, H, W] or [1, C, L] tensor.
Status window_input(Importer& im, const Dims& xs, int& blob) {
    if (xs.size() != 3 && xs.size() != 4)
        return im.unsupported_here("input of rank " + std::to_string(xs.size()) +
                                   " (nnfold supports 1D and 2D spatial inputs [N,C,L] / [N,C,H,W])");
    if (xs[0] != 1)
        return im.unsupported_here("batch size " + std::to_string(xs[0]) + " (ncnn runs a batch of 1)");
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    Shape s3 = Shape::d3((int)xs.back(), xs.size() == 4 ? (int)xs[2] : 1, (int)xs[1]);
    return im.reshape_blob(xb, s3, blob);
}

// ncnn's param ids for a window's geometry: the Convolution family and Pooling number them
// differently (Pooling has no dilation: id -1).
struct WindowIds {
    int kw, kh, dw, dh, sw, sh, pl, pr, pt, pb;
};
constexpr WindowIds kConvIds = {1, 11, 2, 12, 3, 13, 4, 15, 14, 16};
constexpr WindowIds kPoolIds = {1, 11, -1, -1, 2, 12, 3, 14, 13, 15};

void set_window_params(ParamDict& pd, const Window& w, const WindowIds& id) {
    const std::pair<int, int> params[] = {{id.kw, w.kw}, {id.kh, w.kh}, {id.dw, w.dw}, {id.dh, w.dh}, {id.sw, w.sw},
                                          {id.sh, w.sh}, {id.pl, w.pl}, {id.pr, w.pr}, {id.pt, w.pt}, {id.pb, w.pb}};
    for (auto& p : params)
        if (p.first >= 0)
            pd.set_int(p.first, p.second);
}

// Emits window layer `type` (params `pd`) on [c, h, w] blob `xb` and defines the node's output
// [1, channels, (oh,) ow]; `layer` is the layer emitted.
Status emit_window_layer(Importer& im, const std::string& type, const ParamDict& pd, int xb, const Window& w,
                         int64_t channels, size_t spatial_axes, int& layer) {
    int top = im.temp_blob(Shape::d3((int)w.ow, (int)w.oh, (int)channels));
    layer = im.emit(type, "", {xb}, {top}, pd);
    Dims od = {1, channels};
    if (spatial_axes == 2)
        od.push_back(w.oh);
    od.push_back(w.ow);
    return im.define_runtime(0, top, od);
}

// Weight (and optional bias) of Conv and ConvTranspose: constants, the weight of the input's
// rank, which is at least 3 ([N, C, spatial...]) before W->dims[0] and [1] are read (libFuzzer
// finding: a scalar input with a scalar weight indexed an empty shape).
Status conv_operands(Importer& im, const Dims& xs, const Tensor*& W, const Tensor*& B) {
    NF_RETURN_IF_ERROR(im.need_const(1, "weight", W));
    B = nullptr;
    if (im.has_in(2))
        NF_RETURN_IF_ERROR(im.need_const(2, "bias", B));
    if (W->dims.size() != xs.size() || xs.size() < 3)
        return im.invalid_here("weight " + dims_str(W->dims) + " does not match input " + dims_str(xs));
    return Status::ok();
}

Status check_conv_bias(Importer& im, const Tensor* B, int64_t O) {
    if (B && (int64_t)B->numel() != O)
        return im.invalid_here("bias has " + std::to_string(B->numel()) + " values for " + std::to_string(O) +
                               " output channels");
    return Status::ok();
}

// Emits a Convolution-family layer (`type`; its DepthWise form for group > 1) with `pd`'s
// type-specific params on [c, h, w] blob `xb`, and defines the node's output [1, O, (oh,) ow].
Status emit_conv_layer(Importer& im, std::string type, ParamDict pd, int xb, const Window& w, int64_t O, int64_t group,
                       size_t spatial_axes, std::vector<float> weight, const Tensor* B) {
    pd.set_int(0, (int)O);
    set_window_params(pd, w, kConvIds);
    pd.set_int(5, B ? 1 : 0);
    pd.set_int(6, (int)weight.size());
    if (group > 1) {
        type += "DepthWise";
        pd.set_int(7, (int)group);
    }
    int l;
    NF_RETURN_IF_ERROR(emit_window_layer(im, type, pd, xb, w, O, spatial_axes, l));
    std::vector<std::vector<float>> arrays = {std::move(weight)};
    if (B)
        arrays.push_back(floats_of(*B));
    return im.set_weights(l, std::move(arrays));
}

Status op_conv(Importer& im, const Node&) {
    const Dims& xs = im.in(0).shape;
    const Tensor *W, *B;
    NF_RETURN_IF_ERROR(conv_operands(im, xs, W, B));
    int64_t group = im.attr_i("group", 1);
    int64_t O = W->dims[0], C = xs[1];
    if (group <= 0 || C % group != 0 || O % group != 0 || W->dims[1] * group != C)
        return im.invalid_here("weight " + dims_str(W->dims) + " with group " + std::to_string(group) +
                               " does not fit input channels " + std::to_string(C));
    NF_RETURN_IF_ERROR(check_conv_bias(im, B, O));
    int xb;
    NF_RETURN_IF_ERROR(window_input(im, xs, xb));
    Dims spatial(xs.begin() + 2, xs.end()), kernel(W->dims.begin() + 2, W->dims.end());
    Dims ks;
    if (im.attr_ints("kernel_shape", ks) && ks != kernel)
        return im.invalid_here("kernel_shape " + dims_str(ks) + " differs from the weight's " + dims_str(kernel));
    Window w;
    NF_RETURN_IF_ERROR(conv_window(im, spatial, kernel, false, w));
    return emit_conv_layer(im, "Convolution", ParamDict(), xb, w, O, group, spatial.size(), floats_of(*W), B);
}

// ConvTranspose's geometry: pads from the attributes, or from output_shape / SAME auto_pad
// (ONNX: SAME_UPPER puts the extra pad at the end, otherwise at the beginning).
Status deconv_window(Importer& im, const Dims& spatial, const Dims& kernel, Window& w, Dims& opad) {
    size_t ns = spatial.size();
    Dims strides(ns, 1), dil(ns, 1), pads(2 * ns, 0), oshape;
    opad.assign(ns, 0);
    im.attr_ints("strides", strides);
    im.attr_ints("dilations", dil);
    im.attr_ints("pads", pads);
    im.attr_ints("output_padding", opad);
    bool has_oshape = im.attr_ints("output_shape", oshape);
    std::string auto_pad = im.attr_s("auto_pad", "NOTSET");
    if (strides.size() != ns || dil.size() != ns || pads.size() != 2 * ns || opad.size() != ns)
        return im.invalid_here("strides/dilations/pads/output_padding have the wrong length");
    if (has_oshape && oshape.size() > ns)
        oshape.erase(oshape.begin(), oshape.end() - ns);  // given with N, C
    Dims pb(ns), pe(ns), out(ns);
    for (size_t k = 0; k < ns; k++) {
        if (kernel[k] <= 0 || strides[k] <= 0 || dil[k] <= 0 || kernel[k] > 65536 || strides[k] > 65536 ||
            dil[k] > 65536 || opad[k] < 0 || opad[k] > 65536)
            return im.invalid_here("kernel, stride, dilation and output_padding must be positive and sane");
        int64_t full = strides[k] * (spatial[k] - 1) + opad[k] + (kernel[k] - 1) * dil[k] + 1;
        if (has_oshape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            int64_t target = has_oshape ? oshape[k] : spatial[k] * strides[k];
            int64_t total = full - target;
            if (total < 0)
                return im.unsupported_here("output_shape larger than the full transposed convolution");
            pe[k] = auto_pad == "SAME_UPPER" ? total - total / 2 : total / 2;
            pb[k] = total - pe[k];
        } else {
            pb[k] = pads[k];
            pe[k] = pads[k + ns];
        }
        if (pb[k] < 0 || pe[k] < 0)
            return im.unsupported_here("negative pads");
        out[k] = full - pb[k] - pe[k];
        if (out[k] <= 0)
            return im.invalid_here("output size is not positive");
    }
    w = make_window(kernel, strides, dil, pb, pe, out);
    return Status::ok();
}

Status op_conv_transpose(Importer& im, const Node&) {
    const Dims& xs = im.in(0).shape;
    const Tensor *W, *B;
    NF_RETURN_IF_ERROR(conv_operands(im, xs, W, B));
    int64_t group = im.attr_i("group", 1);
    int64_t C = xs[1], Og = W->dims[1], O = Og * group;
    if (group <= 0 || W->dims[0] != C || C % group != 0)
        return im.invalid_here("weight " + dims_str(W->dims) + " with group " + std::to_string(group) +
                               " does not fit input channels " + std::to_string(C));
    NF_RETURN_IF_ERROR(check_conv_bias(im, B, O));
    int xb;
    NF_RETURN_IF_ERROR(window_input(im, xs, xb));
    Dims spatial(xs.begin() + 2, xs.end()), kernel(W->dims.begin() + 2, W->dims.end()), opad;
    Window w;
    NF_RETURN_IF_ERROR(deconv_window(im, spatial, kernel, w, opad));
    ParamDict pd;
    pd.set_int(18, (int)opad.back());
    pd.set_int(19, spatial.size() == 2 ? (int)opad[0] : 0);
    // ONNX weight [g][C/g][O/g][k] -> ncnn [g][O/g][C/g][k] (onnx2ncnn's transposition)
    int64_t Cg = C / group, maxk = (int64_t)(W->numel() / (uint64_t)(C * Og));
    std::vector<float> wt(W->numel());
    for (int64_t gi = 0; gi < group; gi++)
        for (int64_t q = 0; q < Cg; q++)
            for (int64_t p = 0; p < Og; p++)
                for (int64_t k = 0; k < maxk; k++)
                    wt[(size_t)((((gi * Og + p) * Cg) + q) * maxk + k)] =
                        (float)W->at((size_t)((((gi * Cg + q) * Og) + p) * maxk + k));
    return emit_conv_layer(im, "Deconvolution", pd, xb, w, O, group, spatial.size(), std::move(wt), B);
}

Status pool(Importer& im, const Node& n, int pooling_type) {
    const Value& x = im.in(0);
    if (n.outputs.size() > 1 && !n.outputs[1].empty())
        return im.unsupported_here("the Indices output of MaxPool is not supported");
    const Dims& xs = x.shape;
    int xb;
    NF_RETURN_IF_ERROR(window_input(im, xs, xb));
    Dims spatial(xs.begin() + 2, xs.end()), kernel;
    if (!im.attr_ints("kernel_shape", kernel))
        return im.invalid_here("no kernel_shape");
    Dims dil;
    if (im.attr_ints("dilations", dil))
        for (int64_t d : dil)
            if (d != 1)
                return im.unsupported_here("dilated pooling (ncnn's Pooling has no dilation)");
    bool ceil_mode = im.attr_i("ceil_mode", 0) != 0;
    Window w;
    NF_RETURN_IF_ERROR(conv_window(im, spatial, kernel, ceil_mode, w));
    int count_include_pad = (int)im.attr_i("count_include_pad", 0);
    if (pooling_type == 1 && count_include_pad) {
        // ncnn divides by the full kernel area; onnxruntime too, except for windows hanging over the
        // end in ceil mode: refuse those rather than differ
        Dims pads(2 * spatial.size(), 0);
        im.attr_ints("pads", pads);
        int64_t onnx_end_w = pads.size() == 2 * spatial.size() ? pads.back() : 0;
        if (w.pr > onnx_end_w || (spatial.size() == 2 && w.pb > pads[2 + 0]))
            return im.unsupported_here("count_include_pad with ceil_mode windows past the padding");
    }
    ParamDict pd;
    pd.set_int(0, pooling_type);
    set_window_params(pd, w, kPoolIds);
    pd.set_int(5, 1);  // pad_mode valid: exactly the pads given
    pd.set_int(6, count_include_pad);
    int layer;
    return emit_window_layer(im, "Pooling", pd, xb, w, xs[1], spatial.size(), layer);
}

Status op_maxpool(Importer& im, const Node& n) { return pool(im, n, 0); }
Status op_avgpool(Importer& im, const Node& n) { return pool(im, n, 1); }

Status global_pool(Importer& im, const Node& n, int pooling_type) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    int xb;
    NF_RETURN_IF_ERROR(window_input(im, xs, xb));
    ParamDict pd;
    pd.set_int(0, pooling_type);
    pd.set_int(4, 1);
    int top = im.temp_blob(Shape::d1((int)xs[1]));
    im.emit("Pooling", "", {xb}, {top}, pd);
    Dims od(xs.size(), 1);
    od[1] = xs[1];
    (void)n;
    return im.define_runtime(0, top, od);
}

Status op_global_avgpool(Importer& im, const Node& n) { return global_pool(im, n, 1); }
Status op_global_maxpool(Importer& im, const Node& n) { return global_pool(im, n, 0); }

// Per-channel ops on ONNX axis 1 of a batched tensor: ncnn's outermost axis.
Status channel_input(Importer& im, const Dims& xs) {
    if (xs.size() < 2 || xs[0] != 1)
        return im.unsupported_here("input " + dims_str(xs) + " (needs [1, C, ...]: ncnn runs a batch of 1)");
    return Status::ok();
}

Status op_batchnorm(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    NF_RETURN_IF_ERROR(channel_input(im, x.shape));
    for (size_t k = 1; k < n.outputs.size(); k++)
        if (!n.outputs[k].empty())
            return im.unsupported_here("training-mode outputs");
    int64_t C = x.shape[1];
    const Tensor *scale, *bias, *mean, *var;
    NF_RETURN_IF_ERROR(im.need_const(1, "scale", scale));
    NF_RETURN_IF_ERROR(im.need_const(2, "B", bias));
    NF_RETURN_IF_ERROR(im.need_const(3, "mean", mean));
    NF_RETURN_IF_ERROR(im.need_const(4, "var", var));
    for (const Tensor* t : {scale, bias, mean, var})
        if ((int64_t)t->numel() != C)
            return im.invalid_here("parameter " + quote(t->name) + " has " + std::to_string(t->numel()) +
                                   " values for " + std::to_string(C) + " channels");
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    ParamDict pd;
    pd.set_int(0, (int)C);
    pd.set_float(1, im.attr_f("epsilon", 1e-5f));
    int top = im.temp_blob(im.g.blobs[xb].shape);
    int l = im.emit("BatchNorm", "", {xb}, {top}, pd);
    // ncnn order: slope, mean, var, bias
    NF_RETURN_IF_ERROR(im.set_weights(l, {floats_of(*scale), floats_of(*mean), floats_of(*var), floats_of(*bias)}));
    return im.define_runtime(0, top, x.shape);
}

Status op_instancenorm(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    NF_RETURN_IF_ERROR(channel_input(im, x.shape));
    int64_t C = x.shape[1];
    const Tensor *scale, *bias;
    NF_RETURN_IF_ERROR(im.need_const(1, "scale", scale));
    NF_RETURN_IF_ERROR(im.need_const(2, "B", bias));
    if ((int64_t)scale->numel() != C || (int64_t)bias->numel() != C)
        return im.invalid_here("scale/B sizes do not match the channels");
    int64_t rest = 1;
    for (size_t k = 2; k < x.shape.size(); k++)
        rest *= x.shape[k];
    // ncnn InstanceNorm normalizes each channel of a 3D blob: view the input as [C, 1, rest]
    int xb, rb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, Shape::d3((int)rest, 1, (int)C), rb));
    ParamDict pd;
    pd.set_int(0, (int)C);
    pd.set_float(1, im.attr_f("epsilon", 1e-5f));
    pd.set_int(2, 1);
    int top = im.temp_blob(im.g.blobs[rb].shape);
    int l = im.emit("InstanceNorm", "", {rb}, {top}, pd);
    NF_RETURN_IF_ERROR(im.set_weights(l, {floats_of(*scale), floats_of(*bias)}));
    (void)n;
    return im.define_runtime(0, top, x.shape);
}

Status op_layernorm(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    for (size_t k = 1; k < n.outputs.size(); k++)
        if (!n.outputs[k].empty())
            return im.unsupported_here("the Mean / InvStdDev outputs");
    const Dims& xs = x.shape;
    int ax;
    if (!norm_axis(im.attr_i("axis", -1), xs.size(), ax))
        return im.invalid_here("axis out of range");
    Dims norm_shape(xs.begin() + ax, xs.end());
    int64_t N = 1, outer = 1;
    for (int64_t d : norm_shape)
        N *= d;
    for (int k = 0; k < ax; k++)
        outer *= xs[k];
    const Tensor* scale;
    NF_RETURN_IF_ERROR(im.need_const(1, "Scale", scale));
    const Tensor* bias = nullptr;
    if (im.has_in(2))
        NF_RETURN_IF_ERROR(im.need_const(2, "B", bias));
    // gamma/beta expanded to the normalized shape (they broadcast to it)
    auto expand = [&](const Tensor* t, std::vector<float>& out) -> Status {
        Dims od;
        if (!broadcast_shapes(t->dims, norm_shape, od) || od != norm_shape)
            return im.unsupported_here("Scale/B of shape " + dims_str(t->dims) + " for normalized shape " +
                                       dims_str(norm_shape));
        out.resize((size_t)N);
        if ((int64_t)t->numel() == N) {
            out = floats_of(*t);
            return Status::ok();
        }
        // general broadcast: index each element of norm_shape into t
        size_t r = norm_shape.size();
        Dims tp(r - t->dims.size(), 1);
        tp.insert(tp.end(), t->dims.begin(), t->dims.end());
        std::vector<int64_t> idx(r, 0);
        for (int64_t i = 0; i < N; i++) {
            int64_t src = 0;
            for (size_t k = 0; k < r; k++)
                src = src * tp[k] + (tp[k] == 1 ? 0 : idx[k]);
            out[(size_t)i] = (float)t->at((size_t)src);
            for (size_t k = r; k-- > 0;) {
                if (++idx[k] < norm_shape[k])
                    break;
                idx[k] = 0;
            }
        }
        return Status::ok();
    };
    std::vector<float> gamma, beta((size_t)N, 0.f);
    NF_RETURN_IF_ERROR(expand(scale, gamma));
    if (bias)
        NF_RETURN_IF_ERROR(expand(bias, beta));
    // ncnn LayerNorm normalizes each row of a 2D blob (affine_size = w): view as [outer, N]
    int xb, rb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    Shape s2 = outer == 1 ? Shape::d1((int)N) : Shape::d2((int)N, (int)outer);
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, s2, rb));
    ParamDict pd;
    pd.set_int(0, (int)N);
    pd.set_float(1, im.attr_f("epsilon", 1e-5f));
    pd.set_int(2, 1);
    int top = im.temp_blob(s2);
    int l = im.emit("LayerNorm", "", {rb}, {top}, pd);
    NF_RETURN_IF_ERROR(im.set_weights(l, {std::move(gamma), std::move(beta)}));
    return im.define_runtime(0, top, xs);
}

// A [..., K] x constant B [K, N] (+ bias) as InnerProduct on the rows of A viewed as 2D.
Status inner_product(Importer& im, int ab, const Dims& as, std::vector<float> weight_nk, int64_t N,
                     const std::vector<float>* bias, const Dims& od) {
    int64_t K = as.back(), rows = 1;
    for (size_t k = 0; k + 1 < as.size(); k++)
        rows *= as[k];
    Shape s2 = rows == 1 ? Shape::d1((int)K) : Shape::d2((int)K, (int)rows);
    int rb;
    NF_RETURN_IF_ERROR(im.reshape_blob(ab, s2, rb));
    ParamDict pd;
    pd.set_int(0, (int)N);
    pd.set_int(1, bias ? 1 : 0);
    pd.set_int(2, (int)(N * K));
    Shape so = rows == 1 ? Shape::d1((int)N) : Shape::d2((int)N, (int)rows);
    int top = im.temp_blob(so);
    int l = im.emit("InnerProduct", "", {rb}, {top}, pd);
    std::vector<std::vector<float>> arrays = {std::move(weight_nk)};
    if (bias)
        arrays.push_back(*bias);
    NF_RETURN_IF_ERROR(im.set_weights(l, std::move(arrays)));
    return im.define_runtime(0, top, od);
}

Status op_gemm(Importer& im, const Node& n) {
    const Value& a = im.in(0);
    if (a.is_const)
        return im.unsupported_here("a constant A (only B and C may be constant)");
    const Tensor* B;
    NF_RETURN_IF_ERROR(im.need_const(1, "B", B));
    if (a.shape.size() != 2 || B->dims.size() != 2)
        return im.invalid_here("A and B must be 2D");
    bool tA = im.attr_i("transA", 0) != 0, tB = im.attr_i("transB", 0) != 0;
    if (tA)
        return im.unsupported_here("transA=1 on a runtime A");
    float alpha = im.attr_f("alpha", 1.f), beta = im.attr_f("beta", 1.f);
    int64_t M = a.shape[0], K = a.shape[1];
    int64_t N = tB ? B->dims[0] : B->dims[1];
    if ((tB ? B->dims[1] : B->dims[0]) != K)
        return im.invalid_here("A " + dims_str(a.shape) + " and B " + dims_str(B->dims) + " do not multiply");
    // weight [N][K] = alpha * op(B)^T
    std::vector<float> wt((size_t)(N * K));
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = 0; k < K; k++)
            wt[(size_t)(i * K + k)] = (float)(tB ? B->at((size_t)(i * K + k)) : B->at((size_t)(k * N + i)));
    if (alpha != 1.f)
        for (auto& v : wt)
            v *= alpha;
    std::vector<float> bias;
    const Tensor* C = nullptr;
    if (im.has_in(2))
        NF_RETURN_IF_ERROR(im.need_const(2, "C", C));
    Dims od = {M, N};
    if (C && beta != 0.f) {
        Dims cb;
        if (!broadcast_shapes(C->dims, od, cb) || cb != od)
            return im.invalid_here("C " + dims_str(C->dims) + " does not broadcast to " + dims_str(od));
        bool per_n = C->numel() == 1 || ((int64_t)C->numel() == N && (C->dims.size() == 1 || C->dims[0] == 1));
        if (!per_n && M != 1)
            return im.unsupported_here("C of shape " + dims_str(C->dims) + " varies along M");
        bias.resize((size_t)N);
        for (int64_t i = 0; i < N; i++)
            bias[(size_t)i] = beta * (float)C->at(C->numel() == 1 ? 0 : (size_t)i);
    }
    int ab;
    NF_RETURN_IF_ERROR(im.input_blob(0, ab));
    return inner_product(im, ab, a.shape, std::move(wt), N, bias.empty() ? nullptr : &bias, od);
}

Status op_matmul(Importer& im, const Node& n) {
    const Value& a = im.in(0);
    const Value& b = im.in(1);
    if (a.shape.empty() || b.shape.empty())
        return im.invalid_here("scalar operands");
    // ONNX (numpy) matmul output shape
    Dims as = a.shape, bs = b.shape;
    bool a1 = as.size() == 1, b1 = bs.size() == 1;
    if (a1)
        as.insert(as.begin(), 1);
    if (b1)
        bs.push_back(1);
    if (as.back() != bs[bs.size() - 2])
        return im.invalid_here("shapes " + dims_str(a.shape) + " and " + dims_str(b.shape) + " do not multiply");
    Dims batch_a(as.begin(), as.end() - 2), batch_b(bs.begin(), bs.end() - 2), batch;
    if (!broadcast_shapes(batch_a, batch_b, batch))
        return im.invalid_here("batch dimensions do not broadcast");
    Dims od = batch;
    if (!a1)
        od.push_back(as[as.size() - 2]);
    if (!b1)
        od.push_back(bs.back());
    if (b.is_const && !a.is_const && b.shape.size() == 2) {
        int64_t K = bs[0], N = bs[1];
        std::vector<float> wt((size_t)(N * K));
        for (int64_t i = 0; i < N; i++)
            for (int64_t k = 0; k < K; k++)
                wt[(size_t)(i * K + k)] = (float)b.c.at((size_t)(k * N + i));
        int ab;
        NF_RETURN_IF_ERROR(im.input_blob(0, ab));
        return inner_product(im, ab, a.shape, std::move(wt), N, nullptr, od);
    }
    // General case: ncnn MatMul (numpy matmul semantics on the ncnn shapes; same rank operands)
    int ab, bb;
    NF_RETURN_IF_ERROR(im.input_blob(0, ab));
    NF_RETURN_IF_ERROR(im.input_blob(1, bb));
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    int top = im.temp_blob(so);
    im.emit("MatMul", "", {ab, bb}, {top});
    (void)n;
    return im.define_runtime(0, top, od);
}

// ncnn Reduction operation codes (src/layer/reduction.h)
int reduction_code(const std::string& op) {
    if (op == "ReduceSum") return 0;
    if (op == "ReduceL1") return 1;
    if (op == "ReduceSumSquare") return 2;
    if (op == "ReduceMean") return 3;
    if (op == "ReduceMax") return 4;
    if (op == "ReduceMin") return 5;
    if (op == "ReduceProd") return 6;
    if (op == "ReduceL2") return 8;
    if (op == "ReduceLogSumExp") return 9;
    return -1;
}

// Sum, mean, max, min and prod leave an axis of size 1 unchanged; the squared/abs/log forms do not.
bool size1_identity(int code) {
    return code == 0 || code == 3 || code == 4 || code == 5 || code == 6;
}

// A Reduction of `code` over the outermost-first ncnn `axes` of blob `in`, whose shape (as a list)
// is `shape`; returns the top (the reduced axes kept as 1).
int emit_reduction(Importer& im, const std::string& name, int code, const std::vector<int>& axes, int in,
                   std::vector<int> shape) {
    for (int a : axes)
        shape[a] = 1;
    ParamDict pd;
    pd.set_int(0, code);
    pd.set_int(1, 0);
    pd.set_float(2, 1.f);
    pd.set_ints(3, axes);
    pd.set_int(4, 1);
    pd.set_int(5, 1);  // fixbug0: axes count from the outermost ncnn axis
    int top = im.temp_blob(Shape::from_list(shape));
    im.emit("Reduction", name, {in}, {top}, pd);
    return top;
}

// Output 0 as blob `xb` viewed with the ONNX shape `od` (a reduction that changes no value).
Status define_view(Importer& im, int xb, const Dims& od, int dtype) {
    Shape s;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, s).with_context(im.where()));
    int rb;
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, s, rb));
    return im.define_runtime(0, rb, od, dtype);
}

// What Reduce* translations start from: the reduced axes (`red`, per ONNX axis; every axis when
// none are given), the output shape and ncnn's operation code.
struct ReducePlan {
    std::vector<char> red;
    Dims od;
    int code = -1;
    bool identity1 = false;  // size1_identity(code)
};

// The plan of the Reduce* node being translated; `done` (output 0 defined as input 0) when the
// axes are empty and noop_with_empty_axes asks for the input unchanged.
Status reduce_plan(Importer& im, const Node& n, ReducePlan& p, bool& done) {
    const Dims& xs = im.in(0).shape;
    Dims axes;
    bool have_axes = false;
    NF_RETURN_IF_ERROR(im.ints_attr_or_input("axes", 1, axes, have_axes));
    done = false;
    if (!have_axes || axes.empty()) {
        if (im.attr_i("noop_with_empty_axes", 0)) {
            done = true;
            return im.define_alias(0, im.in(0));
        }
        axes.clear();
        for (size_t k = 0; k < xs.size(); k++)
            axes.push_back((int64_t)k);
    }
    p.red.assign(xs.size(), 0);
    for (int64_t a : axes) {
        int ax;
        if (!norm_axis(a, xs.size(), ax))
            return im.invalid_here("axis " + std::to_string(a) + " out of range");
        p.red[ax] = 1;
    }
    bool keepdims = im.attr_i("keepdims", 1) != 0;
    p.od.clear();
    for (size_t k = 0; k < xs.size(); k++) {
        if (!p.red[k])
            p.od.push_back(xs[k]);
        else if (keepdims)
            p.od.push_back(1);
    }
    p.code = reduction_code(n.op_type);
    p.identity1 = size1_identity(p.code);
    return Status::ok();
}

// Reduce* on at most 4 axes (the batch axis dropped as everywhere).
Status reduce_4d(Importer& im, const ReducePlan& p) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    // ncnn axes: outermost first, the dropped batch axis removed; axes of size 1 need no reduction
    // for sum/mean/max/min/prod but do for the squared/abs/log forms
    int shift = drops_batch(xs) ? 1 : 0;
    std::vector<int> naxes;
    for (size_t k = shift; k < xs.size(); k++)
        if (p.red[k] && !(xs[k] == 1 && p.identity1))
            naxes.push_back((int)k - shift);
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    if (naxes.empty() && p.identity1)
        return define_view(im, xb, p.od, x.dtype);
    if (naxes.empty())
        return im.unsupported_here("reduction over the batch axis only");
    int top = emit_reduction(im, "", p.code, naxes, xb, im.g.blobs[xb].shape.to_list());
    return im.define_runtime(0, top, p.od, x.dtype);
}

// Reduced and kept axes that alternate more than 4 times (a 5-D or 6-D view): one Reduction per
// reduced block, each on the 3-D view [outer, block, inner]. Sum, Mean (blocks of equal size at
// each step), Max, Min, Prod and LogSumExp compose with themselves; L1 and SumSquare are their
// own first step and sums after. L2 would need a square root at the end: refused.
Status reduce_in_steps(Importer& im, const Node& n, int xb, std::vector<int64_t> view, const std::vector<char>& vred,
                       const Dims& od) {
    int code = reduction_code(n.op_type);
    int rest = code == 1 || code == 2 ? 0 : code;
    if (code == 8 || code < 0)
        return im.unsupported_here(n.op_type + " over axes of " + dims_str(im.in(0).shape) + " (rank " +
                                   std::to_string(im.in(0).shape.size()) +
                                   ") that alternate with kept axes more than 4 times");
    int blob = xb;
    bool first = true;
    for (size_t k = 0; k < view.size(); k++) {
        if (!vred[k])
            continue;
        Shape v3;  // [outer, block, inner]
        if (!axis_view(im, view, (int)k, v3))
            return im.unsupported_here("tensor of shape " + dims_str(im.in(0).shape) + " is too large");
        int rb;
        NF_RETURN_IF_ERROR(im.reshape_blob(blob, v3, rb));
        blob = emit_reduction(im, "step" + std::to_string(k), first ? code : rest, {1}, rb, v3.to_list());
        view[k] = 1;
        first = false;
    }
    return im.define_runtime(0, blob, od, im.in(0).dtype);
}

// Reduce* on a tensor above 4 axes (onnx_high_rank.cpp): axes of size 1 that change nothing go,
// adjacent axes that are both reduced or both kept merge (a reduction over a block of axes is
// one over their product), and the Reduction runs on that view when it has at most 4 axes.
Status reduce_high_rank(Importer& im, const Node& n, const ReducePlan& p) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    std::vector<int64_t> view;
    std::vector<char> vred;
    for (size_t k = 0; k < xs.size(); k++) {
        if (xs[k] == 1 && (!p.red[k] || p.identity1))
            continue;
        if (!view.empty() && vred.back() == p.red[k])
            view.back() *= xs[k];
        else {
            view.push_back(xs[k]);
            vred.push_back(p.red[k]);
        }
    }
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    bool any = std::find(vred.begin(), vred.end(), 1) != vred.end();
    if (!any)  // every reduced axis has size 1 and the op leaves such an axis unchanged: a view
        return define_view(im, xb, p.od, x.dtype);
    if (view.size() > 4)
        return reduce_in_steps(im, n, xb, view, vred, p.od);
    std::vector<int> l, naxes;
    for (size_t k = 0; k < view.size(); k++) {
        if (view[k] > 0x7fffffff)
            return im.unsupported_here("tensor of shape " + dims_str(xs) + " is too large");
        l.push_back((int)view[k]);
        if (vred[k])
            naxes.push_back((int)k);
    }
    int rb;
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, Shape::from_list(l), rb));
    int top = emit_reduction(im, "", p.code, naxes, rb, l);
    return im.define_runtime(0, top, p.od, x.dtype);
}

// The entry of both paths: the plan first (and nothing more when the axes ask for the input).
Status translate_reduce(Importer& im, const Node& n, bool high_rank) {
    ReducePlan p;
    bool done;
    NF_RETURN_IF_ERROR(reduce_plan(im, n, p, done));
    if (done)
        return Status::ok();
    return high_rank ? reduce_high_rank(im, n, p) : reduce_4d(im, p);
}

Status op_reduce(Importer& im, const Node& n) {
    return translate_reduce(im, n, false);
}

}  // namespace

Status op_reduce_high_rank(Importer& im, const Node& n) {
    return translate_reduce(im, n, true);
}

void register_nn_ops(std::map<std::string, OpFn>& t) {
    t["Conv"] = op_conv;
    t["ConvTranspose"] = op_conv_transpose;
    t["MaxPool"] = op_maxpool;
    t["AveragePool"] = op_avgpool;
    t["GlobalAveragePool"] = op_global_avgpool;
    t["GlobalMaxPool"] = op_global_maxpool;
    t["BatchNormalization"] = op_batchnorm;
    t["InstanceNormalization"] = op_instancenorm;
    t["LayerNormalization"] = op_layernorm;
    t["Gemm"] = op_gemm;
    t["MatMul"] = op_matmul;
    for (const char* r : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                          "ReduceSumSquare", "ReduceLogSumExp"})
        t[r] = op_reduce;
}

}  // namespace onnx
}  // namespace nnfold
