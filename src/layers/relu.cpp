// ReLU: the reference layer is declared in layers/relu.h.
#include "layers/relu.h"

namespace nnfold {

NF_DEFINE_LAYER(ReLU)

}  // namespace nnfold
