// Gather with indices computed at run time (an embedding lookup on token ids): the extension layer
// nnfold.Gather (src/layers/gather.cpp); constant indices stay with the shape translators'
// Gather (onnx_ops_shape.cpp), which this one hands them to.
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

OpFn constant_index_gather = nullptr;

Status op_gather_runtime(Importer& im, const Node& n) {
    if (im.const_in(1) || !constant_index_gather) {
        if (!constant_index_gather)
            return internal_error(im.where() + ": no Gather translator for constant indices");
        return constant_index_gather(im, n);
    }
    const Value& x = im.in(0);
    const Value& idx = im.in(1);
    int ax;
    if (!norm_axis(im.attr_i("axis", 0), x.shape.size(), ax))
        return im.invalid_here("axis " + std::to_string(im.attr_i("axis", 0)) + " is outside the rank " +
                               std::to_string(x.shape.size()));
    uint64_t outer = 1, inner = 1;
    for (int a = 0; a < ax; a++)
        outer *= (uint64_t)x.shape[a];
    for (size_t a = ax + 1; a < x.shape.size(); a++)
        inner *= (uint64_t)x.shape[a];
    if (outer > 0x7fffffff || inner > 0x7fffffff || x.shape[ax] > 0x7fffffff)
        return im.unsupported_here("data of shape " + dims_str(x.shape) + " is too large");
    Dims od(x.shape.begin(), x.shape.begin() + ax);
    od.insert(od.end(), idx.shape.begin(), idx.shape.end());
    od.insert(od.end(), x.shape.begin() + ax + 1, x.shape.end());
    Shape os;
    NF_RETURN_IF_ERROR(ncnn_shape_of(od, os).with_context(im.where()));
    int xb, ib;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    NF_RETURN_IF_ERROR(im.input_blob(1, ib));
    ParamDict pd;
    pd.set_int(0, (int)outer);
    pd.set_int(1, (int)x.shape[ax]);
    pd.set_int(2, (int)inner);
    int flat = im.temp_blob(Shape::d1((int)os.total()));
    im.emit("nnfold.Gather", "", {xb, ib}, {flat}, pd);
    im.note_extension("nnfold.Gather");
    return im.define_runtime(0, flat, od, x.dtype);  // reshaped to od's ncnn shape there
}

}  // namespace

void register_gather_ops(std::map<std::string, OpFn>& t) {
    constant_index_gather = wrap_op(t, "Gather", op_gather_runtime);
}

}  // namespace onnx
}  // namespace nnfold
