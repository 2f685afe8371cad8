// DeconvolutionDepthWise: Deconvolution with groups (param 7). Declared in a header for SIMD
// subclasses; the reference forward is Deconvolution's grouped loop.
#pragma once

#include "layers/deconvolution.h"

namespace nnfold {

class DeconvolutionDepthWise : public Deconvolution {
public:
    Status load_param(const ParamDict& pd) override { return load_common(pd, true); }
};

}  // namespace nnfold
