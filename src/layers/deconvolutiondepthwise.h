// DeconvolutionDepthWise: Deconvolution with groups (param 7). Declared in a header for SIMD
// subclasses; the reference forward is Deconvolution's grouped loop.
#pragma once

#include "layers/deconvolution.h"

namespace nnfold {

class DeconvolutionDepthWise : public Deconvolution {
public:
    NF_PARAM_TABLE(DeconvolutionDepthWise, deconv_fields(), {NF_PARAM(7, group)})
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return finish_load(pd);
    }
};

}  // namespace nnfold
