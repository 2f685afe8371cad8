// Index-valued and index-reading operators on tensors computed at run time: TopK, ArgMax, ArgMin
// (nnfold.TopK, or ncnn's ArgMax where it computes exactly the ONNX result), GatherND
// (nnfold.GatherND), Mod (nnfold.Mod) and NonMaxSuppression (nnfold.NonMaxSuppression). Constant inputs fold at import (onnx_fold.cpp) where
// a folder exists. Indices travel as float values inside the graph (exact below 2^24) and are
// reported as int64 at the interface (docs/shapes-and-files.md).
#include <algorithm>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

// Float values index exactly below 2^24.
constexpr uint64_t kMaxIndexed = uint64_t(1) << 24;

uint64_t product(const Dims& d, size_t from, size_t to) {
    uint64_t p = 1;
    for (size_t k = from; k < to && k < d.size(); k++)
        p *= (uint64_t)d[k];
    return p;
}

// Emits nnfold.TopK over ONNX axis `ax` of input 0; `vals` (-1 when indices_only) and `idx` are
// its tops, in the layer's shape (the input's ncnn shape with the axis replaced by k).
Status emit_topk(Importer& im, int ax, int k, bool largest, bool select_last, bool indices_only, int& vals, int& idx) {
    const Value& x = im.in(0);
    if ((uint64_t)x.shape[ax] >= kMaxIndexed)
        return im.unsupported_here("axis " + std::to_string(ax) + " of " + dims_str(x.shape) +
                                   " has 2^24 elements or more (indices are exact below 2^24)");
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    const Shape xs = im.g.blobs[xb].shape;
    const int ncnn_axis = ax - (drops_batch(x.shape) ? 1 : 0);
    std::vector<int> l = xs.to_list();
    if (ncnn_axis < 0 || ncnn_axis >= (int)l.size() || l[ncnn_axis] != x.shape[ax])
        return internal_error(im.where() + ": axis " + std::to_string(ax) + " of " + dims_str(x.shape) +
                              " does not map onto the blob " + xs.str());
    l[ncnn_axis] = k;
    const Shape ts = Shape::from_list(l);
    ParamDict pd;
    pd.set_int(0, ncnn_axis);
    pd.set_int(1, k);
    pd.set_int(2, largest ? 1 : 0);
    pd.set_int(3, select_last ? 1 : 0);
    pd.set_int(4, indices_only ? 1 : 0);
    idx = im.temp_blob(ts);
    vals = -1;
    if (indices_only) {
        im.emit("nnfold.TopK", "", {xb}, {idx}, pd);
    } else {
        vals = im.temp_blob(ts);
        im.emit("nnfold.TopK", "", {xb}, {vals, idx}, pd);
    }
    im.note_extension("nnfold.TopK");
    return Status::ok();
}

// Indices of a selection along an axis of extent 1 (the dropped batch axis): all zero.
Tensor zero_indices(const Dims& shape) {
    Tensor t;
    t.dtype = kInt64;
    t.dims = shape;
    t.i.assign(t.numel(), 0);
    return t;
}

Status op_topk(Importer& im, const Node&) {
    const Value& x = im.in(0);
    int64_t k64 = 0;
    if (im.opset < 10) {
        if (!im.has_attr("k"))
            return im.invalid_here("attribute k is missing");
        k64 = im.attr_i("k", 0);
    } else {
        Dims kv;
        NF_RETURN_IF_ERROR(im.need_ints(1, "K", kv));
        if (kv.size() != 1)
            return im.invalid_here("K must hold one value, got " + std::to_string(kv.size()));
        k64 = kv[0];
    }
    int ax;
    if (!norm_axis(im.attr_i("axis", -1), x.shape.size(), ax))
        return im.invalid_here("axis " + std::to_string(im.attr_i("axis", -1)) + " is outside the rank " +
                               std::to_string(x.shape.size()));
    if (k64 < 0)
        return im.invalid_here("K = " + std::to_string(k64) + " is negative");
    if (k64 > x.shape[ax])
        return im.invalid_here("K = " + std::to_string(k64) + " is larger than axis " + std::to_string(ax) + " of " +
                               dims_str(x.shape));
    if (k64 == 0)
        return im.unsupported_here("K = 0 (empty outputs; nnfold tensors have at least one element)");
    const bool largest = im.attr_i("largest", 1) != 0;
    Dims od = x.shape;
    od[ax] = k64;
    if (x.shape[ax] == 1) {  // the selection of one element from one
        NF_RETURN_IF_ERROR(im.define_alias(0, x));
        return im.define_const(1, zero_indices(od));
    }
    int vals, idx;
    NF_RETURN_IF_ERROR(emit_topk(im, ax, (int)k64, largest, false, false, vals, idx));
    NF_RETURN_IF_ERROR(im.define_runtime(0, vals, od, x.dtype));
    return im.define_runtime(1, idx, od, kInt64);
}

