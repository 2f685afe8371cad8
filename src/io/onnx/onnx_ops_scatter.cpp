// ScatterND on a tensor computed at run time (constant operands fold at import,
// onnx_fold_scatter.cpp): the extension layer nnfold.ScatterND (src/layers/scatternd.cpp). The
// index tuples must be constant (what exporters of in-place slice assignment write); they become
// the dense offsets where each tuple's slice starts, checked here against the data's shape.
#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

// Offsets are held as floats in a blob: exact while below 2^24.
constexpr uint64_t kMaxScatterElements = uint64_t(1) << 24;

Status op_scatternd(Importer& im, const Node& n) {
    const Value& data = im.in(0);
    const Value& upd = im.in(2);
    const Tensor* idx = im.const_in(1);
    if (!idx)
        return im.unsupported_here("its indices are computed at run time; nnfold runs ScatterND with constant indices");
    if (!is_integer_type(idx->dtype))
        return im.invalid_here("indices have element type " + std::string(data_type_name(idx->dtype)));
    const std::string red = im.attr_s("reduction", "none");
    const char* names[] = {"none", "add", "mul", "max", "min"};
    int reduction = -1;
    for (int r = 0; r < 5; r++)
        if (red == names[r])
            reduction = r;
    if (reduction < 0)
        return im.unsupported_here("reduction " + quote(red) + " (none, add, mul, max and min are defined)");
    const Dims& d = data.shape;
    const Dims& id = idx->dims;
    if (id.empty() || id.back() < 1 || (size_t)id.back() > d.size())
        return im.invalid_here("indices of shape " + dims_str(id) + " do not index data of shape " + dims_str(d));
    const size_t k = (size_t)id.back();
    Dims want(id.begin(), id.end() - 1);
    want.insert(want.end(), d.begin() + k, d.end());
    if (upd.shape != want)
        return im.invalid_here("updates have shape " + dims_str(upd.shape) + "; data " + dims_str(d) +
                               " and indices " + dims_str(id) + " need " + dims_str(want));
    uint64_t total = 1, slice = 1;
    for (int64_t v : d)
        total *= (uint64_t)v;
    for (size_t j = k; j < d.size(); j++)
        slice *= (uint64_t)d[j];
    if (total >= kMaxScatterElements)
        return im.unsupported_here("data of shape " + dims_str(d) + " has 2^24 elements or more (nnfold.ScatterND's limit)");
    const uint64_t tuples = idx->numel() / k;
    Tensor off;
    off.name = n.inputs[1] + "#offsets";
    off.dtype = kFloat;
    off.dims = {(int64_t)tuples};
    for (uint64_t t = 0; t < tuples; t++) {
        uint64_t base = 0;
        for (size_t j = 0; j < k; j++) {
            int64_t i = saturate_int64(idx->at(t * k + j));
            if (i < -d[j] || i >= d[j])
                return im.invalid_here("index " + std::to_string(i) + " on axis " + std::to_string(j) +
                                       " is outside [" + std::to_string(-d[j]) + ", " + std::to_string(d[j] - 1) + "]");
            base = base * (uint64_t)d[j] + (uint64_t)(i < 0 ? i + d[j] : i);
        }
        off.f.push_back((float)(base * slice));
    }
    Shape ds;
    NF_RETURN_IF_ERROR(ncnn_shape_of(d, ds).with_context(im.where()));
    int db, ob, ub;
    NF_RETURN_IF_ERROR(im.input_blob(0, db));
    NF_RETURN_IF_ERROR(im.const_blob(off, Shape::d1((int)tuples), ob));
    NF_RETURN_IF_ERROR(im.input_blob(2, ub));
    ParamDict pd;
    pd.set_int(0, (int)slice);
    pd.set_int(1, reduction);
    int top = im.temp_blob(ds);
    im.emit("nnfold.ScatterND", "", {db, ob, ub}, {top}, pd);
    im.note_extension("nnfold.ScatterND");
    return im.define_runtime(0, top, d, data.dtype);
}

}  // namespace

void register_scatter_ops(std::map<std::string, OpFn>& t) { t["ScatterND"] = op_scatternd; }

}  // namespace onnx
}  // namespace nnfold
