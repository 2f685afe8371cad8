#include "passes/registry.h"

namespace nnfold {

namespace {

std::vector<std::unique_ptr<Pass>> build_pipeline() {
    // ncnn's fused activations (ncnn src/layer/fused_activation.h: 1 ReLU, 2 leaky ReLU, 3 Clip,
    // 4 Sigmoid, 5 Mish, 6 HardSwish) are computed by the same code for every host type, so every
    // host takes all five layer types (ncnnoptimize lists fewer for the deconvolutions).
    const std::vector<std::string> acts = {"ReLU", "Clip", "Sigmoid", "Mish", "HardSwish"};
    // The hosts of the per-channel and activation fusions: the name in ncnnoptimize's pass names
    // and the layer type.
    struct Host {
        std::string name, type;
    };
    const Host hosts[] = {{"convolution", "Convolution"},
                          {"convolutiondepthwise", "ConvolutionDepthWise"},
                          {"deconvolution", "Deconvolution"},
                          {"deconvolutiondepthwise", "DeconvolutionDepthWise"},
                          {"innerproduct", "InnerProduct"}};
    std::vector<std::unique_ptr<Pass>> p;
    // nnfold: NHWC transposes first: Reshape/Permute chains become one Permute (or cancel) and
    // Permutes move below elementwise math, so that per-channel math meets its host in this round
    p.push_back(make_fuse_permute_reshape_chain());
    p.push_back(make_sink_permute());
    // nnfold: parallel convolutions first, so that a BatchNorm after them fuses in the same round;
    // explicit Padding into the convolution after it
    p.push_back(make_fuse_slice_convolution_concat());
    p.push_back(make_fuse_split_convolution_concat());
    p.push_back(make_fuse_padding_convolution());
    // ncnnoptimize's order from here on; nnfold's additions next to their siblings
    p.push_back(make_fuse_batchnorm_scale());
    // per host, in ncnnoptimize's host order: fuse_<host>_batchnorm, _mul, _add (ncnnoptimize has no
    // fuse_deconvolutiondepthwise_mul/_add nor fuse_innerproduct_mul: nnfold's)
    for (const auto& host : hosts) {
        p.push_back(make_fuse_host_batchnorm("fuse_" + host.name + "_batchnorm", {host.type}));
        p.push_back(make_fuse_host_binaryop("fuse_" + host.name + "_mul", {host.type}, true));
        p.push_back(make_fuse_host_binaryop("fuse_" + host.name + "_add", {host.type}, false));
    }
    p.push_back(make_fuse_gemm_batchnorm());  // nnfold
    p.push_back(make_fuse_host_reshape_batchnorm());  // nnfold
    p.push_back(make_fuse_host_reshape_binaryop());  // nnfold
    p.push_back(make_fuse_innerproduct_dropout());
    p.push_back(make_replace_reduction_with_global_pooling());
    p.push_back(make_replace_prelu_with_leaky_relu());
    for (const auto& host : hosts)
        p.push_back(make_fuse_host_activation("fuse_" + host.name + "_activation", {host.type}, acts));
    p.push_back(make_fuse_memorydata_binaryop());
    p.push_back(make_fuse_binaryop_eltwise());
    p.push_back(make_eliminate_dropout());
    p.push_back(make_eliminate_pooling1x1());
    p.push_back(make_eliminate_noop());
    p.push_back(make_eliminate_split());
    p.push_back(make_eliminate_reshape_after("eliminate_flatten_after_global_pooling", "Flatten", "global_pooling"));
    p.push_back(make_eliminate_reshape_after("eliminate_reshape_after_global_pooling", "Reshape", "global_pooling"));
    p.push_back(make_eliminate_reshape_before_binaryop());
    p.push_back(make_replace_convolution_with_innerproduct("replace_convolution_with_innerproduct_after_global_pooling",
                                                           "global_pooling"));
    p.push_back(make_replace_convolution_with_innerproduct("replace_convolution_with_innerproduct_after_innerproduct",
                                                           "InnerProduct"));
    p.push_back(make_eliminate_reshape_after("eliminate_flatten_after_innerproduct", "Flatten", "InnerProduct"));
    // nnfold: what per-channel math is left once the hosts took theirs (after the identity layers
    // went, so a host the chain follows has had its chance) becomes one Scale
    p.push_back(make_fuse_affine_binaryop_chain());
    p.push_back(make_eliminate_orphaned_memorydata());
    return p;
}

}  // namespace

const std::vector<std::unique_ptr<Pass>>& pipeline() {
    static const std::vector<std::unique_ptr<Pass>> p = build_pipeline();
    return p;
}

const Pass* find_pass(const std::string& name) {
    for (auto& p : pipeline())
        if (p->name() == name)
            return p.get();
    return nullptr;
}

}  // namespace nnfold
