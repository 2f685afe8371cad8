// Constant folding at import: nodes whose inputs are all constants are computed here with ONNX
// semantics (shape subgraphs: Shape -> Gather -> Unsqueeze -> Concat -> Reshape; Cast chains;
// ConstantOfShape; Split feeding Pad; arithmetic on initializers). Float results are rounded to
// float32 after each operation, as onnxruntime computes them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/broadcast_index.h"
#include "core/strings.h"
#include "io/onnx/onnx_importer.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

// ---------------------------------------------------------------------------------------------
// element helpers

namespace {

uint64_t count_of(const Dims& d) {
    uint64_t n = 1;
    for (int64_t v : d)
        n *= (uint64_t)v;
    return n;
}

Tensor make(int dtype, Dims dims) {
    Tensor t;
    t.dtype = dtype;
    t.dims = std::move(dims);
    uint64_t n = count_of(t.dims);
    if (t.is_float())
        t.f.assign(n, 0.f);
    else
        t.i.assign(n, 0);
    return t;
}

void set(Tensor& t, size_t k, double v) {
    if (t.is_float())
        t.f[k] = (float)v;
    else
        t.i[k] = saturate_int64(v);
}

// Dense strides of a tensor of shape `d` (innermost 1).
std::vector<int64_t> dense_strides(const Dims& d) {
    std::vector<int64_t> stride(d.size(), 1);
    for (size_t k = d.size(); k-- > 1;)
        stride[k - 1] = stride[k] * d[k];
    return stride;
}

// Fills `t` (shape `od`) in order from `x`: the element at output index idx reads x at offset
// sum over k of offset(k, idx[k]) (a strided slice, a tiled repeat, a transpose).
template <typename Fn>
void copy_indexed(const Tensor& x, const Dims& od, Tensor& t, Fn offset) {
    std::vector<int64_t> idx(od.size(), 0);
    for (size_t i = 0; i < t.numel(); i++) {
        int64_t src = 0;
        for (size_t k = 0; k < od.size(); k++)
            src += offset(k, idx[k]);
        set(t, i, x.at((size_t)src));
        for (size_t k = od.size(); k-- > 0;) {
            if (++idx[k] < od[k])
                break;
            idx[k] = 0;
        }
    }
}

Status need_data(const Tensor* t, const char* what) {
    if (!t)
        return invalid_model(std::string("missing input ") + what);
    if (!t->has_data())
        return unsupported(std::string(what) + " has element type " + data_type_name(t->dtype) +
                           ", which nnfold cannot fold");
    return Status::ok();
}

Status ints_of(const Tensor* t, const char* what, Dims& out) {
    NF_RETURN_IF_ERROR(need_data(t, what));
    out.clear();
    for (size_t k = 0; k < t->numel(); k++) {
        int64_t v = 0;
        if (t->is_float() && !float_to_int64(t->f[k], v))
            return invalid_model(std::string(what) + " holds " + std::to_string(t->f[k]) +
                                 ", which is not an integer in range");
        out.push_back(t->is_float() ? v : t->i[k]);
    }
    return Status::ok();
}

Status check_size(const Dims& d) {
    uint64_t n = 1;
    for (int64_t v : d) {
        if (v < 0)
            return invalid_model("negative dimension in " + dims_str(d));
        if (v > 0 && n > kMaxFoldElements / (uint64_t)v + 1)
            return resource_limit("a folded constant of shape " + dims_str(d) + " is too large");
        n *= (uint64_t)v;
    }
    if (n > kMaxFoldElements)
        return resource_limit("a folded constant of shape " + dims_str(d) + " is too large (" + std::to_string(n) +
                              " elements; limit " + std::to_string(kMaxFoldElements) + ")");
    return Status::ok();
}

double apply_binary(const std::string& op, double a, double b, bool is_float, bool& bad) {
    if (op == "Add" || op == "Sum")
        return a + b;
    if (op == "Sub")
        return a - b;
    if (op == "Mul")
        return a * b;
    if (op == "Div") {
        if (!is_float) {
            if (b == 0) {
                bad = true;
                return 0;
            }
            return std::trunc(a / b);  // integer division (values pass through double)
        }
        return (double)((float)a / (float)b);
    }
    if (op == "Pow")
        return is_float ? (double)std::pow((float)a, (float)b) : std::pow(a, b);
    if (op == "Min")
        return std::min(a, b);
    if (op == "Max")
        return std::max(a, b);
    if (op == "Mod") {
        if (!is_float) {
            if (b == 0) {
                bad = true;
                return 0;
            }
            double r = std::fmod(a, b);  // exact for integers; the sign follows the divisor
            if (r != 0 && ((r < 0) != (b < 0)))
                r += b;
            return r;
        }
        return std::fmod(a, b);
    }
    if (op == "Equal")
        return a == b;
    if (op == "Greater")
        return a > b;
    if (op == "Less")
        return a < b;
    if (op == "GreaterOrEqual")
        return a >= b;
    if (op == "LessOrEqual")
        return a <= b;
    if (op == "And")
        return (a != 0) && (b != 0);
    if (op == "Or")
        return (a != 0) || (b != 0);
    bad = true;
    return 0;
}

bool is_compare(const std::string& op) {
    return op == "Equal" || op == "Greater" || op == "Less" || op == "GreaterOrEqual" || op == "LessOrEqual" ||
           op == "And" || op == "Or";
}

bool unary_fn(const std::string& op, double x, bool is_float, double& r) {
    float f = (float)x;
    if (op == "Neg") r = -x;
    else if (op == "Abs") r = std::fabs(x);
    else if (op == "Sqrt") r = is_float ? (double)std::sqrt(f) : std::sqrt(x);
    else if (op == "Exp") r = std::exp(f);
    else if (op == "Log") r = std::log(f);
    else if (op == "Relu") r = x > 0 ? x : 0;
    else if (op == "Sigmoid") r = 1.f / (1.f + std::exp(-f));
    else if (op == "Tanh") r = std::tanh(f);
    else if (op == "Erf") r = std::erf(f);
    else if (op == "Floor") r = std::floor(x);
    else if (op == "Ceil") r = std::ceil(x);
    else if (op == "Reciprocal") r = 1.f / f;
    else if (op == "Not") r = x == 0;
    else if (op == "Sign") r = x > 0 ? 1 : x < 0 ? -1 : 0;
    else if (op == "Identity") r = x;
    else return false;
    return true;
}

Status gather_constant(const Node& n, const Tensor& data, const Tensor& idx, std::vector<Tensor>& out) {
    int64_t axis_attr = 0;
    if (const Attribute* a = n.attr("axis"))
        axis_attr = a->i;
    int axis;
    if (!norm_axis(axis_attr, std::max<size_t>(data.dims.size(), 1), axis) || data.dims.empty())
        return invalid_model("Gather: axis " + std::to_string(axis_attr) + " out of range");
    Dims od;
    for (int k = 0; k < axis; k++)
        od.push_back(data.dims[k]);
    for (int64_t d : idx.dims)
        od.push_back(d);
    for (size_t k = axis + 1; k < data.dims.size(); k++)
        od.push_back(data.dims[k]);
    NF_RETURN_IF_ERROR(check_size(od));
    Tensor t = make(data.dtype, od);
    int64_t outer = 1, inner = 1, dim = data.dims[axis];
    for (int k = 0; k < axis; k++)
        outer *= data.dims[k];
    for (size_t k = axis + 1; k < data.dims.size(); k++)
        inner *= data.dims[k];
    size_t ni = idx.numel(), o = 0;
    for (int64_t a = 0; a < outer; a++)
        for (size_t j = 0; j < ni; j++) {
            int64_t q = idx.is_float() ? saturate_int64(idx.f[j]) : idx.i[j];
            if (q < 0)
                q += dim;
            if (q < 0 || q >= dim)
                return invalid_model("Gather: index " + std::to_string(q) + " out of range for dimension " +
                                     std::to_string(dim));
            for (int64_t b = 0; b < inner; b++, o++)
                set(t, o, data.at((size_t)((a * dim + q) * inner + b)));
        }
    out.push_back(std::move(t));
    return Status::ok();
}

}  // namespace

