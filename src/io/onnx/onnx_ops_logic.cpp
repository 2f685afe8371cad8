// Boolean operators on tensors computed at run time (masks: torch's `~mask`). Booleans are held as
// 0/1 floats like every runtime tensor; Not is x == 0 with nnfold.Compare's scalar form.
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

Status op_not(Importer& im, const Node&) {
    const Value& x = im.in(0);
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    int top = im.temp_blob(im.g.blobs[xb].shape);
    ParamDict pd;
    pd.set_int(0, 0);  // ==
    pd.set_int(1, 1);  // with_scalar
    pd.set_float(2, 0.f);
    im.emit("nnfold.Compare", "", {xb}, {top}, pd);
    im.note_extension("nnfold.Compare");
    return im.define_runtime(0, top, x.shape, kBool);
}

}  // namespace

void register_logic_ops(std::map<std::string, OpFn>& t) { t["Not"] = op_not; }

}  // namespace onnx
}  // namespace nnfold
