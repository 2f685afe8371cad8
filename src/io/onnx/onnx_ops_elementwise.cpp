// Elementwise ONNX operators -> ncnn layers (as onnx2ncnn maps them, Tencent/ncnn
// tools/onnx/onnx2ncnn.cpp): activations, UnaryOp, BinaryOp; comparisons and Where become the
// nnfold extension layers nnfold.Compare / nnfold.Where (docs/extension-layers.md).
//
// Broadcasting: ncnn's BinaryOp broadcasts numpy-style only between blobs of the same rank
// (docs/developer-guide/binaryop-broadcasting.md; a lower-rank B is aligned to the *outer* axes,
// the opposite of numpy). Each operand is therefore given the output's ncnn rank first
// (operand_ncnn_shape: leading 1s, batch axis dropped as the output drops it), which makes ncnn's
// explicit broadcast rule equal numpy's. A one-element constant becomes BinaryOp's scalar form.
#include <cfloat>
#include <cmath>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

namespace {

// ncnn BinaryOp op_type (src/layer/binaryop.h)
enum BinOp { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kMax = 4, kMin = 5, kPow = 6, kRSub = 7, kRDiv = 8, kRPow = 9 };

int reversed(int op) {
    switch (op) {
    case kSub: return kRSub;
    case kDiv: return kRDiv;
    case kPow: return kRPow;
    case kRSub: return kSub;
    case kRDiv: return kDiv;
    case kRPow: return kPow;
    default: return op;  // commutative
    }
}

// nnfold.Compare op_type (src/layers/compare.cpp)
enum CmpOp { kEq = 0, kGt = 1, kLt = 2, kGe = 3, kLe = 4, kNe = 5 };

int reversed_cmp(int op) {
    switch (op) {
    case kGt: return kLt;
    case kLt: return kGt;
    case kGe: return kLe;
    case kLe: return kGe;
    default: return op;
    }
}

// One operand of a binary op: an input of the node (a constant or a runtime blob), or an
// intermediate result of a variadic op (Sum/Min/Max with more than two inputs).
struct Operand {
    const Tensor* c = nullptr;  // constant
    int blob = -1;              // runtime
    Dims shape;
};

Operand operand(Importer& im, size_t k) {
    Operand o;
    const Value& v = im.in(k);
    o.shape = v.shape;
    if (v.is_const)
        o.c = &v.c;
    else
        o.blob = v.blob;
    return o;
}

Status operand_blob(Importer& im, const Operand& o, const Dims& out, int& blob) {
    Shape s;
    NF_RETURN_IF_ERROR(operand_ncnn_shape(o.shape, out, s).with_context(im.where()));
    if (o.c)
        return im.const_blob(*o.c, s, blob);
    return im.reshape_blob(o.blob, s, blob);
}

bool scalar_const(const Operand& o, float& v) {
    if (!o.c || o.c->numel() != 1 || !o.c->has_data())
        return false;
    v = (float)o.c->at(0);
    return true;
}

// Constant `t` broadcast to shape `od` (numpy rules), within the import's folding limit.
Status broadcast_const(Importer& im, const Tensor& t, const Dims& od, Tensor& out) {
    uint64_t n = 1;
    for (int64_t d : od)
        n *= (uint64_t)d;
    if (n > kMaxFoldElements)
        return im.unsupported_here("a constant broadcast to " + dims_str(od) + " would hold " + std::to_string(n) +
                                   " elements, above nnfold's limit of " + std::to_string(kMaxFoldElements));
    size_t r = od.size();
    Dims p(r - t.dims.size(), 1);
    p.insert(p.end(), t.dims.begin(), t.dims.end());
    out = Tensor();
    out.name = t.name + "_broadcast";
    out.dtype = kFloat;
    out.dims = od;
    out.f.resize((size_t)n);
    std::vector<int64_t> idx(r, 0);
    for (uint64_t e = 0; e < n; e++) {
        uint64_t src = 0;
        for (size_t k = 0; k < r; k++)
            src = src * (uint64_t)p[k] + (uint64_t)(p[k] == 1 ? 0 : idx[k]);
        out.f[(size_t)e] = (float)t.at((size_t)src);
        for (size_t k = r; k-- > 0;) {
            if (++idx[k] < od[k])
                break;
            idx[k] = 0;
        }
    }
    return Status::ok();
}

// a (op) b -> result (runtime). `type` is "BinaryOp" or "nnfold.Compare" (same param ids 0/1/2).
Status binary(Importer& im, const std::string& type, int op, const Operand& a, const Operand& b, Operand& result) {
    Dims od;
    if (!broadcast_shapes(a.shape, b.shape, od))
        return im.invalid_here("input shapes " + dims_str(a.shape) + " and " + dims_str(b.shape) + " do not broadcast");
    if (high_rank(od)) {
        // Above 4 axes: the same op on views of the operands with the axes that move alike merged
        // (collapse_broadcast); the values are the same dense arrays, so the result is exact.
        Operand ca = a, cb = b;
        Dims co;
        bool ok = collapse_broadcast(a.shape, b.shape, od, ca.shape, cb.shape, co);
        const Operand& k0 = a.c ? a : b;
        bool both_repeat = ok && ca.shape != co && cb.shape != co && k0.c && k0.c->numel() > 1;
        if ((!ok || both_repeat) && (a.c != nullptr) != (b.c != nullptr)) {
            // a constant that repeats along alternating axes, or along axes where the runtime
            // operand varies while repeating elsewhere, is stored repeated (the full output
            // shape), which leaves the runtime operand's pattern alone: the same values
            Operand& k = a.c ? ca : cb;
            Tensor full;
            NF_RETURN_IF_ERROR(broadcast_const(im, *k.c, od, full));
            k.c = &im.keep_const(std::move(full));
            ok = collapse_broadcast(a.c ? od : a.shape, b.c ? od : b.shape, od, ca.shape, cb.shape, co);
        }
        if (!ok)
            return im.unsupported_here("broadcasting " + dims_str(a.shape) + " with " + dims_str(b.shape) + " to " +
                                       dims_str(od) + " alternates along more than 4 axes (rank " +
                                       std::to_string(od.size()) + "), which ncnn's BinaryOp cannot express");
        NF_RETURN_IF_ERROR(binary(im, type, op, ca, cb, result));
        result.shape = od;
        return Status::ok();
    }
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    bool cmp = type != "BinaryOp";
    auto rev = [&](int o) { return cmp ? reversed_cmp(o) : reversed(o); };
    int top = im.temp_blob(so);
    float s;
    if (scalar_const(b, s) && !a.c) {
        int ab;
        NF_RETURN_IF_ERROR(operand_blob(im, a, od, ab));
        ParamDict pd;
        pd.set_int(0, op);
        pd.set_int(1, 1);
        pd.set_float(2, s);
        im.emit(type, "", {ab}, {top}, pd);
    } else if (scalar_const(a, s) && !b.c) {
        int bb;
        NF_RETURN_IF_ERROR(operand_blob(im, b, od, bb));
        ParamDict pd;
        pd.set_int(0, rev(op));
        pd.set_int(1, 1);
        pd.set_float(2, s);
        im.emit(type, "", {bb}, {top}, pd);
    } else {
        int ab, bb;
        NF_RETURN_IF_ERROR(operand_blob(im, a, od, ab));
        NF_RETURN_IF_ERROR(operand_blob(im, b, od, bb));
        const Shape& sa = im.g.blobs[ab].shape;
        const Shape& sb = im.g.blobs[bb].shape;
        ParamDict pd;
        if (sa == so || cmp) {
            // nnfold.Compare broadcasts both ways (numpy rules on equal ranks)
            pd.set_int(0, op);
            im.emit(type, "", {ab, bb}, {top}, pd);
        } else if (sb == so) {
            // ncnn broadcasts B into A: swap and reverse the operation
            pd.set_int(0, rev(op));
            im.emit(type, "", {bb, ab}, {top}, pd);
        } else {
            return im.unsupported_here("both inputs need broadcasting (" + dims_str(a.shape) + " and " +
                                       dims_str(b.shape) + "), which ncnn's BinaryOp does not do");
        }
    }
    result = Operand();
    result.blob = top;
    result.shape = od;
    return Status::ok();
}

Status binary_node(Importer& im, const Node& n, const std::string& type, int op, int out_dtype) {
    if (n.inputs.size() < 2 || !im.has_in(0) || !im.has_in(1))
        return im.invalid_here("needs two inputs");
    Operand r;
    NF_RETURN_IF_ERROR(binary(im, type, op, operand(im, 0), operand(im, 1), r));
    return im.define_runtime(0, r.blob, r.shape, out_dtype);
}

// Sum / Min / Max: variadic, folded left to right.
Status variadic(Importer& im, const Node& n, int op) {
    std::vector<size_t> ks;
    NF_RETURN_IF_ERROR(present_inputs(im, n, ks));
    if (ks.size() == 1)
        return im.define_alias(0, im.in(ks[0]));
    Operand acc = operand(im, ks[0]);
    for (size_t j = 1; j < ks.size(); j++) {
        Operand r;
        NF_RETURN_IF_ERROR(binary(im, "BinaryOp", op, acc, operand(im, ks[j]), r));
        acc = r;
    }
    return im.define_runtime(0, acc.blob, acc.shape, im.in(ks[0]).dtype);
}

// A one-input, one-output layer with the input's shape.
Status unary_layer(Importer& im, const std::string& type, const ParamDict& pd = ParamDict()) {
    if (!im.has_in(0))
        return im.invalid_here("missing input");
    const Value& x = im.in(0);
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    int top = im.temp_blob(im.g.blobs[xb].shape);
    im.emit(type, "", {xb}, {top}, pd);
    return im.define_runtime(0, top, x.shape, x.dtype);
}

Status unary_op(Importer& im, int op_type) {
    ParamDict pd;
    pd.set_int(0, op_type);
    return unary_layer(im, "UnaryOp", pd);
}

Status op_relu(Importer& im, const Node&) { return unary_layer(im, "ReLU"); }
Status op_leaky_relu(Importer& im, const Node&) {
    ParamDict pd;
    pd.set_float(0, im.attr_f("alpha", 0.01f));
    return unary_layer(im, "ReLU", pd);
}
Status op_sigmoid(Importer& im, const Node&) { return unary_layer(im, "Sigmoid"); }
Status op_tanh(Importer& im, const Node&) { return unary_layer(im, "TanH"); }
Status op_elu(Importer& im, const Node&) {
    ParamDict pd;
    pd.set_float(0, im.attr_f("alpha", 1.f));
    return unary_layer(im, "ELU", pd);
}
Status op_hard_sigmoid(Importer& im, const Node&) {
    // ncnn HardSigmoid: clamp(alpha * x + beta, 0, 1), defaults 0.2 / 0.5 as ONNX
    ParamDict pd;
    pd.set_float(0, im.attr_f("alpha", 0.2f));
    pd.set_float(1, im.attr_f("beta", 0.5f));
    return unary_layer(im, "HardSigmoid", pd);
}
Status op_hard_swish(Importer& im, const Node&) {
    // ONNX HardSwish: x * max(0, min(1, x / 6 + 0.5)); ncnn HardSwish: x * clamp(alpha * x + beta, 0, 1)
    ParamDict pd;
    pd.set_float(0, 1.f / 6.f);
    pd.set_float(1, 0.5f);
    return unary_layer(im, "HardSwish", pd);
}
Status op_erf(Importer& im, const Node&) { return unary_layer(im, "Erf"); }
Status op_gelu(Importer& im, const Node&) {
    // ncnn GELU: fast_gelu 0 = 0.5x(1 + erf(x / sqrt 2)); 1 = the tanh approximation
    std::string approx = im.attr_s("approximate", "none");
    ParamDict pd;
    if (approx == "tanh")
        pd.set_int(0, 1);
    else if (approx != "none")
        return im.unsupported_here("approximate='" + sanitize(approx) + "'");
    return unary_layer(im, "GELU", pd);
}
// ncnn UnaryOp op_type (src/layer/unaryop.h)
Status op_abs(Importer& im, const Node&) { return unary_op(im, 0); }
Status op_neg(Importer& im, const Node&) { return unary_op(im, 1); }
Status op_floor(Importer& im, const Node&) { return unary_op(im, 2); }
Status op_ceil(Importer& im, const Node&) { return unary_op(im, 3); }
Status op_sqrt(Importer& im, const Node&) { return unary_op(im, 5); }
Status op_exp(Importer& im, const Node&) { return unary_op(im, 7); }
Status op_log(Importer& im, const Node&) { return unary_op(im, 8); }
Status op_sin(Importer& im, const Node&) { return unary_op(im, 9); }
Status op_cos(Importer& im, const Node&) { return unary_op(im, 10); }
Status op_reciprocal(Importer& im, const Node&) { return unary_op(im, 15); }

Status op_identity(Importer& im, const Node& n) {
    if (!im.has_in(0))
        return im.invalid_here("missing input");
    if (n.op_type == "Dropout" && n.outputs.size() > 1 && !n.outputs[1].empty())
        return im.unsupported_here("the mask output of Dropout is not supported");
    return im.define_alias(0, im.in(0));
}

Status op_clip(Importer& im, const Node&) {
    float lo = -FLT_MAX, hi = FLT_MAX;
    if (im.opset < 11) {
        lo = im.attr_f("min", -FLT_MAX);
        hi = im.attr_f("max", FLT_MAX);
    } else {
        const Tensor* t;
        if (im.has_in(1)) {
            NF_RETURN_IF_ERROR(im.need_const(1, "min", t));
            if (t->numel() != 1)
                return im.invalid_here("min must be a scalar");
            lo = (float)t->at(0);
        }
        if (im.has_in(2)) {
            NF_RETURN_IF_ERROR(im.need_const(2, "max", t));
            if (t->numel() != 1)
                return im.invalid_here("max must be a scalar");
            hi = (float)t->at(0);
        }
    }
    ParamDict pd;
    pd.set_float(0, lo);
    pd.set_float(1, hi);
    return unary_layer(im, "Clip", pd);
}

Status op_add(Importer& im, const Node& n) { return binary_node(im, n, "BinaryOp", kAdd, im.in(0).dtype); }
Status op_sub(Importer& im, const Node& n) { return binary_node(im, n, "BinaryOp", kSub, im.in(0).dtype); }
Status op_mul(Importer& im, const Node& n) { return binary_node(im, n, "BinaryOp", kMul, im.in(0).dtype); }
Status op_div(Importer& im, const Node& n) {
    if (is_integer_type(im.in(0).dtype) && is_integer_type(im.in(1).dtype))
        return im.unsupported_here("integer division on tensors computed at run time (nnfold computes in float32)");
    return binary_node(im, n, "BinaryOp", kDiv, im.in(0).dtype);
}
Status op_pow(Importer& im, const Node& n) { return binary_node(im, n, "BinaryOp", kPow, im.in(0).dtype); }
Status op_min(Importer& im, const Node& n) { return variadic(im, n, kMin); }
Status op_max(Importer& im, const Node& n) { return variadic(im, n, kMax); }
Status op_sum(Importer& im, const Node& n) { return variadic(im, n, kAdd); }

Status compare_node(Importer& im, const Node& n, int op) {
    im.note_extension("nnfold.Compare");
    return binary_node(im, n, "nnfold.Compare", op, kBool);
}
Status op_equal(Importer& im, const Node& n) { return compare_node(im, n, kEq); }
Status op_greater(Importer& im, const Node& n) { return compare_node(im, n, kGt); }
Status op_less(Importer& im, const Node& n) { return compare_node(im, n, kLt); }
Status op_greater_equal(Importer& im, const Node& n) { return compare_node(im, n, kGe); }
Status op_less_equal(Importer& im, const Node& n) { return compare_node(im, n, kLe); }

Status op_where(Importer& im, const Node& n) {
    if (n.inputs.size() != 3 || !im.has_in(0) || !im.has_in(1) || !im.has_in(2))
        return im.invalid_here("needs three inputs");
    Dims o1, od;
    if (!broadcast_shapes(im.in(0).shape, im.in(1).shape, o1) || !broadcast_shapes(o1, im.in(2).shape, od))
        return im.invalid_here("input shapes do not broadcast");
    Shape so;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, so).with_context(im.where()));
    // nnfold.Where: bottoms cond, [x], [y]; params 0/1 = x is the scalar param 1, 2/3 = y likewise
    std::vector<int> bottoms;
    ParamDict pd;
    for (size_t k = 0; k < 3; k++) {
        Operand o = operand(im, k);
        float s;
        if (k > 0 && scalar_const(o, s)) {
            pd.set_int(k == 1 ? 0 : 2, 1);
            pd.set_float(k == 1 ? 1 : 3, s);
            continue;
        }
        int b;
        NF_RETURN_IF_ERROR(operand_blob(im, o, od, b));
        bottoms.push_back(b);
    }
    int top = im.temp_blob(so);
    im.emit("nnfold.Where", "", bottoms, {top}, pd);
    im.note_extension("nnfold.Where");
    return im.define_runtime(0, top, od, im.in(1).dtype);
}