// ArgMax / ArgMin: the index of the first (or, select_last_index = 1, the last) extreme value.
Status arg_extreme(Importer& im, bool largest) {
    const Value& x = im.in(0);
    int ax;
    if (!norm_axis(im.attr_i("axis", 0), x.shape.size(), ax))
        return im.invalid_here("axis " + std::to_string(im.attr_i("axis", 0)) + " is outside the rank " +
                               std::to_string(x.shape.size()));
    const bool keepdims = im.attr_i("keepdims", 1) != 0;
    const bool last = im.attr_i("select_last_index", 0) != 0;
    Dims od = x.shape;
    if (keepdims)
        od[ax] = 1;
    else
        od.erase(od.begin() + ax);
    if (x.shape[ax] == 1)
        return im.define_const(0, zero_indices(od));
    // ncnn's ArgMax flattens the blob and breaks ties towards the larger index: the same result
    // when the axis holds every element and the last extreme index is asked for
    if (largest && last && product(x.shape, 0, x.shape.size()) == (uint64_t)x.shape[ax] &&
        (uint64_t)x.shape[ax] < kMaxIndexed) {
        int xb;
        NF_RETURN_IF_ERROR(im.input_blob(0, xb));
        ParamDict pd;
        pd.set_int(1, 1);
        int top = im.temp_blob(Shape::d2(1, 1));
        im.emit("ArgMax", "", {xb}, {top}, pd);
        return im.define_runtime(0, top, od, kInt64);
    }
    int vals, idx;
    NF_RETURN_IF_ERROR(emit_topk(im, ax, 1, largest, last, true, vals, idx));
    return im.define_runtime(0, idx, od, kInt64);
}

Status op_argmax(Importer& im, const Node&) { return arg_extreme(im, true); }
Status op_argmin(Importer& im, const Node&) { return arg_extreme(im, false); }

Status op_gathernd(Importer& im, const Node& n) {
    const Value& data = im.in(0);
    const Value& idx = im.in(1);
    const Dims& d = data.shape;
    const Dims& id = idx.shape;
    const int64_t b = im.attr_i("batch_dims", 0);
    if (b < 0 || (size_t)b >= d.size() || (size_t)b >= id.size())
        return im.invalid_here("batch_dims = " + std::to_string(b) + " needs fewer axes than data " + dims_str(d) +
                               " and indices " + dims_str(id) + " have");
    if (is_float_type(idx.dtype))
        return im.invalid_here("indices have element type " + std::string(data_type_name(idx.dtype)) + " (int64 needed)");
    for (int64_t a = 0; a < b; a++)
        if (d[a] != id[a])
            return im.invalid_here("batch axis " + std::to_string(a) + " differs: data " + dims_str(d) + ", indices " +
                                   dims_str(id));
    const int64_t k = id.back();
    if (k < 1 || (size_t)(b + k) > d.size() || k > 8)
        return im.invalid_here("index tuples of " + std::to_string(k) + " values do not index data " + dims_str(d) +
                               " after " + std::to_string(b) + " batch axes");
    Dims od(id.begin(), id.end() - 1);
    od.insert(od.end(), d.begin() + b + k, d.end());
    const uint64_t batch = product(d, 0, (size_t)b), slice = product(d, (size_t)(b + k), d.size());
    const uint64_t total = product(d, 0, d.size()), tuples = product(id, 0, id.size() - 1);
    if (total >= kMaxIndexed || tuples * (uint64_t)k >= kMaxIndexed || tuples * slice > 0x7fffffff)
        return im.unsupported_here("data " + dims_str(d) + " or indices " + dims_str(id) + " are too large");
    std::vector<int> dims;
    for (int64_t j = 0; j < k; j++)
        dims.push_back((int)d[b + j]);
    int ib;
    if (const Tensor* t = im.const_in(1)) {
        // constant indices: checked here, so a bad one is an import error naming the node
        Tensor f;
        f.name = n.inputs[1] + "#float";
        f.dims = {(int64_t)t->numel()};
        for (uint64_t e = 0; e < t->numel(); e++) {
            const int64_t v = saturate_int64(t->at(e));
            const int64_t ext = dims[e % (uint64_t)k];
            if (v < -ext || v >= ext)
                return im.invalid_here("index " + std::to_string(v) + " (element " + std::to_string(e) +
                                       " of the indices) is outside [" + std::to_string(-ext) + ", " +
                                       std::to_string(ext - 1) + "] for data " + dims_str(d));
            f.f.push_back((float)v);
        }
        NF_RETURN_IF_ERROR(im.const_blob(f, Shape::d1((int)t->numel()), ib));
    } else {
        NF_RETURN_IF_ERROR(im.input_blob(1, ib));
    }
    int db;
    NF_RETURN_IF_ERROR(im.input_blob(0, db));
    ParamDict pd;
    pd.set_int(0, (int)batch);
    pd.set_int(1, (int)slice);
    pd.set_ints(2, dims);
    int flat = im.temp_blob(Shape::d1((int)(tuples * slice)));
    im.emit("nnfold.GatherND", "", {db, ib}, {flat}, pd);
    im.note_extension("nnfold.GatherND");
    return im.define_runtime(0, flat, od, data.dtype);
}

