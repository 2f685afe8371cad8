// Clip whose bound is computed in the graph (a log-mel front end's `max - 80 dB` floor): BinaryOp
// max with the lower bound, then min with the upper one (ncnn's BinaryOp broadcasts the one-element
// bound into the input). Constant bounds stay with ncnn's Clip (onnx_ops_elementwise.cpp), which this
// translator hands them to.
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

OpFn constant_clip = nullptr;
constexpr int kBinaryMax = 4, kBinaryMin = 5;  // ncnn BinaryOp op_type

Status op_clip_runtime(Importer& im, const Node& n) {
    const bool runtime_lo = im.opset >= 11 && im.has_in(1) && !im.const_in(1);
    const bool runtime_hi = im.opset >= 11 && im.has_in(2) && !im.const_in(2);
    if (!runtime_lo && !runtime_hi) {
        if (!constant_clip)
            return internal_error(im.where() + ": no Clip translator for constant bounds");
        return constant_clip(im, n);
    }
    const Value& x = im.in(0);
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(x.shape, so).with_context(im.where()));
    int cur;
    NF_RETURN_IF_ERROR(im.input_blob(0, cur));
    for (size_t k = 1; k <= 2; k++) {
        if (!im.has_in(k))
            continue;
        const Value& b = im.in(k);
        uint64_t count = 1;
        for (int64_t d : b.shape)
            count *= (uint64_t)d;
        if (count != 1)
            return im.invalid_here(std::string(k == 1 ? "min" : "max") + " must be a scalar, got shape " +
                                   dims_str(b.shape));
        int bb;
        NF_RETURN_IF_ERROR(im.operand_blob(k, x.shape, bb));
        ParamDict pd;
        pd.set_int(0, k == 1 ? kBinaryMax : kBinaryMin);
        int top = im.temp_blob(so);
        im.emit("BinaryOp", k == 1 ? "_min" : "_max", {cur, bb}, {top}, pd);
        cur = top;
    }
    return im.define_runtime(0, cur, x.shape, x.dtype);
}

}  // namespace

void register_clip_ops(std::map<std::string, OpFn>& t) {
    constant_clip = wrap_op(t, "Clip", op_clip_runtime);
}

}  // namespace onnx
}  // namespace nnfold