Status op_softmax(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    const Dims& s = x.shape;
    size_t r = s.size();
    if (r == 0)
        return im.invalid_here("scalar input");
    int64_t axis_attr = im.attr_i("axis", im.opset >= 13 ? -1 : 1);
    int ax;
    if (!norm_axis(axis_attr, r, ax))
        return im.invalid_here("axis " + std::to_string(axis_attr) + " out of range for rank " + std::to_string(r));
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    int softmax_axis = ax;  // ONNX axis of a per-axis softmax
    if (im.opset < 13) {
        // Opsets < 13 coerce the input to 2D [prod(s[:axis]), prod(s[axis:])] and normalize rows.
        // When only one axis in s[axis:] is larger than 1 that equals a per-axis softmax over it.
        int big = -1, nbig = 0;
        for (size_t k = ax; k < r; k++)
            if (s[k] > 1) {
                big = (int)k;
                nbig++;
            }
        if (nbig == 0) {
            // every row has one element: the result is all ones
            Tensor ones;
            ones.dtype = kFloat;
            ones.dims = s;
            ones.f.assign(ones.numel(), 1.f);
            return im.define_const(0, std::move(ones));
        }
        if (nbig > 1) {
            int64_t outer = 1, inner = 1;
            for (int k = 0; k < ax; k++)
                outer *= s[k];
            for (size_t k = ax; k < r; k++)
                inner *= s[k];
            Dims d2 = {outer, inner};
            Shape s2;
            NF_RETURN_IF_ERROR(ncnn_shape_of(d2, s2).with_context(im.where()));
            int rb;
            NF_RETURN_IF_ERROR(im.reshape_blob(xb, s2, rb));
            int top = im.temp_blob(s2);
            ParamDict pd;
            pd.set_int(0, s2.dims - 1);
            pd.set_int(1, 1);
            im.emit("Softmax", "", {rb}, {top}, pd);
            return im.define_runtime(0, top, s, x.dtype);
        }
        softmax_axis = big;
    }
    int nax = softmax_axis - (drops_batch(s) ? 1 : 0);
    if (nax < 0) {
        Tensor ones;  // softmax over the batch axis of size 1
        ones.dtype = kFloat;
        ones.dims = s;
        ones.f.assign(ones.numel(), 1.f);
        return im.define_const(0, std::move(ones));
    }
    int top = im.temp_blob(im.g.blobs[xb].shape);
    ParamDict pd;
    pd.set_int(0, nax);
    pd.set_int(1, 1);  // fixbug0: the axis counts from the outermost ncnn axis
    im.emit("Softmax", "", {xb}, {top}, pd);
    (void)n;
    return im.define_runtime(0, top, s, x.dtype);
}

