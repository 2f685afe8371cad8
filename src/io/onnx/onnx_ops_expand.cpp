// Expand that repeats a tensor computed at run time (an attention mask expanded over heads): a
// BinaryOp add of a zero constant of the result's shape and the input, which ncnn's BinaryOp
// broadcasts into it (B into A, numpy rules on equal ranks). Expand that only relabels axes stays
// with the shape translators' Expand (onnx_ops_shape.cpp), which this one hands it to.
#include "io/onnx/onnx_importer.h"

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
    Tensor zeros;
    zeros.name = "#zeros" + dims_str(od);
    zeros.dtype = kFloat;
    zeros.dims = od;
    zeros.f.assign(b, 0.f);
    int zb, xb;
    NF_RETURN_IF_ERROR(im.const_blob(zeros, so, zb));
    NF_RETURN_IF_ERROR(im.operand_blob(0, od, xb));
    ParamDict pd;
    pd.set_int(0, 0);  // add
    int top = im.temp_blob(so);
    im.emit("BinaryOp", "", {zb, xb}, {top}, pd);
    return im.define_runtime(0, top, od, x.dtype);
}

}  // namespace

void register_expand_ops(std::map<std::string, OpFn>& t) {
    view_expand = wrap_op(t, "Expand", op_expand_repeat);
}

}  // namespace onnx
}  // namespace nnfold
