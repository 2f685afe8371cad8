// Shape and data-movement ONNX operators -> ncnn layers: Reshape family (a Reshape layer, or
// nothing when the ncnn shape does not change: ncnn blobs are dense, so only the view changes),
// Transpose (ncnn Permute after dropping size-1 axes and merging axes that stay together),
// Concat, Split (ncnn Slice), Slice and Gather with constant indices (ncnn Crop), Pad (Padding),
// Resize/Upsample (Interp, only where ncnn's sampling equals ONNX's for these exact sizes),
// DepthToSpace (PixelShuffle), SpaceToDepth (Reorg).
#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

namespace {

Status define_view(Importer& im, const Dims& od) {
    const Value& x = im.in(0);
    if (x.is_const)
        return internal_error(im.where() + ": view of a constant");
    return im.define_runtime(0, x.blob, od, x.dtype);
}

Status op_reshape(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    Dims spec;
    if (im.opset >= 5 || im.has_in(1))
        NF_RETURN_IF_ERROR(im.need_ints(1, "shape", spec));
    else
        im.attr_ints("shape", spec);
    Dims od;
    NF_RETURN_IF_ERROR(reshape_target(x.shape, spec, im.attr_i("allowzero", 0) != 0, od).with_context(im.where()));
    (void)n;
    return define_view(im, od);
}

Status op_flatten(Importer& im, const Node&) {
    const Value& x = im.in(0);
    int axis;
    if (!norm_axis(im.attr_i("axis", 1), x.shape.size() + 1, axis))
        return im.invalid_here("axis out of range");
    int64_t a = 1, b = 1;
    for (int k = 0; k < axis; k++)
        a *= x.shape[k];
    for (size_t k = axis; k < x.shape.size(); k++)
        b *= x.shape[k];
    return define_view(im, {a, b});
}

Status op_squeeze(Importer& im, const Node&) {
    const Value& x = im.in(0);
    Dims axes;
    bool has = false;
    NF_RETURN_IF_ERROR(im.ints_attr_or_input("axes", 1, axes, has));
    Dims od;
    NF_RETURN_IF_ERROR(squeeze_shape(x.shape, axes, has, od).with_context(im.where()));
    return define_view(im, od);
}

Status op_unsqueeze(Importer& im, const Node&) {
    const Value& x = im.in(0);
    Dims axes;
    bool has = false;
    NF_RETURN_IF_ERROR(im.ints_attr_or_input("axes", 1, axes, has));
    if (!has)
        return im.invalid_here("no axes");
    Dims od;
    NF_RETURN_IF_ERROR(unsqueeze_shape(x.shape, axes, od).with_context(im.where()));
    return define_view(im, od);
}

// ncnn Permute order_type tables (src/layer/permute.cpp): each entry names the new axes
// innermost-first (w h [d] c) by the old axis they come from.
const char* const kPermute2[] = {"wh", "hw"};
const char* const kPermute3[] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
const char* const kPermute4[] = {"whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd",
                                 "wchd", "cwhd", "hcwd", "chwd", "wdch", "dwch", "wcdh", "cwdh",
                                 "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw"};

// order_type for an outermost-first permutation p of m axes (out axis k = in axis p[k]); -1 if none.
int permute_order_type(const std::vector<int>& p) {
    int m = (int)p.size();
    const char* const* table = m == 2 ? kPermute2 : m == 3 ? kPermute3 : kPermute4;
    int count = m == 2 ? 2 : m == 3 ? 6 : 24;
    // outermost-first names of the input axes
    std::string names = m == 2 ? "hw" : m == 3 ? "chw" : "cdhw";
    for (int t = 0; t < count; t++) {
        std::string e = table[t];  // innermost-first
        bool ok = true;
        for (int k = 0; k < m && ok; k++) {
            char name = e[m - 1 - k];  // out axis k (outermost-first)
            ok = names[p[k]] == name;
        }
        if (ok)
            return t;
    }
    return -1;
}

// The axis groups a Transpose really moves. Axes of size 1 move freely (the dense order does not
// change); then consecutive input axes that stay consecutive in the output merge into one.
// `kept` lists the input axes of size > 1; `runs` the groups in output order, each as indices
// into `kept`.
void moving_runs(const Dims& xs, const Dims& perm, std::vector<int>& kept, std::vector<std::vector<int>>& runs) {
    size_t r = xs.size();
    std::vector<int> keep_index(r, -1);
    for (size_t a = 0; a < r; a++)
        if (xs[a] > 1) {
            keep_index[a] = (int)kept.size();
            kept.push_back((int)a);
        }
    std::vector<int> seq;  // output order, as indices into `kept`
    for (size_t k = 0; k < r; k++)
        if (xs[perm[k]] > 1)
            seq.push_back(keep_index[perm[k]]);
    for (int v : seq) {
        if (!runs.empty() && runs.back().back() + 1 == v)
            runs.back().push_back(v);
        else
            runs.push_back({v});
    }
}

// More than 4 groups of axes move (a 5-D or 6-D transpose with no axes that stay together):
// the permutation as a series of swaps of two adjacent blocks, each one ncnn Permute (order
// 0,2,1,3) on the 4-D view [before, block 1, block 2, after]. Step k brings the group that
// belongs at output position k (with the groups that follow it in both orders) forward, so at
// most m - 1 Permutes run; every step only moves data, so the result is bit-identical.
Status permute_in_steps(Importer& im, const std::vector<int>& gsize, const std::vector<int>& p, const Dims& od,
                        int dtype) {
    int m = (int)p.size();
    std::vector<int> order(m);  // groups in their current order
    for (int k = 0; k < m; k++)
        order[k] = k;
    int blob;
    NF_RETURN_IF_ERROR(im.input_blob(0, blob));
    auto prod = [&](int from, int to) {  // at most the element count, checked to fit an int
        int64_t v = 1;
        for (int k = from; k < to; k++)
            v *= gsize[order[k]];
        return (int)v;
    };
    const int swap_order = permute_order_type({0, 2, 1, 3});
    for (int pos = 0; pos < m; pos++) {
        int q = (int)(std::find(order.begin(), order.end(), p[pos]) - order.begin());
        if (q == pos)
            continue;
        int len = 1;
        while (q + len < m && pos + len < m && order[q + len] == p[pos + len])
            len++;
        int before = prod(0, pos), b1 = prod(pos, q), b2 = prod(q, q + len), after = prod(q + len, m);
        int rb;
        NF_RETURN_IF_ERROR(im.reshape_blob(blob, Shape::from_list({before, b1, b2, after}), rb));
        int top = im.temp_blob(Shape::from_list({before, b2, b1, after}));
        ParamDict pd;
        pd.set_int(0, swap_order);
        im.emit("Permute", "step" + std::to_string(pos), {rb}, {top}, pd);
        std::rotate(order.begin() + pos, order.begin() + q, order.begin() + q + len);
        blob = top;
    }
    return im.define_runtime(0, blob, od, dtype);
}

Status op_transpose(Importer& im, const Node&) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    size_t r = xs.size();
    Dims perm;
    if (!im.attr_ints("perm", perm))
        for (size_t k = r; k-- > 0;)
            perm.push_back((int64_t)k);
    if (perm.size() != r)
        return im.invalid_here("perm has the wrong length");
    std::vector<char> seen(r, 0);
    Dims od(r);
    for (size_t k = 0; k < r; k++) {
        if (perm[k] < 0 || perm[k] >= (int64_t)r || seen[perm[k]])
            return im.invalid_here("perm is not a permutation");
        seen[perm[k]] = 1;
        od[k] = xs[perm[k]];
    }
    std::vector<int> kept;
    std::vector<std::vector<int>> runs;
    moving_runs(xs, perm, kept, runs);
    if (runs.size() <= 1)
        return define_view(im, od);  // no data moves
    // input order of the groups
    std::vector<int> group_of(kept.size());
    std::vector<std::vector<int>> by_input = runs;
    std::sort(by_input.begin(), by_input.end(), [](const std::vector<int>& a, const std::vector<int>& b) { return a[0] < b[0]; });
    int m = (int)by_input.size();
    uint64_t numel = 1;
    for (int64_t d : xs)
        numel *= (uint64_t)d;  // no overflow: every value's shape passed the layout rule's checks
    if (numel > 0x7fffffff)
        return im.unsupported_here("a transpose of " + std::to_string(numel) + " elements is too large");
    std::vector<int> gsize(m);
    for (int gi = 0; gi < m; gi++) {
        int64_t s = 1;
        for (int v : by_input[gi]) {
            s *= xs[kept[v]];
            group_of[v] = gi;
        }
        gsize[gi] = (int)s;
    }
    std::vector<int> p;
    for (auto& run : runs)
        p.push_back(group_of[run[0]]);
    if (m > 4)
        return permute_in_steps(im, gsize, p, od, x.dtype);
    int order = permute_order_type(p);
    if (order < 0)
        return internal_error(im.where() + ": no Permute order_type");
    int xb, rb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    std::vector<int> in_list(gsize.begin(), gsize.end()), out_list;
    for (int gi : p)
        out_list.push_back(gsize[gi]);
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, Shape::from_list(in_list), rb));
    int top = im.temp_blob(Shape::from_list(out_list));
    ParamDict pd;
    pd.set_int(0, order);
    im.emit("Permute", "", {rb}, {top}, pd);
    return im.define_runtime(0, top, od, x.dtype);
}