Status op_prelu(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    const Tensor* slope;
    NF_RETURN_IF_ERROR(im.need_const(1, "slope", slope));
    const Dims& xs = x.shape;
    const Dims& ss = slope->dims;
    Dims od;
    if (!broadcast_shapes(xs, ss, od) || od != xs)
        return im.invalid_here("slope of shape " + dims_str(ss) + " does not broadcast to the input " + dims_str(xs));
    // Per-channel form: slope varies at most along ONNX axis 1 of a batched tensor, which is ncnn's
    // outermost axis (PReLU: per w for 1D, per row for 2D, per channel for 3D/4D).
    Dims padded(xs.size() - std::min(xs.size(), ss.size()), 1);
    padded.insert(padded.end(), ss.begin(), ss.end());
    bool per_channel = drops_batch(xs) && padded.size() >= 2;
    for (size_t k = 0; per_channel && k < padded.size(); k++)
        if (k != 1 && padded[k] != 1)
            per_channel = false;
    if (per_channel || slope->numel() == 1) {
        int xb;
        NF_RETURN_IF_ERROR(im.input_blob(0, xb));
        int top = im.temp_blob(im.g.blobs[xb].shape);
        ParamDict pd;
        int num = (int)slope->numel();
        pd.set_int(0, num);
        int l = im.emit("PReLU", "", {xb}, {top}, pd);
        std::vector<float> v(num);
        for (int k = 0; k < num; k++)
            v[k] = (float)slope->at(k);
        NF_RETURN_IF_ERROR(im.set_weights(l, {std::move(v)}));
        return im.define_runtime(0, top, xs, x.dtype);
    }
    // General broadcast: max(x, 0) + slope * min(x, 0)
    Operand ox = operand(im, 0), os = operand(im, 1);
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    Shape sx = im.g.blobs[xb].shape;
    int pos = im.temp_blob(sx), neg = im.temp_blob(sx);
    im.emit("ReLU", "pos", {xb}, {pos});
    ParamDict pd;
    pd.set_int(0, kMin);
    pd.set_int(1, 1);
    pd.set_float(2, 0.f);
    im.emit("BinaryOp", "neg", {xb}, {neg}, pd);
    Operand on;
    on.blob = neg;
    on.shape = xs;
    Operand scaled, sum;
    NF_RETURN_IF_ERROR(binary(im, "BinaryOp", kMul, on, os, scaled));
    Operand op_;
    op_.blob = pos;
    op_.shape = xs;
    NF_RETURN_IF_ERROR(binary(im, "BinaryOp", kAdd, op_, scaled, sum));
    (void)ox;
    (void)n;
    return im.define_runtime(0, sum.blob, xs, x.dtype);
}

