// Deconvolution_fast: Deconvolution through GEMM + col2im (deconvolution_fast.h).
#include "layers/wasm/deconvolution_fast.h"

namespace nnfold {

class Deconvolution_fast : public DeconvolutionFastImpl<Deconvolution> {};

NF_DEFINE_OPTIMIZED_LAYER(Deconvolution, Deconvolution_fast)

}  // namespace nnfold
