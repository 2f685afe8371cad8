// The pipeline, written once: ncnnoptimize's pass order (tools/ncnnoptimize.cpp main()), with the
// passes nnfold adds placed beside their ncnn siblings. A pattern shared by several layer types is
// one pass class registered under each of ncnnoptimize's names with its list of types.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace nnfold {

// Every pass, in pipeline order.
const std::vector<std::unique_ptr<Pass>>& pipeline();
// The pass registered under `name`, or nullptr.
const Pass* find_pass(const std::string& name);

// Factories, one per pass family (defined in the family's file).
// fuse_batchnorm.cpp
std::unique_ptr<Pass> make_fuse_batchnorm_scale();
std::unique_ptr<Pass> make_fuse_host_batchnorm(const std::string& name, std::vector<std::string> types);
std::unique_ptr<Pass> make_fuse_gemm_batchnorm();
// fuse_host_binaryop.cpp: Mul (mul_family) or Add/Sub (!mul_family) by a constant
std::unique_ptr<Pass> make_fuse_host_binaryop(const std::string& name, std::vector<std::string> types, bool mul_family);
// fuse_activation.cpp
std::unique_ptr<Pass> make_fuse_host_activation(const std::string& name, std::vector<std::string> types,
                                                std::vector<std::string> activations);
// fuse_innerproduct_dropout.cpp
std::unique_ptr<Pass> make_fuse_innerproduct_dropout();
// fuse_memorydata_binaryop.cpp
std::unique_ptr<Pass> make_fuse_memorydata_binaryop();
// fuse_binaryop_eltwise.cpp
std::unique_ptr<Pass> make_fuse_binaryop_eltwise();
// eliminate_identity.cpp
std::unique_ptr<Pass> make_eliminate_dropout();
std::unique_ptr<Pass> make_eliminate_pooling1x1();
std::unique_ptr<Pass> make_eliminate_noop();
std::unique_ptr<Pass> make_eliminate_split();
std::unique_ptr<Pass> make_eliminate_reshape_after(const std::string& name, const std::string& reshape_type,
                                                   const std::string& producer_kind);
// eliminate_reshape_before_binaryop.cpp
std::unique_ptr<Pass> make_eliminate_reshape_before_binaryop();
// eliminate_orphaned_memorydata.cpp
std::unique_ptr<Pass> make_eliminate_orphaned_memorydata();
// permute_sinking.cpp
std::unique_ptr<Pass> make_fuse_permute_reshape_chain();
std::unique_ptr<Pass> make_sink_permute();
// fuse_reshaped_affine.cpp
std::unique_ptr<Pass> make_fuse_host_reshape_batchnorm();
std::unique_ptr<Pass> make_fuse_host_reshape_binaryop();
// fuse_affine_chain.cpp
std::unique_ptr<Pass> make_fuse_affine_binaryop_chain();
// replace_layers.cpp
std::unique_ptr<Pass> make_replace_reduction_with_global_pooling();
std::unique_ptr<Pass> make_replace_prelu_with_leaky_relu();
std::unique_ptr<Pass> make_replace_convolution_with_innerproduct(const std::string& name, const std::string& after);
// fuse_convolution_concat.cpp (the seed fusions of parallel convolutions)
std::unique_ptr<Pass> make_fuse_slice_convolution_concat();
std::unique_ptr<Pass> make_fuse_split_convolution_concat();
// fuse_padding_convolution.cpp
std::unique_ptr<Pass> make_fuse_padding_convolution();

}  // namespace nnfold