// A constant whose elements are all equal (a ConstantOfShape result, typically).
bool uniform_const(const Value& v, float& value) {
    if (!v.is_const || !v.c.has_data() || v.c.numel() == 0)
        return false;
    double first = v.c.at(0);
    for (size_t k = 1; k < v.c.numel(); k++)
        if (v.c.at(k) != first)
            return false;
    value = (float)first;
    return true;
}

Status op_concat(Importer& im, const Node& n) {
    std::vector<size_t> ks;
    NF_RETURN_IF_ERROR(present_inputs(im, n, ks));
    const Dims& s0 = im.in(ks[0]).shape;
    size_t r = s0.size();
    int ax;
    if (!norm_axis(im.attr_i("axis", 0), r, ax))
        return im.invalid_here("axis out of range");
    Dims od = s0;
    od[ax] = 0;
    for (size_t k : ks) {
        const Dims& s = im.in(k).shape;
        if (s.size() != r)
            return im.invalid_here("inputs of different ranks");
        for (size_t a = 0; a < r; a++)
            if ((int)a != ax && s[a] != s0[a])
                return im.invalid_here("input shapes " + dims_str(s0) + " and " + dims_str(s) + " differ outside the axis");
        od[ax] += s[ax];
    }
    if (ks.size() == 1)
        return im.define_alias(0, im.in(ks[0]));
    int shift = drops_batch(od) ? 1 : 0;
    if (ax < shift)
        return im.unsupported_here("concatenation along the batch axis (ncnn runs a batch of 1)");
    int nax = ax - shift;
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    // x concatenated with a uniform constant on a 3D blob's c/h/w axis is constant padding
    // (tf2onnx's channel padding in BlazeFace: Concat(x, ConstantOfShape(...)))
    if (ks.size() == 2 && so.dims == 3) {
        float value;
        int cidx = uniform_const(im.in(ks[1]), value) && !im.in(ks[0]).is_const ? 1
                   : uniform_const(im.in(ks[0]), value) && !im.in(ks[1]).is_const ? 0
                                                                                  : -1;
        if (cidx >= 0) {
            int64_t amount = im.in(ks[cidx]).shape[ax];
            int xb;
            NF_RETURN_IF_ERROR(im.input_blob(ks[1 - cidx], xb));
            ParamDict pd;
            // ncnn Padding ids: 0 top, 1 bottom, 2 left, 3 right, 7 front, 8 behind (channels)
            int id = nax == 0 ? (cidx == 1 ? 8 : 7) : nax == 1 ? (cidx == 1 ? 1 : 0) : (cidx == 1 ? 3 : 2);
            pd.set_int(id, (int)amount);
            pd.set_int(4, 0);
            pd.set_float(5, value);
            int top = im.temp_blob(so);
            im.emit("Padding", "", {xb}, {top}, pd);
            return im.define_runtime(0, top, od, im.in(ks[1 - cidx]).dtype);
        }
    }
    std::vector<int> bottoms;
    for (size_t k : ks) {
        int b;
        NF_RETURN_IF_ERROR(im.input_blob(k, b));
        bottoms.push_back(b);
    }
    ParamDict pd;
    pd.set_int(0, nax);
    int top = im.temp_blob(so);
    im.emit("Concat", "", bottoms, {top}, pd);
    return im.define_runtime(0, top, od, im.in(ks[0]).dtype);
}

