// Expand and Tile that repeat a tensor computed at run time (an attention mask expanded over heads): a
// BinaryOp add of a zero constant of the result's shape and the input, which ncnn's BinaryOp
// broadcasts into it (B into A, numpy rules on equal ranks). Expand that only relabels axes stays
// with the shape translators' Expand (onnx_ops_shape.cpp), which this one hands it to.
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

namespace {

OpFn view_expand = nullptr;

Status op_expand_repeat(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    Dims shape, od;
    NF_RETURN_IF_ERROR(im.need_ints(1, "shape", shape));
    if (!broadcast_shapes(x.shape, shape, od))
        return im.invalid_here("shape " + dims_str(shape) + " does not broadcast with the input's " + dims_str(x.shape));
    if (high_rank(od) && !x.is_const)
        return expand_high_rank(im, n);  // a result above 4 axes (onnx_high_rank.cpp)
    uint64_t a = 1, b = 1;
    for (int64_t d : x.shape)
        a *= (uint64_t)d;
    for (int64_t d : od)
        b *= (uint64_t)d;
    if (a == b) {
        if (!view_expand)
            return internal_error(im.where() + ": no Expand translator for views");
        return view_expand(im, n);
    }
    if (b > kMaxFoldElements)
        return im.unsupported_here("Expand to " + dims_str(od) + " is too large");
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    int zb, xb;
    NF_RETURN_IF_ERROR(zeros_blob(im, od, so, zb));
    NF_RETURN_IF_ERROR(im.operand_blob(0, od, xb));
    ParamDict pd;
    pd.set_int(0, 0);  // add
    int top = im.temp_blob(so);
    im.emit("BinaryOp", "", {zb, xb}, {top}, pd);
    return im.define_runtime(0, top, od, x.dtype);
}

// Tile of a runtime tensor (numpy.tile): out[i] = x[i mod d]. Splitting output axis k into
// [r_k, d_k] (the copy index outside), one repeated axis is x viewed as [outer, 1, d_k * inner]
// broadcast to [outer, r_k, d_k * inner]: one BinaryOp add onto zeros per repeated axis (at most
// 3 axes each, any rank up to 6); adding zeros leaves every value as it is.
Status op_tile(Importer& im, const Node&) {
    const Value& x = im.in(0);
    Dims reps;
    NF_RETURN_IF_ERROR(im.need_ints(1, "repeats", reps));
    if (reps.size() != x.shape.size())
        return im.invalid_here("repeats has " + std::to_string(reps.size()) + " values for an input of rank " +
                               std::to_string(x.shape.size()));
    Dims cur = x.shape;
    int blob = x.blob;
    for (size_t k = 0; k < reps.size(); k++) {
        if (reps[k] < 0)
            return im.invalid_here("negative repeats");
        if (reps[k] == 0)
            return im.unsupported_here("repeats of 0 (an empty tensor)");
        if (reps[k] > 65536)
            return im.unsupported_here("repeats of " + std::to_string(reps[k]) + " is too large");
        if (reps[k] == 1)
            continue;
        int64_t outer = 1, inner = 1;
        for (size_t j = 0; j < k; j++)
            outer *= cur[j];
        for (size_t j = k; j < cur.size(); j++)
            inner *= cur[j];
        int top;
        NF_RETURN_IF_ERROR(repeat_onto_zeros(im, blob, {outer, 1, inner}, {outer, reps[k], inner}, top));
        blob = top;
        cur[k] *= reps[k];
    }
    if (blob == x.blob)
        return im.define_alias(0, x);
    return im.define_runtime(0, blob, cur, x.dtype);
}

}  // namespace

void register_expand_ops(std::map<std::string, OpFn>& t) {
    view_expand = wrap_op(t, "Expand", op_expand_repeat);
    t["Tile"] = op_tile;  // constant inputs fold first (onnx_fold.cpp)
}

}  // namespace onnx
}  // namespace nnfold
