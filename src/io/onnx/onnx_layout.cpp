// The layout rule (src/io/onnx/onnx_importer.h): ONNX shapes -> ncnn blob shapes, broadcasting
// and axis arithmetic shared by the driver and the translators.
#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

std::string dims_str(const Dims& d) {
    std::string s = "[";
    for (size_t k = 0; k < d.size(); k++)
        s += (k ? "," : "") + std::to_string(d[k]);
    return s + "]";
}

static Status list_to_shape(const Dims& t, Shape& out, const Dims& original) {
    if (t.size() > 4)
        return unsupported("tensor of shape " + dims_str(original) +
                           ": ncnn blobs have at most 4 dimensions after the batch axis of 1");
    std::vector<int> l;
    for (int64_t v : t) {
        if (v <= 0)
            return unsupported("tensor of shape " + dims_str(original) + ": empty tensors are not supported");
        if (v > 0x7fffffff)
            return resource_limit("tensor of shape " + dims_str(original) + " is too large");
        l.push_back((int)v);
    }
    if (l.empty())
        l.push_back(1);
    out = Shape::from_list(l);
    if (!out.valid())
        return resource_limit("tensor of shape " + dims_str(original) + " is too large");
    return Status::ok();
}

bool high_rank(const Dims& s) { return s.size() - (drops_batch(s) ? 1 : 0) > 4; }

// The folded view of a tensor above 4 axes (onnx_importer.h, layout rule): its dense values are
// kept as they are, size-1 axes go (they do not change the order), and while more than 4 axes
// remain the two outermost merge. Each operator that accepts such a tensor views the blob again
// as it needs (Importer::reshape_blob), so the choice of view never reaches the results.
static Status folded_view(const Dims& s, Shape& out) {
    if (s.size() > kMaxOnnxRank)
        return unsupported("tensor of shape " + dims_str(s) + " has rank " + std::to_string(s.size()) +
                           "; nnfold handles tensors of up to " + std::to_string(kMaxOnnxRank) + " dimensions");
    Dims t;
    uint64_t total = 1;
    for (int64_t v : s) {
        if (v <= 0)
            return unsupported("tensor of shape " + dims_str(s) + ": empty tensors are not supported");
        // checked before multiplying: a hostile 6-D shape must not wrap around
        if ((uint64_t)v > (uint64_t(1) << 62) / total)
            return resource_limit("tensor of shape " + dims_str(s) + " is too large (its element count overflows)");
        total *= (uint64_t)v;
        if (v != 1)
            t.push_back(v);
    }
    while (t.size() > 4) {
        t[1] *= t[0];
        t.erase(t.begin());
    }
    return list_to_shape(t, out, s);
}

Status ncnn_shape_of(const Dims& s, Shape& out) {
    if (high_rank(s))
        return folded_view(s, out);
    Dims t = s;
    if (drops_batch(t))
        t.erase(t.begin());
    return list_to_shape(t, out, s);
}

bool collapse_broadcast(const Dims& a, const Dims& b, const Dims& out, Dims& ca, Dims& cb, Dims& co) {
    size_t r = out.size();
    if (a.size() > r || b.size() > r)
        return false;
    Dims pa(r - a.size(), 1), pb(r - b.size(), 1);
    pa.insert(pa.end(), a.begin(), a.end());
    pb.insert(pb.end(), b.begin(), b.end());
    ca.clear();
    cb.clear();
    co.clear();
    // per axis: does each operand vary along it (1) or repeat (0)?
    int prev_a = -1, prev_b = -1;
    for (size_t k = 0; k < r; k++) {
        if (out[k] == 1)
            continue;  // nothing to merge or broadcast
        int va = pa[k] == out[k], vb = pb[k] == out[k];
        if (!co.empty() && va == prev_a && vb == prev_b) {
            // same pattern as the axis before: the two move together in every operand
            co.back() *= out[k];
            ca.back() *= pa[k];
            cb.back() *= pb[k];
        } else {
            co.push_back(out[k]);
            ca.push_back(pa[k]);
            cb.push_back(pb[k]);
        }
        prev_a = va;
        prev_b = vb;
    }
    if (co.empty()) {
        co = ca = cb = {1};
        return true;
    }
    // no axis of `co` is 1, so the layout rule keeps all of them (no batch axis to drop)
    return co.size() <= 4;
}

Status operand_ncnn_shape(const Dims& a, const Dims& out, Shape& result) {
    if (a.size() > out.size())
        return internal_error("operand rank above output rank");
    if (high_rank(out))
        return unsupported("an output of shape " + dims_str(out) + " (rank " + std::to_string(out.size()) +
                           ", more than 4 axes after the batch axis), which this operator cannot produce in nnfold");
    Dims t(out.size() - a.size(), 1);
    t.insert(t.end(), a.begin(), a.end());
    if (drops_batch(out))
        t.erase(t.begin());
    return list_to_shape(t, result, a);
}

bool broadcast_shapes(const Dims& a, const Dims& b, Dims& out) {
    size_t r = std::max(a.size(), b.size());
    out.assign(r, 1);
    for (size_t k = 0; k < r; k++) {
        int64_t da = k < r - a.size() ? 1 : a[k - (r - a.size())];
        int64_t db = k < r - b.size() ? 1 : b[k - (r - b.size())];
        if (da != db && da != 1 && db != 1)
            return false;
        out[k] = da == 1 ? db : da;
    }
    return true;
}

bool norm_axis(int64_t axis, size_t rank, int& out) {
    int64_t r = (int64_t)rank;
    if (axis < -r || axis >= r)
        return false;
    out = (int)(axis < 0 ? axis + r : axis);
    return true;
}

}  // namespace onnx
}  // namespace nnfold