Status op_split(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    int ax;
    Dims sizes;
    NF_RETURN_IF_ERROR(split_node_sizes(im, n, ax, sizes));
    int shift = drops_batch(x.shape) ? 1 : 0;
    if (ax < shift) {
        if (sizes.size() == 1)
            return im.define_alias(0, x);
        return im.unsupported_here("split along the batch axis");
    }
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    std::vector<int> tops, slices;
    std::vector<Dims> shapes;
    for (int64_t s : sizes) {
        if (s == 0)
            return im.unsupported_here("an empty split output");
        Dims od = x.shape;
        od[ax] = s;
        // the part keeps x's rank in ncnn (the batch axis stays dropped even if s is 1 on axis 0)
        std::vector<int> l = im.g.blobs[xb].shape.to_list();
        l[ax - shift] = (int)s;
        tops.push_back(im.temp_blob(Shape::from_list(l)));
        shapes.push_back(od);
        slices.push_back((int)s);
    }
    ParamDict pd;
    pd.set_ints(0, slices);
    pd.set_int(1, ax - shift);
    im.emit("Slice", "", {xb}, tops, pd);
    for (size_t k = 0; k < tops.size(); k++)
        NF_RETURN_IF_ERROR(im.define_runtime(k, tops[k], shapes[k], x.dtype));
    return Status::ok();
}

