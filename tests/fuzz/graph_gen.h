// Random small valid ncnn graphs for the optimizer's differential fuzzer (tests/fuzz/optfuzz.h)
// and for the fuzz targets' seed corpora. The generator tracks every blob's shape itself so that
// each layer it emits fits its input (a graph the reference runtime then refuses is counted as a
// generator miss, never as an optimizer failure).
//
// It draws from the layer types the optimizer's passes read or rewrite (src/passes/registry.cpp):
// Convolution / ConvolutionDepthWise / Deconvolution / DeconvolutionDepthWise / InnerProduct with
// and without fused activations, BatchNorm, Scale, BinaryOp (scalar, MemoryData constants of every
// broadcasting shape ncnn accepts, two tensors), the activations the fuse_*_activation passes take
// (and PReLU), Split (explicit, and implicit: a blob read twice), Reshape, Flatten, Pooling (global,
// 1x1, 2x2), Reduction (mean over h,w), Padding, Dropout, Noop, Eltwise, Concat of parallel
// convolutions (fuse_split_convolution_concat) and Slice -> convolutions -> Concat
// (fuse_slice_convolution_concat); intermediate blobs are sometimes kept (OptimizeOptions::keep).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnfold {
namespace fuzz {

struct GeneratedGraph {
    std::string param;              // .param text (weights come from randomize_weights)
    std::vector<std::string> keep;  // blob names the optimizer must keep (compared too)
    int layers = 0;
};

// Deterministic: the same seed gives the same graph on every platform.
GeneratedGraph generate_graph(uint32_t seed, int max_layers = 10);

}  // namespace fuzz
}  // namespace nnfold
