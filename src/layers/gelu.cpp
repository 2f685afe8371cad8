// GELU: the layer is defined in layers/gelu.h (shared with its optimized subclass).
#include "layers/gelu.h"

namespace nnfold {

NF_DEFINE_LAYER(GELU)

}  // namespace nnfold