// Crop the ncnn blob `xb` (ONNX shape xs) to ranges (start, count) per ONNX axis.
Status crop(Importer& im, int xb, const Dims& xs, const std::vector<std::pair<int64_t, int64_t>>& ranges, int& top) {
    int shift = drops_batch(xs) ? 1 : 0;
    std::vector<int> starts, ends, axes;
    std::vector<int> l = im.g.blobs[xb].shape.to_list();
    for (size_t a = 0; a < xs.size(); a++) {
        int64_t s = ranges[a].first, c = ranges[a].second;
        if (s == 0 && c == xs[a])
            continue;
        if ((int)a < shift)
            return im.unsupported_here("slicing the batch axis");
        starts.push_back((int)s);
        ends.push_back((int)(s + c));
        axes.push_back((int)a - shift);
        l[a - shift] = (int)c;
    }
    if (axes.empty()) {
        top = xb;
        return Status::ok();
    }
    ParamDict pd;
    // ncnn Crop numpy-style form: 9 starts, 10 ends, 11 axes (outermost-first ncnn axes)
    pd.set_ints(9, starts);
    pd.set_ints(10, ends);
    pd.set_ints(11, axes);
    top = im.temp_blob(Shape::from_list(l));
    im.emit("Crop", "", {xb}, {top}, pd);
    return Status::ok();
}

Status op_slice(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    std::vector<SliceRange> rg;
    NF_RETURN_IF_ERROR(slice_node_ranges(im, rg));
    Dims od;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (size_t a = 0; a < rg.size(); a++) {
        if (rg[a].count == 0)
            return im.unsupported_here("an empty slice");
        if (rg[a].step != 1 && rg[a].count > 1)
            return im.unsupported_here("slice step " + std::to_string(rg[a].step) + " (ncnn's Crop takes step 1)");
        od.push_back(rg[a].count);
        ranges.push_back({rg[a].start, rg[a].count});
    }
    int xb, top;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    NF_RETURN_IF_ERROR(crop(im, xb, x.shape, ranges, top));
    (void)n;
    return im.define_runtime(0, top, od, x.dtype);
}

Status op_gather(Importer& im, const Node&) {
    const Value& x = im.in(0);
    const Tensor* idx;
    NF_RETURN_IF_ERROR(im.need_const(1, "indices", idx));
    int ax;
    std::vector<int64_t> ids;
    NF_RETURN_IF_ERROR(gather_positions(im, *idx, ax, ids));
    Dims od(x.shape.begin(), x.shape.begin() + ax);
    od.insert(od.end(), idx->dims.begin(), idx->dims.end());
    od.insert(od.end(), x.shape.begin() + ax + 1, x.shape.end());
    bool contiguous = !ids.empty();
    for (size_t k = 1; k < ids.size(); k++)
        contiguous = contiguous && ids[k] == ids[k - 1] + 1;
    if (!contiguous)
        return im.unsupported_here("Gather of non-contiguous indices on a runtime tensor");
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (size_t a = 0; a < x.shape.size(); a++)
        ranges.push_back((int)a == ax ? std::make_pair(ids[0], (int64_t)ids.size()) : std::make_pair((int64_t)0, x.shape[a]));
    int xb, top;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    NF_RETURN_IF_ERROR(crop(im, xb, x.shape, ranges, top));
    return im.define_runtime(0, top, od, x.dtype);
}