Status op_mod(Importer& im, const Node&) {
    const Value& a = im.in(0);
    const Value& b = im.in(1);
    const int64_t fmod = im.attr_i("fmod", 0);
    if (fmod != 0 && fmod != 1)
        return im.invalid_here("fmod = " + std::to_string(fmod) + " (0 or 1)");
    if (fmod == 0 && (is_float_type(a.dtype) || is_float_type(b.dtype)))
        return im.invalid_here("fmod = 0 on floating-point inputs (ONNX requires fmod = 1 for them)");
    Dims od;
    if (!broadcast_shapes(a.shape, b.shape, od))
        return im.invalid_here("input shapes " + dims_str(a.shape) + " and " + dims_str(b.shape) + " do not broadcast");
    Shape os;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, os).with_context(im.where()));
    int ab, bb;
    NF_RETURN_IF_ERROR(im.operand_blob(0, od, ab));
    NF_RETURN_IF_ERROR(im.operand_blob(1, od, bb));
    ParamDict pd;
    pd.set_int(0, (int)fmod);
    int top = im.temp_blob(os);
    im.emit("nnfold.Mod", "", {ab, bb}, {top}, pd);
    im.note_extension("nnfold.Mod");
    return im.define_runtime(0, top, od, a.dtype);
}

// NonMaxSuppression as YOLO exports it: boxes [B, N, 4], scores [B, C, N], the limits constant.
// The output [K, 3] has a data-dependent K: it can only be a graph output (the importer refuses a
// node that reads it).
Status op_nms(Importer& im, const Node&) {
    const Value& boxes = im.in(0);
    const Value& scores = im.in(1);
    const Dims& bd = boxes.shape;
    const Dims& sd = scores.shape;
    if (bd.size() != 3 || bd[2] != 4 || sd.size() != 3 || sd[0] != bd[0] || sd[2] != bd[1])
        return im.invalid_here("boxes " + dims_str(bd) + " and scores " + dims_str(sd) +
                               " are not [batch, N, 4] and [batch, classes, N]");
    int64_t max_output = 0;
    float iou = 0.f, score = 0.f;
    const bool has_score = im.has_in(4);
    if (im.has_in(2)) {
        Dims v;
        NF_RETURN_IF_ERROR(im.need_ints(2, "max_output_boxes_per_class", v));
        if (v.size() != 1)
            return im.invalid_here("max_output_boxes_per_class must hold one value, got " + std::to_string(v.size()));
        // onnxruntime selects nothing for a negative limit; a class has at most N boxes to
        // select, so a larger limit (even beyond int32) selects the same as N
        if (v[0] < 0)
            im.warn.add(im.where() + ": max_output_boxes_per_class = " + std::to_string(v[0]) +
                        " is negative: nothing is selected (as onnxruntime does)");
        max_output = std::max<int64_t>(0, std::min<int64_t>(v[0], bd[1]));
    }
    for (size_t k : {(size_t)3, (size_t)4}) {
        if (!im.has_in(k))
            continue;
        const Tensor* t;
        NF_RETURN_IF_ERROR(im.need_const(k, k == 3 ? "iou_threshold" : "score_threshold", t));
        if (t->numel() != 1)
            return im.invalid_here(std::string(k == 3 ? "iou_threshold" : "score_threshold") + " must hold one value");
        (k == 3 ? iou : score) = (float)t->at(0);
    }
    if (!(iou >= 0.f && iou <= 1.f))
        return im.invalid_here("iou_threshold = " + std::to_string(iou) + " is outside [0, 1]");
    if (score != score)
        return im.invalid_here("score_threshold is NaN");
    const int64_t cpb = im.attr_i("center_point_box", 0);
    if (cpb != 0 && cpb != 1)
        return im.invalid_here("center_point_box = " + std::to_string(cpb) + " (0 or 1)");
    if ((uint64_t)bd[0] * (uint64_t)sd[1] * (uint64_t)bd[1] >= kMaxIndexed)
        return im.unsupported_here("boxes " + dims_str(bd) + " and scores " + dims_str(sd) +
                                   " give 2^24 selections or more (indices are exact below 2^24)");
    int bb, sb;
    NF_RETURN_IF_ERROR(im.input_blob(0, bb));
    NF_RETURN_IF_ERROR(im.input_blob(1, sb));
    ParamDict pd;
    pd.set_int(0, (int)max_output);
    pd.set_float(1, iou);
    pd.set_float(2, score);
    pd.set_int(3, has_score ? 1 : 0);
    pd.set_int(4, (int)cpb);
    pd.set_int(5, (int)bd[0]);
    int top = im.temp_blob(Shape::dynamic_shape(2, 3));
    im.emit("nnfold.NonMaxSuppression", "", {bb, sb}, {top}, pd);
    im.note_extension("nnfold.NonMaxSuppression");
    return im.define_runtime(0, top, {-1, 3}, kInt64);
}

}  // namespace

void register_index_ops(std::map<std::string, OpFn>& t) {
    t["TopK"] = op_topk;
    t["ArgMax"] = op_argmax;
    t["ArgMin"] = op_argmin;
    t["GatherND"] = op_gathernd;
    t["Mod"] = op_mod;
    t["NonMaxSuppression"] = op_nms;
}

}  // namespace onnx
}  // namespace nnfold
