// ncnn's shape params, written the same way by the ONNX importer (Input, MemoryData, Reshape) and
// the passes that rebuild a Reshape or a MemoryData, and read back as MemoryData reads them.
#pragma once

#include "core/shape.h"
#include "model/param_dict.h"

namespace nnfold {

// ncnn's shape params for `s` (0=w 1=h 11=d 2=c, only as many as s has dims), as Input,
// MemoryData and Reshape take them.
ParamDict shape_params(const Shape& s);

// The shape MemoryData gives its sizes (ncnn src/layer/memorydata.cpp): d set -> 4D, else c set
// -> 3D, else h -> 2D, else w -> 1D; all zero -> one value.
Shape memorydata_shape(int w, int h, int d, int c);

}  // namespace nnfold