// Pad's pads (2 x rank: all begins, then all ends; opset 18's `axes` expanded to every axis) and
// constant value: attributes before opset 11, inputs from then on.
Status pad_operands(Importer& im, size_t r, Dims& pads, float& value) {
    value = 0.f;
    if (im.opset < 11) {
        if (!im.attr_ints("pads", pads))
            return im.invalid_here("no pads");
        value = im.attr_f("value", 0.f);
        return Status::ok();
    }
    NF_RETURN_IF_ERROR(im.need_ints(1, "pads", pads));
    if (im.has_in(2)) {
        const Tensor* v;
        NF_RETURN_IF_ERROR(im.need_const(2, "constant_value", v));
        if (v->numel() != 1)
            return im.invalid_here("constant_value must hold one value");
        value = (float)v->at(0);
    }
    if (!im.has_in(3))
        return Status::ok();
    Dims axes;
    NF_RETURN_IF_ERROR(im.need_ints(3, "axes", axes));
    if (pads.size() != 2 * axes.size())
        return im.invalid_here("pads and axes lengths do not match");
    Dims full(2 * r, 0);
    for (size_t k = 0; k < axes.size(); k++) {
        int a;
        if (!norm_axis(axes[k], r, a))
            return im.invalid_here("axis out of range");
        full[a] = pads[k];
        full[a + r] = pads[k + axes.size()];
    }
    pads = full;
    return Status::ok();
}

// ncnn Padding's params for ONNX pads on a blob of `nd` dims (`shift` 1 when the batch axis is
// dropped): the innermost axis takes left/right, the next top/bottom, the next front/behind
// (channels of a 3D blob, depth of a 4D one); the channels of a 4D blob cannot be padded.
// `any` false when every pad is 0.
Status padding_params(Importer& im, const Dims& pads, size_t r, int shift, int nd, int type, const std::string& mode,
                      ParamDict& pd, bool& any) {
    any = false;
    for (size_t a = shift; a < r; a++) {
        int na = (int)a - shift;  // outermost-first ncnn axis
        int from_inner = nd - 1 - na;
        int64_t b = pads[a], e = pads[a + r];
        if (!b && !e)
            continue;
        any = true;
        if (from_inner == 0) {
            pd.set_int(2, (int)b);
            pd.set_int(3, (int)e);
        } else if (from_inner == 1) {
            pd.set_int(0, (int)b);
            pd.set_int(1, (int)e);
        } else if (from_inner == 2) {
            if (type != 0 && nd == 3)
                return im.unsupported_here("'" + mode + "' padding of the channel axis");
            pd.set_int(7, (int)b);
            pd.set_int(8, (int)e);
        } else {
            return im.unsupported_here("padding the channel axis of a 4D tensor");
        }
    }
    return Status::ok();
}

Status op_pad(Importer& im, const Node&) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    size_t r = xs.size();
    Dims pads;
    float value = 0.f;
    NF_RETURN_IF_ERROR(pad_operands(im, r, pads, value));
    if (pads.size() != 2 * r)
        return im.invalid_here("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(r));
    std::string mode = im.attr_s("mode", "constant");
    int type = mode == "constant" ? 0 : mode == "edge" ? 1 : mode == "reflect" ? 2 : -1;
    if (type < 0)
        return im.unsupported_here("mode '" + sanitize(mode) + "'");
    Dims od = xs;
    for (size_t a = 0; a < r; a++) {
        if (pads[a] < 0 || pads[a + r] < 0)
            return im.unsupported_here("negative pads (cropping)");
        if (pads[a] > 65536 || pads[a + r] > 65536)
            return im.invalid_here("huge pads");
        od[a] += pads[a] + pads[a + r];
        if (type == 2 && (pads[a] >= xs[a] || pads[a + r] >= xs[a]) && (pads[a] || pads[a + r]))
            return im.invalid_here("reflect pads must be smaller than the dimension");
    }
    int shift = drops_batch(xs) ? 1 : 0;
    if (shift && (pads[0] || pads[r]))
        return im.unsupported_here("padding the batch axis");
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    ParamDict pd;
    bool any = false;
    NF_RETURN_IF_ERROR(padding_params(im, pads, r, shift, im.g.blobs[xb].shape.dims, type, mode, pd, any));
    if (!any)
        return im.define_alias(0, x);
    pd.set_int(4, type);
    pd.set_float(5, value);
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    int top = im.temp_blob(so);
    im.emit("Padding", "", {xb}, {top}, pd);
    return im.define_runtime(0, top, od, x.dtype);
}

