// ONNX shape arithmetic (onnx_shape_ops.h), shared by constant folding (onnx_fold.cpp) and the
// translators (onnx_ops_*.cpp).
#include <algorithm>

#include "core/strings.h"
#include "io/onnx/onnx_shape_ops.h"

namespace nnfold {
namespace onnx {

Status reshape_target(const Dims& in, const Dims& spec, bool allowzero, Dims& out) {
    uint64_t total = 1;
    for (int64_t d : in)
        total *= (uint64_t)d;
    out.assign(spec.size(), 0);
    int infer = -1;
    uint64_t known = 1;
    for (size_t k = 0; k < spec.size(); k++) {
        int64_t v = spec[k];
        if (v == 0 && !allowzero) {
            if (k >= in.size())
                return invalid_model("Reshape: 0 at position " + std::to_string(k) + " has no input dimension to copy");
            v = in[k];
        }
        if (v == -1) {
            if (infer >= 0)
                return invalid_model("Reshape: more than one -1 in the target shape " + dims_str(spec));
            infer = (int)k;
            continue;
        }
        if (v < 0)
            return invalid_model("Reshape: invalid target dimension " + std::to_string(v));
        out[k] = v;
        if (v > 0 && known > (uint64_t(1) << 62) / (uint64_t)v)
            return invalid_model("Reshape: target shape overflows");
        known *= (uint64_t)v;
    }
    if (infer >= 0) {
        if (known == 0 || total % known != 0)
            return invalid_model("Reshape: cannot infer -1 reshaping " + dims_str(in) + " to " + dims_str(spec));
        out[infer] = (int64_t)(total / known);
        known *= (uint64_t)out[infer];
    }
    if (known != total)
        return invalid_model("Reshape: " + dims_str(in) + " (" + std::to_string(total) + " elements) cannot become " +
                             dims_str(spec));
    return Status::ok();
}

Status unsqueeze_shape(const Dims& in, const Dims& axes, Dims& out) {
    size_t r = in.size() + axes.size();
    std::vector<char> is_new(r, 0);
    for (int64_t a : axes) {
        int ax;
        if (!norm_axis(a, r, ax))
            return invalid_model("Unsqueeze: axis " + std::to_string(a) + " out of range for output rank " +
                                 std::to_string(r));
        if (is_new[ax])
            return invalid_model("Unsqueeze: axis " + std::to_string(a) + " given twice");
        is_new[ax] = 1;
    }
    out.clear();
    size_t j = 0;
    for (size_t k = 0; k < r; k++)
        out.push_back(is_new[k] ? 1 : in[j++]);
    return Status::ok();
}

Status squeeze_shape(const Dims& in, const Dims& axes, bool has_axes, Dims& out) {
    std::vector<char> drop(in.size(), 0);
    if (!has_axes) {
        for (size_t k = 0; k < in.size(); k++)
            drop[k] = in[k] == 1;
    } else {
        for (int64_t a : axes) {
            int ax;
            if (!norm_axis(a, in.size(), ax))
                return invalid_model("Squeeze: axis " + std::to_string(a) + " out of range");
            if (in[ax] != 1)
                return invalid_model("Squeeze: axis " + std::to_string(a) + " has size " + std::to_string(in[ax]));
            drop[ax] = 1;
        }
    }
    out.clear();
    for (size_t k = 0; k < in.size(); k++)
        if (!drop[k])
            out.push_back(in[k]);
    return Status::ok();
}

Status axis_view(Importer& im, const Dims& s, int ax, Shape& view) {
    uint64_t outer = 1, inner = 1;
    for (int k = 0; k < ax; k++)
        outer *= (uint64_t)s[k];
    for (size_t k = ax + 1; k < s.size(); k++)
        inner *= (uint64_t)s[k];
    if (outer > 0x7fffffff || inner > 0x7fffffff || s[ax] > 0x7fffffff)
        return im.unsupported_here("tensor of shape " + dims_str(s) + " is too large to view along axis " +
                                   std::to_string(ax));
    view = Shape::from_list({(int)outer, (int)s[ax], (int)inner});
    return Status::ok();
}

Status present_inputs(Importer& im, const Node& n, std::vector<size_t>& ks) {
    ks.clear();
    for (size_t k = 0; k < n.inputs.size(); k++)
        if (im.has_in(k))
            ks.push_back(k);
    if (ks.empty())
        return im.invalid_here("no inputs");
    return Status::ok();
}

Status zeros_blob(Importer& im, const Dims& dims, const Shape& s, int& blob) {
    Tensor zeros;
    zeros.name = "#zeros" + dims_str(dims);
    zeros.dtype = kFloat;
    zeros.dims = dims;
    size_t count = 1;
    for (int64_t d : dims)
        count *= (size_t)d;
    zeros.f.assign(count, 0.f);
    return im.const_blob(zeros, s, blob);
}

Status gather_positions(Importer& im, const Tensor& idx, int& ax, std::vector<int64_t>& ids) {
    const Dims& xs = im.in(0).shape;
    if (!norm_axis(im.attr_i("axis", 0), xs.size(), ax))
        return im.invalid_here("axis out of range");
    const int64_t dim = xs[ax];
    ids.clear();
    for (size_t k = 0; k < idx.numel(); k++) {
        int64_t q = saturate_int64(idx.at(k));
        if (q < 0)
            q += dim;
        if (q < 0 || q >= dim)
            return im.invalid_here("index " + std::to_string(saturate_int64(idx.at(k))) + " out of range for dimension " +
                                   std::to_string(dim));
        ids.push_back(q);
    }
    return Status::ok();
}

Status split_node_sizes(Importer& im, const Node& n, int& ax, Dims& sizes) {
    const Dims& xs = im.in(0).shape;
    if (!norm_axis(im.attr_i("axis", 0), xs.size(), ax))
        return im.invalid_here("axis out of range");
    const Tensor* split_in = nullptr;
    if (im.has_in(1))
        NF_RETURN_IF_ERROR(im.need_const(1, "split", split_in));
    return split_sizes(n, im.opset, xs[ax], split_in, sizes).with_context(im.where());
}

Status slice_node_ranges(Importer& im, std::vector<SliceRange>& out) {
    Dims starts, ends, axes, steps;
    if (im.opset < 10) {
        im.attr_ints("starts", starts);
        im.attr_ints("ends", ends);
        im.attr_ints("axes", axes);
    } else {
        NF_RETURN_IF_ERROR(im.need_ints(1, "starts", starts));
        NF_RETURN_IF_ERROR(im.need_ints(2, "ends", ends));
        if (im.has_in(3))
            NF_RETURN_IF_ERROR(im.need_ints(3, "axes", axes));
        if (im.has_in(4))
            NF_RETURN_IF_ERROR(im.need_ints(4, "steps", steps));
    }
    return slice_ranges(im.in(0).shape, starts, ends, axes, steps, out).with_context(im.where());
}

Status slice_ranges(const Dims& in, const Dims& starts, const Dims& ends, const Dims& axes_in, const Dims& steps_in,
                    std::vector<SliceRange>& out) {
    size_t n = starts.size();
    if (ends.size() != n)
        return invalid_model("Slice: starts and ends differ in length");
    Dims axes = axes_in, steps = steps_in;
    if (axes.empty())
        for (size_t k = 0; k < n; k++)
            axes.push_back((int64_t)k);
    if (steps.empty())
        steps.assign(n, 1);
    if (axes.size() != n || steps.size() != n)
        return invalid_model("Slice: axes/steps differ in length from starts");
    out.assign(in.size(), SliceRange());
    for (size_t k = 0; k < in.size(); k++) {
        out[k].start = 0;
        out[k].end = in[k];
        out[k].step = 1;
        out[k].count = in[k];
    }
    std::vector<char> seen(in.size(), 0);
    for (size_t k = 0; k < n; k++) {
        int ax;
        if (!norm_axis(axes[k], in.size(), ax))
            return invalid_model("Slice: axis " + std::to_string(axes[k]) + " out of range");
        if (seen[ax])
            return invalid_model("Slice: axis " + std::to_string(axes[k]) + " given twice");
        seen[ax] = 1;
        int64_t dim = in[ax], step = steps[k];
        if (step == 0)
            return invalid_model("Slice: step 0");
        int64_t s = starts[k], e = ends[k];
        // ONNX clamping rules
        if (s < 0)
            s += dim;
        if (e < 0)
            e += dim;
        if (step > 0) {
            s = std::max<int64_t>(0, std::min(s, dim));
            e = std::max<int64_t>(0, std::min(e, dim));
        } else {
            s = std::max<int64_t>(-1, std::min(s, dim - 1));
            e = std::max<int64_t>(-1, std::min(e, dim - 1));
        }
        int64_t count = step > 0 ? (e > s ? (e - s + step - 1) / step : 0) : (s > e ? (s - e + (-step) - 1) / (-step) : 0);
        out[ax].start = s;
        out[ax].end = e;
        out[ax].step = step;
        out[ax].count = count;
    }
    return Status::ok();
}

Tensor shape_query(const Node& n, const Dims& dims) {
    Tensor t;
    t.dtype = kInt64;
    if (n.op_type == "Size") {
        int64_t p = 1;
        for (int64_t d : dims)
            p *= d;
        t.i = {p};
        return t;
    }
    int r = (int)dims.size();
    const Attribute* sa = n.attr("start");
    const Attribute* ea = n.attr("end");
    int64_t s = sa ? sa->i : 0, e = ea ? ea->i : r;
    if (s < 0)
        s += r;
    if (e < 0)
        e += r;
    s = std::max<int64_t>(0, std::min<int64_t>(s, r));
    e = std::max<int64_t>(s, std::min<int64_t>(e, r));
    t.i.assign(dims.begin() + s, dims.begin() + e);
    t.dims = {e - s};
    return t;
}

}  // namespace onnx
}  // namespace nnfold
