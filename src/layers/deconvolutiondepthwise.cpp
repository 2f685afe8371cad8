// DeconvolutionDepthWise (ncnn src/layer/deconvolutiondepthwise.cpp): grouped transposed
// convolution. Params as Deconvolution plus 7 group (num_output % group == 0). Weights:
// weight_data [group][num_output/group][num_input/group][kernel_h][kernel_w] (tagged), bias_data
// [num_output] (raw). group == channels == num_output is the depthwise case. The computation,
// output size and cut rules are Deconvolution's (deconvolution.cpp).
#include "layers/deconvolutiondepthwise.h"

namespace nnfold {

NF_DEFINE_LAYER(DeconvolutionDepthWise)

}  // namespace nnfold