// ---------------------------------------------------------------------------------------------
// Resize / Upsample

// ONNX's source coordinate for output index x (onnxruntime computes it in float).
float onnx_coord(const std::string& mode, int64_t x, float scale, int64_t in, int64_t out) {
    float fx = (float)x;
    if (mode == "half_pixel")
        return (fx + 0.5f) / scale - 0.5f;
    if (mode == "pytorch_half_pixel")
        return out > 1 ? (fx + 0.5f) / scale - 0.5f : 0.f;
    if (mode == "align_corners")
        return out == 1 ? 0.f : fx * (float)(in - 1) / (float)(out - 1);
    if (mode == "tf_half_pixel_for_nn")
        return (fx + 0.5f) / scale;
    return fx / scale;  // asymmetric
}

int64_t onnx_nearest(const std::string& nmode, float c, float scale, int64_t in) {
    int64_t i;
    if (nmode == "floor")
        i = (int64_t)std::floor(c);
    else if (nmode == "ceil")
        i = (int64_t)std::ceil(c);
    else if (nmode == "round_prefer_ceil")
        i = (int64_t)std::round(c);  // halves away from zero == up for positive coordinates
    else if (nmode == "simple")
        i = scale < 1.f ? (int64_t)std::ceil(c) : (int64_t)c;
    else {  // round_prefer_floor
        float f = std::floor(c);
        i = (c - f == 0.5f) ? (int64_t)f : (int64_t)std::round(c);
    }
    return std::max<int64_t>(0, std::min<int64_t>(i, in - 1));
}

// ncnn Interp nearest: min(int(x * (in / (float)out)), in - 1), negative kept at 0.
int64_t ncnn_nearest(int64_t x, int64_t in, int64_t out) {
    float ws = (float)in / (float)out;
    float f = (float)x * ws;
    int i = (int)f;
    if (f < 0)
        i = 0;
    return std::min<int64_t>(i, in - 1);
}

// Resize's scales and sizes: Upsample opset 7 attribute, Upsample 9 / Resize 10 input 1, Resize
// 11+ input 2 (sizes input 3).
Status resize_operands(Importer& im, const Node& n, bool upsample, std::vector<float>& scales, Dims& sizes) {
    if (upsample && im.opset < 9) {
        if (const Attribute* a = n.attr("scales"))
            scales = a->floats;
        return Status::ok();
    }
    size_t si = (upsample || im.opset < 11) ? 1 : 2;
    if (im.has_in(si)) {
        const Tensor* t;
        NF_RETURN_IF_ERROR(im.need_const(si, "scales", t));
        for (size_t k = 0; k < t->numel(); k++)
            scales.push_back((float)t->at(k));
    }
    if (!upsample && im.opset >= 11 && im.has_in(3))
        NF_RETURN_IF_ERROR(im.need_ints(3, "sizes", sizes));
    return Status::ok();
}