Status op_cast(Importer& im, const Node& n) {
    const Value& x = im.in(0);
    int to = (int)im.attr_i("to", kFloat);
    if (is_float_type(to) || (is_integer_type(to) && to != kBool && is_integer_type(x.dtype))) {
        // float <- anything nnfold holds (all runtime tensors are float32; bool is 0/1), or an
        // integer <- integer/bool cast: values unchanged
        Value v = x;
        v.dtype = to;
        return im.define_alias(0, v);
    }
    if (to == kBool) {
        if (x.dtype == kBool)
            return im.define_alias(0, x);
        // x != 0
        int xb;
        NF_RETURN_IF_ERROR(im.input_blob(0, xb));
        int top = im.temp_blob(im.g.blobs[xb].shape);
        ParamDict pd;
        pd.set_int(0, kNe);
        pd.set_int(1, 1);
        pd.set_float(2, 0.f);
        im.emit("nnfold.Compare", "", {xb}, {top}, pd);
        im.note_extension("nnfold.Compare");
        return im.define_runtime(0, top, x.shape, kBool);
    }
    if (is_integer_type(to)) {
        // float -> integer truncates toward zero (UnaryOp trunc, op 19)
        ParamDict pd;
        pd.set_int(0, 19);
        int xb;
        NF_RETURN_IF_ERROR(im.input_blob(0, xb));
        int top = im.temp_blob(im.g.blobs[xb].shape);
        im.emit("UnaryOp", "", {xb}, {top}, pd);
        return im.define_runtime(0, top, x.shape, to);
    }
    (void)n;
    return im.unsupported_here(std::string("Cast to ") + data_type_name(to));
}

}  // namespace

