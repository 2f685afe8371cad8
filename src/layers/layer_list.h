// Every layer type nnfold knows, one line each. NF_LAYER: an ncnn layer type; NF_EXT_LAYER: an
// nnfold extension type (CONVENTIONS section 6). Each needs NF_DEFINE_LAYER in its own .cpp.
// No include guard: included several times with different macro definitions.
NF_LAYER(Input)
NF_LAYER(Split)
NF_LAYER(Noop)
NF_LAYER(Dropout)
NF_LAYER(ReLU)
NF_LAYER(MemoryData)
NF_LAYER(Convolution)