// The output shape `od` (from sizes, else floor(in * scale)) and the scale each axis effectively
// has (`eff`); only H and W may change.
Status resize_output(Importer& im, const Dims& xs, const std::vector<float>& scales, const Dims& sizes, Dims& od,
                     std::vector<float>& eff) {
    od.assign(4, 0);
    eff.assign(4, 1.f);
    if (!sizes.empty()) {
        if (sizes.size() != 4)
            return im.invalid_here("sizes must have 4 entries");
        od = sizes;
        for (int k = 0; k < 4; k++)
            eff[k] = (float)od[k] / (float)xs[k];
    } else {
        if (scales.size() != 4)
            return im.invalid_here("needs 4 scales or 4 sizes");
        for (int k = 0; k < 4; k++) {
            if (!(scales[k] > 0) || scales[k] > 65536)
                return im.invalid_here("scales must be positive");
            od[k] = (int64_t)std::floor((double)xs[k] * scales[k]);
            eff[k] = scales[k];
        }
    }
    if (od[0] != xs[0] || od[1] != xs[1])
        return im.unsupported_here("resizing the batch or channel axis");
    for (int k = 2; k < 4; k++)
        if (od[k] <= 0 || od[k] > 0x7fffffff)
            return im.invalid_here("output size " + dims_str(od) + " is not valid");
    return Status::ok();
}

// ncnn Interp's resize_type (1 nearest, 2 bilinear, 3 bicubic) and align_corner for the ONNX
// mode, coordinate transformation and nearest mode; unsupported where ncnn samples differently.
Status interp_type(Importer& im, bool legacy, const Dims& xs, const Dims& od, const std::vector<float>& eff,
                   bool by_sizes, int& resize_type, int& align) {
    std::string mode = im.attr_s("mode", "nearest");
    std::string ctm = legacy ? "asymmetric" : im.attr_s("coordinate_transformation_mode", "half_pixel");
    std::string nmode = legacy ? "simple" : im.attr_s("nearest_mode", "round_prefer_floor");
    if (ctm == "tf_crop_and_resize")
        return im.unsupported_here("coordinate_transformation_mode tf_crop_and_resize");
    align = 0;
    if (mode == "nearest") {
        // the ONNX index map must equal ncnn's for both axes at these sizes
        for (int k = 2; k < 4; k++)
            for (int64_t o = 0; o < od[k]; o++)
                if (onnx_nearest(nmode, onnx_coord(ctm, o, eff[k], xs[k], od[k]), eff[k], xs[k]) !=
                    ncnn_nearest(o, xs[k], od[k]))
                    return im.unsupported_here("nearest resize with coordinate_transformation_mode '" + sanitize(ctm) +
                                               "' and nearest_mode '" + sanitize(nmode) + "' from " + dims_str(xs) +
                                               " to " + dims_str(od) + " samples differently from ncnn's Interp");
        resize_type = 1;
        return Status::ok();
    }
    if (mode != "linear" && mode != "bilinear" && mode != "cubic")
        return im.unsupported_here("mode '" + sanitize(mode) + "'");
    bool cubic = mode == "cubic";
    if (cubic && (im.attr_f("cubic_coeff_a", -0.75f) != -0.75f || im.attr_i("exclude_outside", 0) != 0))
        return im.unsupported_here("cubic with cubic_coeff_a != -0.75 or exclude_outside (ncnn's bicubic)");
    if (ctm == "align_corners") {
        align = 1;
    } else if (ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && od[2] > 1 && od[3] > 1)) {
        // ncnn maps with in/out; ONNX with the given scale: they agree when out == in * scale
        for (int k = 2; k < 4; k++)
            if ((double)od[k] != (double)xs[k] * (double)eff[k] && !by_sizes)
                return im.unsupported_here("scale " + std::to_string(eff[k]) +
                                           " that does not give a whole output size (ncnn samples by size)");
    } else {
        return im.unsupported_here(mode + " resize with coordinate_transformation_mode '" + sanitize(ctm) +
                                   "' (ncnn's Interp does half_pixel and align_corners)");
    }
    resize_type = cubic ? 3 : 2;
    return Status::ok();
}

Status op_resize(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    if (xs.size() != 4)
        return im.unsupported_here("input of rank " + std::to_string(xs.size()) + " (nnfold resizes [N,C,H,W])");
    bool upsample = n.op_type == "Upsample";
    std::vector<float> scales, eff;
    Dims sizes, od;
    NF_RETURN_IF_ERROR(resize_operands(im, n, upsample, scales, sizes));
    if (!upsample && n.attr("axes") != nullptr)
        return im.unsupported_here("the axes attribute");
    if (im.attr_i("antialias", 0) != 0)
        return im.unsupported_here("antialias (ncnn's Interp does not filter when downscaling)");
    if (im.attr_s("keep_aspect_ratio_policy", "stretch") != "stretch")
        return im.unsupported_here("keep_aspect_ratio_policy other than stretch");
    NF_RETURN_IF_ERROR(resize_output(im, xs, scales, sizes, od, eff));
    int resize_type, align;
    NF_RETURN_IF_ERROR(interp_type(im, upsample || im.opset < 11, xs, od, eff, !sizes.empty(), resize_type, align));
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    ParamDict pd;
    pd.set_int(0, resize_type);
    pd.set_int(3, (int)od[2]);
    pd.set_int(4, (int)od[3]);
    if (align)
        pd.set_int(6, 1);
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    int top = im.temp_blob(so);
    im.emit("Interp", "", {xb}, {top}, pd);
    return im.define_runtime(0, top, od, x.dtype);
}

