// Sigmoid: the layer is defined in layers/sigmoid.h (shared with its optimized subclass).
#include "layers/sigmoid.h"

namespace nnfold {

NF_DEFINE_LAYER(Sigmoid)

}  // namespace nnfold