void register_elementwise_ops(std::map<std::string, OpFn>& t) {
    t["Relu"] = op_relu;
    t["LeakyRelu"] = op_leaky_relu;
    t["Sigmoid"] = op_sigmoid;
    t["Tanh"] = op_tanh;
    t["Elu"] = op_elu;
    t["HardSigmoid"] = op_hard_sigmoid;
    t["HardSwish"] = op_hard_swish;
    t["Erf"] = op_erf;
    t["Gelu"] = op_gelu;
    t["Abs"] = op_abs;
    t["Neg"] = op_neg;
    t["Floor"] = op_floor;
    t["Ceil"] = op_ceil;
    t["Sqrt"] = op_sqrt;
    t["Exp"] = op_exp;
    t["Log"] = op_log;
    t["Sin"] = op_sin;
    t["Cos"] = op_cos;
    t["Reciprocal"] = op_reciprocal;
    t["Identity"] = op_identity;
    t["Dropout"] = op_identity;
    t["Clip"] = op_clip;
    t["Add"] = op_add;
    t["Sub"] = op_sub;
    t["Mul"] = op_mul;
    t["Div"] = op_div;
    t["Pow"] = op_pow;
    t["Min"] = op_min;
    t["Max"] = op_max;
    t["Sum"] = op_sum;
    t["Equal"] = op_equal;
    t["Greater"] = op_greater;
    t["Less"] = op_less;
    t["GreaterOrEqual"] = op_greater_equal;
    t["LessOrEqual"] = op_less_equal;
    t["Where"] = op_where;
    t["Softmax"] = op_softmax;
    t["PRelu"] = op_prelu;
    t["Cast"] = op_cast;
}

}  // namespace onnx
}  // namespace nnfold
