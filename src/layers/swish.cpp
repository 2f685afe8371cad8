// Swish: the layer is defined in layers/swish.h (shared with its optimized subclass).
#include "layers/swish.h"

namespace nnfold {

NF_DEFINE_LAYER(Swish)

}  // namespace nnfold
