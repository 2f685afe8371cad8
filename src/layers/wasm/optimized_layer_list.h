// Layer types with an optimized implementation (NF_DEFINE_OPTIMIZED_LAYER in src/layers/wasm/*.cpp).
// Compiled in every build: the SIMD flavour calls SIMD-128 kernels, the baseline their scalar twins.
// No include guard: included with different macro definitions.
NF_OPTIMIZED_LAYER(Convolution)
NF_OPTIMIZED_LAYER(ConvolutionDepthWise)
NF_OPTIMIZED_LAYER(Pooling)
NF_OPTIMIZED_LAYER(InnerProduct)
NF_OPTIMIZED_LAYER(Gemm)
NF_OPTIMIZED_LAYER(Deconvolution)
NF_OPTIMIZED_LAYER(DeconvolutionDepthWise)
NF_OPTIMIZED_LAYER(BinaryOp)
NF_OPTIMIZED_LAYER(Eltwise)
NF_OPTIMIZED_LAYER(Swish)
NF_OPTIMIZED_LAYER(Sigmoid)
NF_OPTIMIZED_LAYER(MultiHeadAttention)
NF_OPTIMIZED_LAYER(GELU)
NF_OPTIMIZED_LAYER(LSTM)
NF_OPTIMIZED_LAYER(GRU)
NF_OPTIMIZED_LAYER(RNN)
