// Every layer type nnfold knows, one line each. NF_LAYER(Class): an ncnn layer type, the class
// named exactly as the type. NF_EXT_LAYER(Class, "type"): an nnfold extension type (CONVENTIONS
// section 6) whose .param type name ("nnfold.Where") cannot clash with ncnn's. Each needs
// NF_DEFINE_LAYER(Class, ...) in its own .cpp.
// No include guard: included several times with different macro definitions.
NF_LAYER(Input)
NF_LAYER(Split)
NF_LAYER(Noop)
NF_LAYER(Dropout)
NF_LAYER(ReLU)
NF_LAYER(MemoryData)
NF_LAYER(Convolution)
NF_LAYER(ConvolutionDepthWise)
NF_LAYER(Deconvolution)
NF_LAYER(DeconvolutionDepthWise)
NF_LAYER(InnerProduct)
NF_LAYER(Gemm)
NF_LAYER(Pooling)
NF_LAYER(Padding)
NF_LAYER(Crop)
NF_LAYER(Interp)
NF_LAYER(MultiHeadAttention)
NF_LAYER(LayerNorm)
NF_LAYER(Softmax)
NF_LAYER(LRN)
NF_EXT_LAYER(Compare, "nnfold.Compare")
NF_EXT_LAYER(Where, "nnfold.Where")
