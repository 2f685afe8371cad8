// Clip: the reference layer is declared in layers/clip.h.
#include "layers/clip.h"

namespace nnfold {

NF_DEFINE_LAYER(Clip)

}  // namespace nnfold
