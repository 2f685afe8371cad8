// Softmax: the reference layer is declared in layers/softmax.h.
#include "layers/softmax.h"

namespace nnfold {

NF_DEFINE_LAYER(Softmax)

}  // namespace nnfold
