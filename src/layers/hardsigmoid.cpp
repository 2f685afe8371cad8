// HardSigmoid: the reference layer is declared in layers/hardsigmoid.h.
#include "layers/hardsigmoid.h"

namespace nnfold {

NF_DEFINE_LAYER(HardSigmoid)

}  // namespace nnfold