Status op_depth_to_space(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    int64_t b = im.attr_i("blocksize", 0);
    if (xs.size() != 4 || xs[0] != 1)
        return im.unsupported_here("input must be [1, C, H, W]");
    if (b <= 0 || b > 4096 || xs[1] % (b * b) != 0)
        return im.invalid_here("blocksize " + std::to_string(b) + " does not divide the channels");
    std::string mode = im.attr_s("mode", "DCR");
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    Dims od = {1, xs[1] / (b * b), xs[2] * b, xs[3] * b};
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    ParamDict pd;
    pd.set_int(0, (int)b);
    // ncnn PixelShuffle mode 0: channel p*b*b + sh*b + sw (CRD, PyTorch); 1: (sh*b + sw)*outc + p (DCR)
    if (mode == "DCR")
        pd.set_int(1, 1);
    else if (mode != "CRD")
        return im.invalid_here("mode '" + sanitize(mode) + "'");
    int top = im.temp_blob(so);
    im.emit("PixelShuffle", "", {xb}, {top}, pd);
    (void)n;
    return im.define_runtime(0, top, od, x.dtype);
}

Status op_space_to_depth(Importer& im, const Node&) {
    const Value& x = im.in(0);
    const Dims& xs = x.shape;
    int64_t b = im.attr_i("blocksize", 0);
    if (xs.size() != 4 || xs[0] != 1)
        return im.unsupported_here("input must be [1, C, H, W]");
    if (b <= 0 || b > 4096 || xs[2] % b != 0 || xs[3] % b != 0)
        return im.invalid_here("blocksize " + std::to_string(b) + " does not divide H and W");
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    Dims od = {1, xs[1] * b * b, xs[2] / b, xs[3] / b};
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    ParamDict pd;
    pd.set_int(0, (int)b);
    // ONNX SpaceToDepth puts the block offset outermost: channel (by*b + bx)*C + c, ncnn Reorg mode 1
    pd.set_int(1, 1);
    int top = im.temp_blob(so);
    im.emit("Reorg", "", {xb}, {top}, pd);
    return im.define_runtime(0, top, od, x.dtype);
}

Status op_expand(Importer& im, const Node&) {
    const Value& x = im.in(0);
    Dims shape, od;
    NF_RETURN_IF_ERROR(im.need_ints(1, "shape", shape));
    if (!broadcast_shapes(x.shape, shape, od))
        return im.invalid_here("shape does not broadcast");
    uint64_t a = 1, b = 1;
    for (int64_t d : x.shape)
        a *= (uint64_t)d;
    for (int64_t d : od)
        b *= (uint64_t)d;
    if (a != b)
        return im.unsupported_here("Expand that repeats data on a runtime tensor");
    return define_view(im, od);
}

}  // namespace

void register_shape_ops(std::map<std::string, OpFn>& t) {
    t["Reshape"] = op_reshape;
    t["Flatten"] = op_flatten;
    t["Squeeze"] = op_squeeze;
    t["Unsqueeze"] = op_unsqueeze;
    t["Transpose"] = op_transpose;
    t["Concat"] = op_concat;
    t["Split"] = op_split;
    t["Slice"] = op_slice;
    t["Gather"] = op_gather;
    t["Pad"] = op_pad;
    t["Resize"] = op_resize;
    t["Upsample"] = op_resize;
    t["DepthToSpace"] = op_depth_to_space;
    t["SpaceToDepth"] = op_space_to_depth;
    t["Expand"] = op_expand;
}

}  // namespace onnx
}  // namespace nnfold
