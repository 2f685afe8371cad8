// Tensors above ncnn's 4 axes (docs/shapes-and-files.md; the layout rule in onnx_importer.h): the
// translators for nodes that read one. Such a tensor is held in a folded view (its dense values,
// size-1 axes dropped, outermost axes merged until 4 remain), and each operator below views the
// blob again as its own axes need, always with 4 axes or fewer:
//   - Split, Slice, Gather (constant indices), Concat, Softmax: the axis they act on, as
//     [outer, axis, inner] (a Slice / Crop / Concat / Softmax on axis 1 of a 3-D blob);
//   - Reduce*: axes of size 1 dropped, adjacent axes that are both reduced or both kept merged;
//   - MatMul: the batch axes merged into one ([B, M, K] x [B or 1, K, N]);
//   - Expand: the input added onto zeros of the result's shape, axes that repeat alike merged
//     (Tile, onnx_ops_expand.cpp, does the same one repeated axis at a time, at any rank);
//   - views (Reshape, Flatten, Squeeze, Unsqueeze, Identity), one-input elementwise layers,
//     Transpose (onnx_ops_shape.cpp: groups of axes that move together, in several Permutes when
//     more than 4 groups move) and broadcasting elementwise ops (onnx_ops_elementwise.cpp:
//     collapse_broadcast) use their own translators.
// Every view only relabels the same dense values, so these are exact: the results are
// bit-identical to the operator on the full-rank tensor. Whatever does not reduce to 4 axes is an
// Unsupported error naming the node, the shape and the rank; no dimension is dropped silently.
#include <algorithm>
#include <set>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

