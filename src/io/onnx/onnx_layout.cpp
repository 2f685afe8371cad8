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

Status ncnn_shape_of(const Dims& s, Shape& out) {
    Dims t = s;
    if (drops_batch(t))
        t.erase(t.begin());
    return list_to_shape(t, out, s);
}

Status operand_ncnn_shape(const Dims& a, const Dims& out, Shape& result) {
    if (a.size() > out.size())
        return internal_error("operand rank above output rank");
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
