// Folding ScatterND, ScatterElements (and its deprecated name Scatter) and GatherElements when
// every operand is a constant: exporters write in-place slice assignment on a tensor built in the
// graph (Swin's shifted-window mask: `img_mask[:, h, w, :] = cnt` on zeros) as ScatterND on
// constants, which then fold away before any layer is emitted.
#include <string>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

Status need(const Tensor* t, const char* what) {
    if (!t)
        return invalid_model(std::string("missing input '") + what + "'");
    if (!t->has_data())
        return unsupported(std::string("input '") + what + "' has element type " + data_type_name(t->dtype) +
                           ", which nnfold cannot use");
    return Status::ok();
}

void store(Tensor& t, size_t k, double v) {
    if (t.is_float())
        t.f[k] = (float)v;
    else
        t.i[k] = saturate_int64(v);
}

// reduction attribute (opset 16: none/add/mul, 18: also max/min)
Status combine(const std::string& reduction, double old, double upd, double& r) {
    if (reduction == "none")
        r = upd;
    else if (reduction == "add")
        r = old + upd;
    else if (reduction == "mul")
        r = old * upd;
    else if (reduction == "max")
        r = old > upd ? old : upd;
    else if (reduction == "min")
        r = old < upd ? old : upd;
    else
        return unsupported("reduction " + quote(reduction) + " (none, add, mul, max and min are defined)");
    return Status::ok();
}

std::string reduction_of(const Node& n) {
    const Attribute* a = n.attr("reduction");
    return a ? a->s : std::string("none");
}

// An index along a dimension of size `dim`; ONNX allows [-dim, dim - 1].
Status index_in(double v, int64_t dim, int64_t& out) {
    int64_t i = saturate_int64(v);
    if (i < -dim || i >= dim)
        return invalid_model("index " + std::to_string(i) + " is outside [" + std::to_string(-dim) + ", " +
                             std::to_string(dim - 1) + "]");
    out = i < 0 ? i + dim : i;
    return Status::ok();
}

Status scatter_nd(const Node& n, const Tensor& data, const Tensor& idx, const Tensor& upd, Tensor& out) {
    const Dims& d = data.dims;
    const Dims& id = idx.dims;
    if (id.empty())
        return invalid_model("indices must have rank >= 1");
    const size_t k = (size_t)id.back();
    if (id.back() < 1 || k > d.size())
        return invalid_model("indices' last dimension " + std::to_string(id.back()) + " must be in [1, " +
                             std::to_string(d.size()) + "] (the data's rank)");
    Dims want(id.begin(), id.end() - 1);
    want.insert(want.end(), d.begin() + k, d.end());
    if (upd.dims != want)
        return invalid_model("updates have shape " + dims_str(upd.dims) + "; data " + dims_str(d) + " and indices " +
                             dims_str(id) + " need " + dims_str(want));
    uint64_t slice = 1;
    for (size_t j = k; j < d.size(); j++)
        slice *= (uint64_t)d[j];
    const uint64_t tuples = idx.numel() / k;
    const std::string red = reduction_of(n);
    out = data;
    for (uint64_t t = 0; t < tuples; t++) {
        uint64_t base = 0;
        for (size_t j = 0; j < k; j++) {
            int64_t i = 0;
            NF_RETURN_IF_ERROR(index_in(idx.at(t * k + j), d[j], i));
            base = base * (uint64_t)d[j] + (uint64_t)i;
        }
        for (size_t j = k; j < d.size(); j++)
            base *= (uint64_t)d[j];
        for (uint64_t e = 0; e < slice; e++) {
            double r = 0;
            NF_RETURN_IF_ERROR(combine(red, out.at(base + e), upd.at(t * slice + e), r));
            store(out, base + e, r);
        }
    }
    return Status::ok();
}

// Row-major strides of `d`.
Dims strides_of(const Dims& d) {
    Dims s(d.size(), 1);
    for (size_t j = d.size(); j-- > 1;)
        s[j - 1] = s[j] * d[j];
    return s;
}