namespace {


// Input k (runtime or constant) as the 3-D view of its shape along `ax`.
Status input_axis_view(Importer& im, size_t k, int ax, int& blob) {
    const Value& v = im.in(k);
    Shape view;
    NF_RETURN_IF_ERROR(axis_view(im, v.shape, ax, view));
    if (v.is_const)
        return im.const_blob(v.c, view, blob);
    return im.reshape_blob(v.blob, view, blob);
}

Status hr_split(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    int ax;
    Dims sizes;
    NF_RETURN_IF_ERROR(split_node_sizes(im, n, ax, sizes));
    if (sizes.size() == 1)
        return im.define_alias(0, x);
    int xb;
    NF_RETURN_IF_ERROR(input_axis_view(im, 0, ax, xb));
    std::vector<int> l = im.g.blobs[xb].shape.to_list();
    std::vector<int> tops, slices;
    for (int64_t s : sizes) {
        if (s <= 0)
            return im.unsupported_here("an empty split output");
        l[1] = (int)s;
        tops.push_back(im.temp_blob(Shape::from_list(l)));
        slices.push_back((int)s);
    }
    ParamDict pd;
    pd.set_ints(0, slices);
    pd.set_int(1, 1);  // the split axis is the middle one of the view
    im.emit("Slice", "", {xb}, tops, pd);
    for (size_t k = 0; k < tops.size(); k++) {
        Dims od = x.shape;
        od[ax] = sizes[k];
        NF_RETURN_IF_ERROR(im.define_runtime(k, tops[k], od, x.dtype));
    }
    return Status::ok();
}

// `blob` (ONNX shape `s`) cut to [start, start + count) along `ax` (a Crop on the axis view).
Status crop_axis(Importer& im, int& blob, Dims& s, int ax, int64_t start, int64_t count) {
    if (start == 0 && count == s[ax])
        return Status::ok();
    Shape view;
    NF_RETURN_IF_ERROR(axis_view(im, s, ax, view));
    int rb;
    NF_RETURN_IF_ERROR(im.reshape_blob(blob, view, rb));
    std::vector<int> l = view.to_list();
    l[1] = (int)count;
    ParamDict pd;
    // ncnn Crop numpy-style form: 9 starts, 10 ends, 11 axes (outermost-first ncnn axes)
    pd.set_ints(9, {(int)start});
    pd.set_ints(10, {(int)(start + count)});
    pd.set_ints(11, {1});
    blob = im.temp_blob(Shape::from_list(l));
    im.emit("Crop", "axis" + std::to_string(ax), {rb}, {blob}, pd);
    s[ax] = count;
    return Status::ok();
}

Status hr_slice(Importer& im, const Node&) {
    const Value& x = im.in(0);
    std::vector<SliceRange> rg;
    NF_RETURN_IF_ERROR(slice_node_ranges(im, rg));
    for (auto& r : rg) {
        if (r.count == 0)
            return im.unsupported_here("an empty slice");
        if (r.step != 1 && r.count > 1)
            return im.unsupported_here("slice step " + std::to_string(r.step) + " (ncnn's Crop takes step 1)");
    }
    int blob;
    NF_RETURN_IF_ERROR(im.input_blob(0, blob));
    Dims s = x.shape;
    for (size_t a = 0; a < rg.size(); a++)
        NF_RETURN_IF_ERROR(crop_axis(im, blob, s, (int)a, rg[a].start, rg[a].count));
    if (blob == x.blob)
        return im.define_alias(0, x);
    return im.define_runtime(0, blob, s, x.dtype);
}

Status hr_gather(Importer& im, const Node&) {
    const Value& x = im.in(0);
    const Tensor* idx = im.const_in(1);
    if (!idx)
        return im.unsupported_here("Gather with indices computed at run time on a tensor of rank " +
                                   std::to_string(x.shape.size()) + " (shape " + dims_str(x.shape) + ")");
    int ax;
    std::vector<int64_t> ids;
    NF_RETURN_IF_ERROR(gather_positions(im, *idx, ax, ids));
    bool contiguous = !ids.empty();
    for (size_t k = 1; k < ids.size(); k++)
        contiguous = contiguous && ids[k] == ids[k - 1] + 1;
    if (!contiguous)
        return im.unsupported_here("Gather of non-contiguous indices on a runtime tensor");
    Dims od(x.shape.begin(), x.shape.begin() + ax);
    od.insert(od.end(), idx->dims.begin(), idx->dims.end());
    od.insert(od.end(), x.shape.begin() + ax + 1, x.shape.end());
    int blob;
    NF_RETURN_IF_ERROR(im.input_blob(0, blob));
    Dims s = x.shape;
    NF_RETURN_IF_ERROR(crop_axis(im, blob, s, ax, ids[0], (int64_t)ids.size()));
    return im.define_runtime(0, blob, od, x.dtype);
}

Status hr_concat(Importer& im, const Node& n) {
    std::vector<size_t> ks;
    NF_RETURN_IF_ERROR(present_inputs(im, n, ks));
    const Dims& s0 = im.in(ks[0]).shape;
    int ax;
    if (!norm_axis(im.attr_i("axis", 0), s0.size(), ax))
        return im.invalid_here("axis out of range");
    Dims od = s0;
    od[ax] = 0;
    for (size_t k : ks) {
        const Dims& s = im.in(k).shape;
        if (s.size() != s0.size())
            return im.invalid_here("inputs of different ranks");
        for (size_t a = 0; a < s.size(); a++)
            if ((int)a != ax && s[a] != s0[a])
                return im.invalid_here("input shapes " + dims_str(s0) + " and " + dims_str(s) + " differ outside the axis");
        od[ax] += s[ax];
    }
    if (ks.size() == 1)
        return im.define_alias(0, im.in(ks[0]));
    std::vector<int> bottoms;
    for (size_t k : ks) {
        int b;
        NF_RETURN_IF_ERROR(input_axis_view(im, k, ax, b));
        bottoms.push_back(b);
    }
    Shape so;
    NF_RETURN_IF_ERROR(axis_view(im, od, ax, so));
    ParamDict pd;
    pd.set_int(0, 1);
    int top = im.temp_blob(so);
    im.emit("Concat", "", bottoms, {top}, pd);
    return im.define_runtime(0, top, od, im.in(ks[0]).dtype);
}

Status hr_softmax(Importer& im, const Node&) {
    const Value& x = im.in(0);
    const Dims& s = x.shape;
    int64_t axis_attr = im.attr_i("axis", im.opset >= 13 ? -1 : 1);
    int ax;
    if (!norm_axis(axis_attr, s.size(), ax))
        return im.invalid_here("axis " + std::to_string(axis_attr) + " out of range for rank " + std::to_string(s.size()));
    Shape view;
    if (im.opset >= 13) {
        NF_RETURN_IF_ERROR(axis_view(im, s, ax, view));
    } else {
        // opsets < 13 normalize the rows of the 2-D coercion [prod(s[:axis]), prod(s[axis:])]
        Dims d2 = {1, 1};
        for (int k = 0; k < ax; k++)
            d2[0] *= s[k];
        for (size_t k = ax; k < s.size(); k++)
            d2[1] *= s[k];
        Dims d3 = {d2[0], d2[1], 1};
        NF_RETURN_IF_ERROR(axis_view(im, d3, 1, view));
    }
    int xb, rb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, view, rb));
    ParamDict pd;
    pd.set_int(0, 1);
    pd.set_int(1, 1);  // fixbug0: the axis counts from the outermost ncnn axis
    int top = im.temp_blob(view);
    im.emit("Softmax", "", {rb}, {top}, pd);
    return im.define_runtime(0, top, s, x.dtype);
}