Status transpose_tensor(const Tensor& in, const Dims& perm, Tensor& out) {
    size_t r = in.dims.size();
    if (perm.size() != r)
        return invalid_model("Transpose: perm has " + std::to_string(perm.size()) + " entries for rank " +
                             std::to_string(r));
    Dims od(r);
    std::vector<char> seen(r, 0);
    for (size_t k = 0; k < r; k++) {
        if (perm[k] < 0 || perm[k] >= (int64_t)r || seen[perm[k]])
            return invalid_model("Transpose: perm is not a permutation");
        seen[perm[k]] = 1;
        od[k] = in.dims[perm[k]];
    }
    out = make(in.dtype, od);
    std::vector<int64_t> in_stride = dense_strides(in.dims);
    copy_indexed(in, od, out, [&](size_t k, int64_t i) { return i * in_stride[perm[k]]; });
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// One folder per operator (family)

namespace {

// A node to fold: its constant inputs (nullptr where absent) and the model's opset.
struct FoldCall {
    const Node& n;
    int64_t opset;
    const std::vector<const Tensor*>& in;
    const std::string& op;  // n.op_type
    const Tensor* x;        // input 0, nullptr when absent

    const Tensor* input(size_t k) const { return k < in.size() ? in[k] : nullptr; }
    int64_t attr_i(const char* name, int64_t def) const {
        const Attribute* a = n.attr(name);
        return a ? a->i : def;
    }
};
using FoldFn = Status (*)(const FoldCall&, std::vector<Tensor>&);

Status fold_constant(const FoldCall& f, std::vector<Tensor>& out) {
    Tensor t;
    if (const Attribute* a = f.n.attr("value")) {
        if (a->t.size() != 1)
            return invalid_model("Constant: 'value' holds no tensor");
        t = a->t[0];
    } else if (const Attribute* a = f.n.attr("value_float")) {
        t.dtype = kFloat;
        t.f = {a->f};
    } else if (const Attribute* a = f.n.attr("value_floats")) {
        t.dtype = kFloat;
        t.f = a->floats;
        t.dims = {(int64_t)a->floats.size()};
    } else if (const Attribute* a = f.n.attr("value_int")) {
        t.dtype = kInt64;
        t.i = {a->i};
    } else if (const Attribute* a = f.n.attr("value_ints")) {
        t.dtype = kInt64;
        t.i = a->ints;
        t.dims = {(int64_t)a->ints.size()};
    } else {
        return unsupported("Constant: only tensor, float(s) and int(s) values are supported");
    }
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_constant_of_shape(const FoldCall& f, std::vector<Tensor>& out) {
    Dims shape;
    NF_RETURN_IF_ERROR(ints_of(f.input(0), "shape", shape));
    NF_RETURN_IF_ERROR(check_size(shape));
    int dtype = kFloat;
    double v = 0;
    if (const Attribute* a = f.n.attr("value")) {
        if (a->t.size() != 1 || a->t[0].numel() != 1 || !a->t[0].has_data())
            return invalid_model("ConstantOfShape: 'value' must be a one-element tensor");
        dtype = a->t[0].dtype;
        v = a->t[0].at(0);
    }
    Tensor t = make(dtype, shape);
    for (size_t k = 0; k < t.numel(); k++)
        set(t, k, v);
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_shape(const FoldCall& f, std::vector<Tensor>& out) {
    if (!f.x)
        return invalid_model("missing input");
    out.push_back(shape_query(f.n, f.x->dims));
    return Status::ok();
}

Status fold_identity(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    out.push_back(*f.x);
    if (f.op == "Dropout" && f.n.outputs.size() > 1 && !f.n.outputs[1].empty()) {
        Tensor mask = make(kBool, f.x->dims);
        for (auto& v : mask.i)
            v = 1;
        out.push_back(std::move(mask));
    }
    return Status::ok();
}

Status fold_cast(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    int to = (int)f.attr_i("to", kFloat);
    if (!is_float_type(to) && !is_integer_type(to))
        return unsupported(std::string("Cast to ") + data_type_name(to));
    Tensor t = make(to, f.x->dims);
    for (size_t k = 0; k < f.x->numel(); k++) {
        double v = f.x->at(k);
        if (to == kBool)
            v = v != 0;
        else if (!is_float_type(to))
            v = std::trunc(v);
        set(t, k, v);
    }
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_gather(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "data"));
    NF_RETURN_IF_ERROR(need_data(f.input(1), "indices"));
    return gather_constant(f.n, *f.x, *f.input(1), out);
}

Status fold_squeeze(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "data"));
    Dims axes;
    bool has_axes = false;
    if (f.opset >= 13 && f.input(1)) {
        NF_RETURN_IF_ERROR(ints_of(f.input(1), "axes", axes));
        has_axes = true;
    } else if (const Attribute* a = f.n.attr("axes")) {
        axes = a->ints;
        has_axes = true;
    }
    Tensor t = *f.x;
    if (f.op == "Unsqueeze") {
        if (!has_axes)
            return invalid_model("Unsqueeze: no axes");
        NF_RETURN_IF_ERROR(unsqueeze_shape(f.x->dims, axes, t.dims));
    } else {
        NF_RETURN_IF_ERROR(squeeze_shape(f.x->dims, axes, has_axes, t.dims));
    }
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_reshape(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "data"));
    Dims spec;
    if (f.opset >= 5 || f.input(1))
        NF_RETURN_IF_ERROR(ints_of(f.input(1), "shape", spec));
    else if (const Attribute* a = f.n.attr("shape"))
        spec = a->ints;
    Tensor t = *f.x;
    NF_RETURN_IF_ERROR(reshape_target(f.x->dims, spec, f.attr_i("allowzero", 0) != 0, t.dims));
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_flatten(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    int axis;
    if (!norm_axis(f.attr_i("axis", 1), f.x->dims.size() + 1, axis))
        return invalid_model("Flatten: axis out of range");
    int64_t a = 1, b = 1;
    for (int k = 0; k < axis; k++)
        a *= f.x->dims[k];
    for (size_t k = axis; k < f.x->dims.size(); k++)
        b *= f.x->dims[k];
    Tensor t = *f.x;
    t.dims = {a, b};
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_concat(const FoldCall& f, std::vector<Tensor>& out) {
    int r = -1;
    std::vector<const Tensor*> parts;
    for (size_t k = 0; k < f.in.size(); k++) {
        if (!f.in[k])
            continue;
        NF_RETURN_IF_ERROR(need_data(f.in[k], "input"));
        if (r < 0)
            r = (int)f.in[k]->dims.size();
        else if (r != (int)f.in[k]->dims.size())
            return invalid_model("Concat: inputs of different ranks");
        parts.push_back(f.in[k]);
    }
    if (parts.empty())
        return invalid_model("Concat: no inputs");
    int axis;
    if (!norm_axis(f.attr_i("axis", 0), r, axis))
        return invalid_model("Concat: axis out of range");
    Dims od = parts[0]->dims;
    od[axis] = 0;
    for (auto* p : parts) {
        for (int k = 0; k < r; k++)
            if (k != axis && p->dims[k] != parts[0]->dims[k])
                return invalid_model("Concat: input shapes " + dims_str(parts[0]->dims) + " and " +
                                     dims_str(p->dims) + " differ outside the axis");
        od[axis] += p->dims[axis];
    }
    NF_RETURN_IF_ERROR(check_size(od));
    int dtype = parts[0]->dtype;
    Tensor t = make(dtype, od);
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; k++)
        outer *= od[k];
    for (int k = axis + 1; k < r; k++)
        inner *= od[k];
    size_t o = 0;
    for (int64_t a = 0; a < outer; a++)
        for (auto* p : parts) {
            int64_t len = p->dims[axis] * inner;
            for (int64_t j = 0; j < len; j++)
                set(t, o++, p->at((size_t)(a * len + j)));
        }
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_split(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    int axis;
    if (!norm_axis(f.attr_i("axis", 0), f.x->dims.size(), axis))
        return invalid_model("Split: axis out of range");
    Dims sizes;
    NF_RETURN_IF_ERROR(split_sizes(f.n, f.opset, f.x->dims[axis], f.input(1), sizes));
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; k++)
        outer *= f.x->dims[k];
    for (size_t k = axis + 1; k < f.x->dims.size(); k++)
        inner *= f.x->dims[k];
    int64_t off = 0;
    for (int64_t s : sizes) {
        Dims od = f.x->dims;
        od[axis] = s;
        Tensor t = make(f.x->dtype, od);
        size_t o = 0;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t j = 0; j < s * inner; j++)
                set(t, o++, f.x->at((size_t)((a * f.x->dims[axis] + off) * inner + j)));
        off += s;
        out.push_back(std::move(t));
    }
    return Status::ok();
}