// Visits every position of `shape` (the indices' shape): fn(flat position, flat offset in a
// tensor of shape `target` with the axis coordinate replaced by the index there).
template <typename Fn>
Status along_axis(const Dims& shape, const Dims& target, int axis, const Tensor& idx, Fn fn) {
    const Dims ts = strides_of(target);
    Dims coord(shape.size(), 0);
    const uint64_t total = idx.numel();
    for (uint64_t p = 0; p < total; p++) {
        uint64_t rem = p;
        for (size_t j = shape.size(); j-- > 0;) {
            coord[j] = (int64_t)(rem % (uint64_t)shape[j]);
            rem /= (uint64_t)shape[j];
        }
        int64_t i = 0;
        NF_RETURN_IF_ERROR(index_in(idx.at(p), target[axis], i));
        uint64_t off = 0;
        for (size_t j = 0; j < shape.size(); j++)
            off += (uint64_t)((int)j == axis ? i : coord[j]) * (uint64_t)ts[j];
        NF_RETURN_IF_ERROR(fn(p, off));
    }
    return Status::ok();
}

Status axis_of(const Node& n, size_t rank, int& axis) {
    const Attribute* a = n.attr("axis");
    if (!norm_axis(a ? a->i : 0, rank, axis))
        return invalid_model("axis " + std::to_string(a ? a->i : 0) + " is outside the rank " + std::to_string(rank));
    return Status::ok();
}

Status scatter_elements(const Node& n, const Tensor& data, const Tensor& idx, const Tensor& upd, Tensor& out) {
    if (idx.dims.size() != data.dims.size() || upd.dims != idx.dims)
        return invalid_model("data " + dims_str(data.dims) + ", indices " + dims_str(idx.dims) + " and updates " +
                             dims_str(upd.dims) + ": indices and updates need one shape, of the data's rank");
    for (size_t j = 0; j < idx.dims.size(); j++)
        if (idx.dims[j] > data.dims[j])
            return invalid_model("indices " + dims_str(idx.dims) + " exceed the data " + dims_str(data.dims));
    int axis = 0;
    NF_RETURN_IF_ERROR(axis_of(n, data.dims.size(), axis));
    const std::string red = reduction_of(n);
    out = data;
    return along_axis(idx.dims, data.dims, axis, idx, [&](uint64_t p, uint64_t off) -> Status {
        double r = 0;
        NF_RETURN_IF_ERROR(combine(red, out.at(off), upd.at(p), r));
        store(out, off, r);
        return Status::ok();
    });
}

Status gather_elements(const Node& n, const Tensor& data, const Tensor& idx, Tensor& out) {
    if (idx.dims.size() != data.dims.size() || data.dims.empty())
        return invalid_model("indices " + dims_str(idx.dims) + " need the data's rank (" +
                             std::to_string(data.dims.size()) + ")");
    int axis = 0;
    NF_RETURN_IF_ERROR(axis_of(n, data.dims.size(), axis));
    for (size_t j = 0; j < idx.dims.size(); j++)
        if ((int)j != axis && idx.dims[j] > data.dims[j])
            return invalid_model("indices " + dims_str(idx.dims) + " exceed the data " + dims_str(data.dims));
    out = Tensor();
    out.dtype = data.dtype;
    out.dims = idx.dims;
    if (out.is_float())
        out.f.assign(idx.numel(), 0.f);
    else
        out.i.assign(idx.numel(), 0);
    return along_axis(idx.dims, data.dims, axis, idx, [&](uint64_t p, uint64_t off) -> Status {
        store(out, p, data.at(off));
        return Status::ok();
    });
}

}  // namespace

Status fold_scatter_gather(const Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
    const std::string& op = n.op_type;
    const Tensor* data = in.size() > 0 ? in[0] : nullptr;
    const Tensor* idx = in.size() > 1 ? in[1] : nullptr;
    NF_RETURN_IF_ERROR(need(data, "data"));
    NF_RETURN_IF_ERROR(need(idx, "indices"));
    if (!is_integer_type(idx->dtype))
        return invalid_model("indices have element type " + std::string(data_type_name(idx->dtype)) +
                             " (int32 or int64 expected)");
    Tensor r;
    if (op == "GatherElements") {
        NF_RETURN_IF_ERROR(gather_elements(n, *data, *idx, r));
    } else {
        const Tensor* upd = in.size() > 2 ? in[2] : nullptr;
        NF_RETURN_IF_ERROR(need(upd, "updates"));
        if (op == "ScatterND")
            NF_RETURN_IF_ERROR(scatter_nd(n, *data, *idx, *upd, r));
        else
            NF_RETURN_IF_ERROR(scatter_elements(n, *data, *idx, *upd, r));
    }
    out.push_back(std::move(r));
    return Status::ok();
}

}  // namespace onnx
}  // namespace nnfold