// Batched MatMul: the batch axes of each operand merged into one. Each operand's batch axes
// (padded with leading 1s to the output's) must equal the broadcast batch or be all 1, so that
// ncnn MatMul's broadcast of a batch of 1 is numpy's.
Status hr_matmul(Importer& im, const Node& n) {
    const Value& a = im.in(0);
    const Value& b = im.in(1);
    if (b.is_const && !a.is_const && b.shape.size() == 2)
        return op_table().at("MatMul")(im, n);  // InnerProduct on the rows of A: any rank
    if (a.shape.size() < 2 || b.shape.size() < 2)
        return im.unsupported_here("a 1-D operand with a tensor of shape " +
                                   dims_str(a.shape.size() < 2 ? b.shape : a.shape));
    const Dims &as = a.shape, &bs = b.shape;
    if (as.back() != bs[bs.size() - 2])
        return im.invalid_here("shapes " + dims_str(as) + " and " + dims_str(bs) + " do not multiply");
    Dims ba(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2), batch;
    if (!broadcast_shapes(ba, bb, batch))
        return im.invalid_here("batch dimensions do not broadcast");
    uint64_t nb = 1;
    for (int64_t d : batch)
        nb *= (uint64_t)d;
    auto merged = [&](const Dims& own, uint64_t& count) {
        Dims p(batch.size() - own.size(), 1);
        p.insert(p.end(), own.begin(), own.end());
        count = 1;
        for (int64_t d : p)
            count *= (uint64_t)d;
        return count == 1 || p == batch;
    };
    uint64_t na, nbb;
    if (!merged(ba, na) || !merged(bb, nbb))
        return im.unsupported_here("batch axes " + dims_str(ba) + " and " + dims_str(bb) +
                                   " broadcast against each other axis by axis (rank " +
                                   std::to_string(batch.size() + 2) + "); nnfold merges batch axes only when each "
                                   "operand has all of them or none");
    int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
    if (nb > 0x7fffffff)
        return im.unsupported_here("batch of " + std::to_string(nb) + " matrices is too large");
    auto view = [&](size_t k, uint64_t count, int64_t r, int64_t c, int& blob) {
        const Value& v = im.in(k);
        Shape s = Shape::from_list({(int)count, (int)r, (int)c});
        if (v.is_const)
            return im.const_blob(v.c, s, blob);
        return im.reshape_blob(v.blob, s, blob);
    };
    int ab, bbl;
    NF_RETURN_IF_ERROR(view(0, na, M, K, ab));
    NF_RETURN_IF_ERROR(view(1, nbb, K, N, bbl));
    Dims od = batch;
    od.push_back(M);
    od.push_back(N);
    int top = im.temp_blob(Shape::from_list({(int)nb, (int)M, (int)N}));
    im.emit("MatMul", "", {ab, bbl}, {top});
    return im.define_runtime(0, top, od);
}