Status fold_slice(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "data"));
    Dims starts, ends, axes, steps;
    if (f.opset < 10) {
        if (const Attribute* a = f.n.attr("starts"))
            starts = a->ints;
        if (const Attribute* a = f.n.attr("ends"))
            ends = a->ints;
        if (const Attribute* a = f.n.attr("axes"))
            axes = a->ints;
    } else {
        NF_RETURN_IF_ERROR(ints_of(f.input(1), "starts", starts));
        NF_RETURN_IF_ERROR(ints_of(f.input(2), "ends", ends));
        if (f.input(3))
            NF_RETURN_IF_ERROR(ints_of(f.input(3), "axes", axes));
        if (f.input(4))
            NF_RETURN_IF_ERROR(ints_of(f.input(4), "steps", steps));
    }
    std::vector<SliceRange> rg;
    NF_RETURN_IF_ERROR(slice_ranges(f.x->dims, starts, ends, axes, steps, rg));
    Dims od;
    for (auto& s : rg)
        od.push_back(s.count);
    Tensor t = make(f.x->dtype, od);
    std::vector<int64_t> stride = dense_strides(f.x->dims);
    copy_indexed(*f.x, od, t, [&](size_t k, int64_t i) { return (rg[k].start + i * rg[k].step) * stride[k]; });
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_transpose(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    Dims perm;
    if (const Attribute* a = f.n.attr("perm"))
        perm = a->ints;
    else
        for (size_t k = f.x->dims.size(); k-- > 0;)
            perm.push_back((int64_t)k);
    Tensor t;
    NF_RETURN_IF_ERROR(transpose_tensor(*f.x, perm, t));
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_range(const FoldCall& f, std::vector<Tensor>& out) {
    for (size_t k = 0; k < 3; k++)
        NF_RETURN_IF_ERROR(need_data(f.input(k), "start/limit/delta"));
    double s = f.in[0]->at(0), l = f.in[1]->at(0), d = f.in[2]->at(0);
    if (d == 0)
        return invalid_model("Range: delta 0");
    double cnt = std::ceil((l - s) / d);
    int64_t count = cnt > 0 ? saturate_int64(cnt) : 0;  // NaN -> 0; check_size bounds it
    NF_RETURN_IF_ERROR(check_size({count}));
    Tensor t = make(f.in[0]->dtype, {count});
    for (int64_t k = 0; k < count; k++)
        set(t, (size_t)k, s + (double)k * d);
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_expand_tile(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    Dims arg;
    NF_RETURN_IF_ERROR(ints_of(f.input(1), f.op == "Expand" ? "shape" : "repeats", arg));
    if (f.op == "Expand") {
        Dims od;
        if (!broadcast_shapes(f.x->dims, arg, od))
            return invalid_model("Expand: " + dims_str(f.x->dims) + " does not broadcast to " + dims_str(arg));
        NF_RETURN_IF_ERROR(check_size(od));
        Tensor t = make(f.x->dtype, od);
        for_each_broadcast_offset(od, {f.x->dims}, [&](size_t i, const std::vector<int64_t>& off) { set(t, i, f.x->at(off[0])); });
        out.push_back(std::move(t));
    } else {
        if (arg.size() != f.x->dims.size())
            return invalid_model("Tile: repeats must have one entry per axis");
        Dims od = f.x->dims;
        for (size_t k = 0; k < od.size(); k++) {
            if (arg[k] < 0)
                return invalid_model("Tile: negative repeat");
            od[k] *= arg[k];
        }
        NF_RETURN_IF_ERROR(check_size(od));
        Tensor t = make(f.x->dtype, od);
        std::vector<int64_t> stride = dense_strides(f.x->dims);
        copy_indexed(*f.x, od, t, [&](size_t k, int64_t i) { return (i % f.x->dims[k]) * stride[k]; });
        out.push_back(std::move(t));
    }
    return Status::ok();
}

Status fold_where(const FoldCall& f, std::vector<Tensor>& out) {
    for (size_t k = 0; k < 3; k++)
        NF_RETURN_IF_ERROR(need_data(f.input(k), "input"));
    Dims o1, od;
    if (!broadcast_shapes(f.in[0]->dims, f.in[1]->dims, o1) || !broadcast_shapes(o1, f.in[2]->dims, od))
        return invalid_model("Where: shapes do not broadcast");
    NF_RETURN_IF_ERROR(check_size(od));
    Tensor t = make(f.in[1]->dtype, od);
    for_each_broadcast_offset(od, {f.in[0]->dims, f.in[1]->dims, f.in[2]->dims}, [&](size_t i, const std::vector<int64_t>& off) {
        set(t, i, f.in[0]->at(off[0]) != 0 ? f.in[1]->at(off[1]) : f.in[2]->at(off[2]));
    });
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_clip(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
    if (f.opset < 11) {
        if (const Attribute* a = f.n.attr("min"))
            lo = a->f;
        if (const Attribute* a = f.n.attr("max"))
            hi = a->f;
    } else {
        if (f.input(1)) {
            NF_RETURN_IF_ERROR(need_data(f.input(1), "min"));
            lo = f.input(1)->at(0);
        }
        if (f.input(2)) {
            NF_RETURN_IF_ERROR(need_data(f.input(2), "max"));
            hi = f.input(2)->at(0);
        }
    }
    Tensor t = *f.x;
    for (size_t k = 0; k < t.numel(); k++)
        set(t, k, std::min(std::max(f.x->at(k), lo), hi));
    out.push_back(std::move(t));
    return Status::ok();
}

Status fold_binary(const FoldCall& f, std::vector<Tensor>& out) {
    std::vector<const Tensor*> parts;
    for (auto* t : f.in) {
        if (!t)
            continue;
        NF_RETURN_IF_ERROR(need_data(t, "input"));
        parts.push_back(t);
    }
    if (parts.empty())
        return invalid_model(f.op + ": no inputs");
    Tensor acc = *parts[0];
    if (parts.size() == 1 && (f.op == "Sum" || f.op == "Min" || f.op == "Max")) {
        out.push_back(std::move(acc));
        return Status::ok();
    }
    if (parts.size() < 2)
        return invalid_model(f.op + ": needs two inputs");
    for (size_t p = 1; p < parts.size(); p++) {
        const Tensor& b = *parts[p];
        Dims od;
        if (!broadcast_shapes(acc.dims, b.dims, od))
            return invalid_model(f.op + ": shapes " + dims_str(acc.dims) + " and " + dims_str(b.dims) +
                                 " do not broadcast");
        NF_RETURN_IF_ERROR(check_size(od));
        bool cmp = is_compare(f.op);
        bool fl = acc.is_float() || b.is_float();
        Tensor t = make(cmp ? kBool : acc.dtype, od);
        bool bad = false;
        for_each_broadcast_offset(od, {acc.dims, b.dims}, [&](size_t i, const std::vector<int64_t>& off) {
            double v = apply_binary(f.op, acc.at(off[0]), b.at(off[1]), fl, bad);
            if (t.is_float())
                v = (double)(float)v;  // float32 arithmetic as onnxruntime
            set(t, i, v);
        });
        if (bad)
            return invalid_model(f.op + ": division by zero or unsupported operands while folding");
        acc = std::move(t);
    }
    out.push_back(std::move(acc));
    return Status::ok();
}

Status fold_unary(const FoldCall& f, std::vector<Tensor>& out) {
    NF_RETURN_IF_ERROR(need_data(f.x, "input"));
    Tensor t = *f.x;
    for (size_t k = 0; k < t.numel(); k++) {
        double r = 0;
        unary_fn(f.op, f.x->at(k), f.x->is_float(), r);
        set(t, k, r);
    }
    out.push_back(std::move(t));
    return Status::ok();
}

const std::map<std::string, FoldFn>& fold_table() {
    static const std::map<std::string, FoldFn> t = [] {
        std::map<std::string, FoldFn> m;
        m["Constant"] = fold_constant;
        m["ConstantOfShape"] = fold_constant_of_shape;
        m["Shape"] = fold_shape;
        m["Size"] = fold_shape;
        m["Identity"] = fold_identity;
        m["Dropout"] = fold_identity;
        m["Cast"] = fold_cast;
        m["Gather"] = fold_gather;
        m["Unsqueeze"] = fold_squeeze;
        m["Squeeze"] = fold_squeeze;
        m["Reshape"] = fold_reshape;
        m["Flatten"] = fold_flatten;
        m["Concat"] = fold_concat;
        m["Split"] = fold_split;
        m["Slice"] = fold_slice;
        m["Transpose"] = fold_transpose;
        m["Range"] = fold_range;
        m["Expand"] = fold_expand_tile;
        m["Tile"] = fold_expand_tile;
        m["Where"] = fold_where;
        m["Clip"] = fold_clip;
        for (const char* op : {"ScatterND", "ScatterElements", "Scatter", "GatherElements"})
            m[op] = [](const FoldCall& f, std::vector<Tensor>& o) { return fold_scatter_gather(f.n, f.in, o); };
        const std::set<std::string> binary = {"Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Sum", "Mod",
                                                     "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And",
                                                     "Or"};
        for (auto& op : binary)
            m[op] = fold_binary;
        const std::set<std::string> unary = {"Neg", "Abs", "Sqrt", "Exp", "Log", "Relu", "Sigmoid", "Tanh",
                                                    "Erf", "Floor", "Ceil", "Reciprocal", "Not", "Sign"};
        for (auto& op : unary)
            m[op] = fold_unary;
        return m;
    }();
    return t;
}

// Folders that do not read input 0's data (Constant and ConstantOfShape read attributes and a
// shape, Shape and Size only dims).
bool folds_without_data(const std::string& op) {
    return op == "Constant" || op == "ConstantOfShape" || op == "Shape" || op == "Size";
}

}  // namespace

std::vector<std::string> folded_operators() {
    std::vector<std::string> ops;
    for (auto& kv : fold_table())
        ops.push_back(kv.first);
    return ops;
}

Status fold_node(const Node& n, int64_t opset, const std::vector<const Tensor*>& in, std::vector<Tensor>& out,
                 bool& done) {
    done = true;
    out.clear();
    FoldCall f{n, opset, in, n.op_type, in.empty() ? nullptr : in[0]};
    auto it = fold_table().find(n.op_type);
    if (it == fold_table().end() || (!folds_without_data(n.op_type) && f.x && !f.x->has_data())) {
        done = false;  // no folder; or strings etc.: the translator reports it
        return Status::ok();
    }
    return it->second(f, out);
}

Status split_sizes(const Node& n, int64_t opset, int64_t dim, const Tensor* split_input, Dims& sizes) {
    sizes.clear();
    if (opset >= 13 && split_input) {
        NF_RETURN_IF_ERROR(ints_of(split_input, "split", sizes));
    } else if (const Attribute* a = n.attr("split")) {
        sizes = a->ints;
    }
    size_t outs = n.outputs.size();
    if (sizes.empty()) {
        int64_t parts = (int64_t)outs;
        if (const Attribute* a = n.attr("num_outputs"))
            parts = a->i;
        if (parts <= 0)
            return invalid_model("Split: no outputs");
        // opset 18: the last chunk may be smaller
        int64_t chunk = (dim + parts - 1) / parts;
        if (opset < 18 && dim % parts != 0)
            return invalid_model("Split: dimension " + std::to_string(dim) + " does not divide into " +
                                 std::to_string(parts) + " equal parts");
        for (int64_t k = 0, left = dim; k < parts; k++) {
            int64_t s = std::min(chunk, left);
            sizes.push_back(s);
            left -= s;
        }
    }
    int64_t sum = 0;
    for (int64_t s : sizes) {
        if (s < 0)
            return invalid_model("Split: negative size");
        sum += s;
    }
    if (sum != dim)
        return invalid_model("Split: sizes " + dims_str(sizes) + " do not add up to " + std::to_string(dim));
    if (sizes.size() != outs)
        return invalid_model("Split: " + std::to_string(sizes.size()) + " parts for " + std::to_string(outs) +
                             " outputs");
    return Status::ok();
}

}  // namespace onnx
}  // namespace nnfold
