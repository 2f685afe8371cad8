// ncnn's shape params, written the same way by the ONNX importer (Input, MemoryData, Reshape) and
// the passes that rebuild a Reshape or a MemoryData.
#pragma once

#include "core/shape.h"
#include "model/param_dict.h"

namespace nnfold {

// ncnn's shape params for `s` (0=w 1=h 11=d 2=c, only as many as s has dims), as Input,
// MemoryData and Reshape take them.
ParamDict shape_params(const Shape& s);

}  // namespace nnfold
