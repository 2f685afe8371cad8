// HardSwish: the reference layer is declared in layers/hardswish.h.
#include "layers/hardswish.h"

namespace nnfold {

NF_DEFINE_LAYER(HardSwish)

}  // namespace nnfold
