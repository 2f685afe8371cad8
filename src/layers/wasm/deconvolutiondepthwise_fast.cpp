// DeconvolutionDepthWise_fast: the depthwise case directly (kernels/deconv.h), other groupings by
// per-group GEMM + col2im (deconvolution_fast.h).
#include "layers/deconvolutiondepthwise.h"
#include "layers/wasm/deconvolution_fast.h"

namespace nnfold {

class DeconvolutionDepthWise_fast : public DeconvolutionFastImpl<DeconvolutionDepthWise> {};

NF_DEFINE_OPTIMIZED_LAYER(DeconvolutionDepthWise, DeconvolutionDepthWise_fast)

}  // namespace nnfold
