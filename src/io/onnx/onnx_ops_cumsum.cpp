// CumSum on a tensor computed at run time: ncnn's CumulativeSum (inclusive, forward), on the axis the
// layout rule leaves (a dropped batch axis of size 1 sums nothing). ONNX's `exclusive` and `reverse`
// forms have no ncnn counterpart: a clear error naming the attribute. Constant inputs fold.
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

Status op_cumsum(Importer& im, const Node&) {
    const Value& x = im.in(0);
    for (const char* a : {"exclusive", "reverse"})
        if (im.attr_i(a, 0) != 0)
            return im.unsupported_here(std::string("attribute ") + a + " = 1 (ncnn's CumulativeSum sums inclusively, forward)");
    Dims axis;
    NF_RETURN_IF_ERROR(im.need_ints(1, "axis", axis));
    int ax;
    if (axis.size() != 1 || !norm_axis(axis[0], x.shape.size(), ax))
        return im.invalid_here("axis must be one value within the input's rank " + std::to_string(x.shape.size()));
    if (x.shape[ax] == 1)
        return im.define_alias(0, x);  // a running sum over one element
    const int ncnn_axis = ax - (drops_batch(x.shape) ? 1 : 0);
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    const Shape& s = im.g.blobs[xb].shape;
    if (s.dims > 3)
        return im.unsupported_here("input " + dims_str(x.shape) + " is 4-D in ncnn's layout; ncnn's CumulativeSum takes 1D-3D");
    ParamDict pd;
    pd.set_int(0, ncnn_axis);
    int top = im.temp_blob(s);
    im.emit("CumulativeSum", "", {xb}, {top}, pd);
    return im.define_runtime(0, top, x.shape, x.dtype);
}

}  // namespace

void register_cumsum_ops(std::map<std::string, OpFn>& t) { t["CumSum"] = op_cumsum; }

}  // namespace onnx
}  // namespace nnfold