// Expand (called by the wrapping Expand translator, onnx_ops_expand.cpp, for a result above 4
// axes, and for an input above 4 axes): a view when nothing repeats, else a BinaryOp add of the
// input onto zeros of the result's shape, both viewed with the axes that repeat alike merged.
Status hr_expand(Importer& im, const Node& n) {
    (void)n;
    const Value& x = im.in(0);
    Dims shape, od;
    NF_RETURN_IF_ERROR(im.need_ints(1, "shape", shape));
    if (!broadcast_shapes(x.shape, shape, od))
        return im.invalid_here("shape " + dims_str(shape) + " does not broadcast with the input's " + dims_str(x.shape));
    uint64_t a = 1, b = 1;
    for (int64_t d : x.shape)
        a *= (uint64_t)d;
    for (int64_t d : od)
        b *= (uint64_t)d;
    if (a == b)
        return im.define_runtime(0, x.blob, od, x.dtype);
    Dims xs(od.size() - x.shape.size(), 1);
    xs.insert(xs.end(), x.shape.begin(), x.shape.end());
    int top;
    NF_RETURN_IF_ERROR(repeat_onto_zeros(im, x.blob, xs, od, top));
    return im.define_runtime(0, top, od, x.dtype);
}

}  // namespace

Status expand_high_rank(Importer& im, const Node& n) { return hr_expand(im, n); }

Status repeat_onto_zeros(Importer& im, int blob, const Dims& xview, const Dims& oview, int& top) {
    uint64_t b = 1;
    for (int64_t d : oview)
        b *= (uint64_t)d;
    if (b > kMaxFoldElements)
        return im.unsupported_here("a result of shape " + dims_str(oview) + " is too large to repeat into");
    Dims cx, cz, co;
    if (!collapse_broadcast(xview, oview, oview, cx, cz, co))
        return im.unsupported_here("repeating " + dims_str(xview) + " into " + dims_str(oview) +
                                   " alternates along more than 4 axes (rank " + std::to_string(oview.size()) + ")");
    std::vector<int> lo, lx;
    for (size_t k = 0; k < co.size(); k++) {
        lo.push_back((int)co[k]);
        lx.push_back((int)cx[k]);
    }
    int zb, xb;
    NF_RETURN_IF_ERROR(zeros_blob(im, co, Shape::from_list(lo), zb));
    NF_RETURN_IF_ERROR(im.reshape_blob(blob, Shape::from_list(lx), xb));
    ParamDict pd;
    pd.set_int(0, 0);  // add: ncnn broadcasts B (the input) into A (zeros of the result's shape)
    top = im.temp_blob(Shape::from_list(lo));
    im.emit("BinaryOp", "", {zb, xb}, {top}, pd);
    return Status::ok();
}

namespace {

// One-input layers that keep the shape, views and ops with their own high-rank handling: their
// usual translators take the folded view as it is.
const std::set<std::string>& rank_agnostic_ops() {
    static const std::set<std::string> s = {
        "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Transpose", "Tile",
        "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "HardSigmoid", "HardSwish", "Erf", "Gelu", "Abs", "Neg",
        "Floor", "Ceil", "Sqrt", "Exp", "Log", "Sin", "Cos", "Reciprocal",
        "Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Sum", "Equal", "Greater", "Less", "GreaterOrEqual",
        "LessOrEqual"};
    return s;
}

bool is_reduce(const std::string& op) { return op.compare(0, 6, "Reduce") == 0; }

}  // namespace

bool high_rank_aware_op(const std::string& op) {
    static const std::set<std::string> own = {"Split", "Slice", "Gather", "Concat", "Softmax", "MatMul", "Expand"};
    return rank_agnostic_ops().count(op) || own.count(op) || (is_reduce(op) && op_table().count(op));
}

OpFn high_rank_translator(const std::string& op) {
    if (rank_agnostic_ops().count(op)) {
        auto it = op_table().find(op);
        return it != op_table().end() ? it->second : nullptr;
    }
    if (op == "Split") return hr_split;
    if (op == "Slice") return hr_slice;
    if (op == "Gather") return hr_gather;
    if (op == "Concat") return hr_concat;
    if (op == "Softmax") return hr_softmax;
    if (op == "MatMul") return hr_matmul;
    if (op == "Expand") return hr_expand;
    if (is_reduce(op) && op_table().count(op)) return op_reduce_high_rank;
    return nullptr;
}

}  // namespace onnx
}  // namespace nnfold
