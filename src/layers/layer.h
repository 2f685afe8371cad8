// The runtime face of an ncnn layer type. One subclass per ncnn type, named exactly as the type
// (`ConvolutionDepthWise`), in src/layers/<lowercased>.cpp. The generic class is the plain scalar
// reference with ncnn's semantics; optimized versions (src/layers/wasm/, `Convolution_fast`)
// subclass it, repack weights in create_pipeline and override forward only. They are compiled in
// every build and call src/kernels/, whose SIMD-128 or scalar-twin variant is chosen at compile
// time (NNFOLD_SIMD).
//
// Life cycle, driven by the reader and the runtime:
//   load_param(pd)         parse ncnn param ids/defaults, reject bad values (no shapes known yet)
//   weight_specs(specs)    the arrays this layer reads from .bin, in order (depends on params)
//   load_model(weights)    take the decoded arrays (one per spec)
//   infer_shape(in, out)   output shapes from input shapes, with the same checks forward makes
//   create_pipeline(opt)   one-time preparation (repacking) once shapes may be known
//   forward(...)           compute
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/mat.h"
#include "core/status.h"
#include "model/param_dict.h"
#include "model/weights.h"

namespace nnfold {

// A residual Add, and the activation after it, that the runtime fuses into a layer's output store
// (runtime/fuse_store.cpp; only into a layer whose fuses_residual() is true): after its own bias and
// activation the layer writes top = act(top + data), act being one of the kernels' activation
// types (layers/fused_activation.h numbering, 0 = none).
struct FusedResidual {
    // the other addend: a dense planar (elempack 1) blob of top's shape, or of its first `channels`
    // channels (the rest of top adds +0.f: a shortcut padded with zero channels, as BlazeFace's are)
    const float* data = nullptr;
    int channels = -1;  // < 0: all of top's channels
    int act_type = 0;
    float act_p0 = 0.f, act_p1 = 0.f;
};

struct Option {
    Allocator* blob_allocator = nullptr;       // tops
    Allocator* workspace_allocator = nullptr;  // scratch buffers
    // Checked between layers (and inside long layers where cheap); set from another thread/worker.
    const volatile bool* cancel = nullptr;
    // Set by the runtime for one forward of a layer that fuses_residual(); null otherwise.
    const FusedResidual* residual = nullptr;
};

// How random weights are drawn for an array (docs/numbers.md).
enum class WeightRole : uint8_t {
    Weight,    // uniform in +-sqrt(3 / fan_in)
    Bias,      // small uniform around 0
    Gamma,     // scale-like: near 1 (BatchNorm slope, LayerNorm gamma, Scale)
    Mean,      // near 0
    Variance,  // in [0.5, 1.5]
    Beta,      // near 0 (BatchNorm bias, LayerNorm beta)
    Slope,     // PReLU slopes in [0, 0.25]
    Data,      // MemoryData constants, uniform in [-1, 1]
};

struct WeightSpec {
    std::string name;      // ncnn's member name, e.g. "weight_data", "bias_data"
    uint64_t count = 0;    // elements
    bool tagged = false;   // ncnn ModelBin load type 0 (tagged) vs 1 (raw fp32)
    WeightRole role = WeightRole::Weight;
    int64_t fan_in = 1;    // for WeightRole::Weight
};

enum class ParamType : uint8_t { Int, Float, IntArray, FloatArray, String };

// One documented param id of a layer type, with ncnn's default. Used by the canonical writer
// (defaults omitted, fixed order) and by value validation (a float token where an int belongs).
struct ParamSpec {
    int id;
    const char* name;
    ParamType type;
    int32_t default_bits;   // raw bits of the default (float params: bits of the float)
    int default_from = -1;  // default is the value of another id (kernel_h defaults to kernel_w)
};

// Helpers to write default_bits in param tables.
constexpr int32_t pint(int v) { return v; }
int32_t pfloat(float v);

class Layer {
public:
    virtual ~Layer() = default;

    std::string type;
    std::string name;
    bool one_blob_only = false;
    bool support_inplace = false;

    virtual Status load_param(const ParamDict& pd);
    virtual Status weight_specs(std::vector<WeightSpec>& specs) const;
    virtual Status load_model(const std::vector<WeightArray>& weights);
    virtual Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const;
    virtual Status create_pipeline(const Option& opt);

    // Multi-blob form. The default dispatches to the one-blob forms for one_blob_only layers.
    virtual Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const;
    virtual Status forward_inplace(std::vector<Mat>& blobs, const Option& opt) const;
    // One-blob forms.
    virtual Status forward(const Mat& bottom, Mat& top, const Option& opt) const;
    virtual Status forward_inplace(Mat& blob, const Option& opt) const;

    // Number of bottoms/tops this layer accepts; -1 = any. Checked by the reader and the runtime.
    virtual int expected_bottoms() const { return one_blob_only ? 1 : -1; }
    virtual int expected_tops() const { return one_blob_only ? 1 : -1; }
    // True when this layer accepts int8 blobs (Mat::int8; layers/int8_layers.h): the int8 layers
    // and Split. The runtime refuses an int8 blob reaching any other layer.
    virtual bool takes_int8() const { return false; }
    // True when forward (the one-blob form) applies Option::residual to its output: the runtime then
    // fuses a following residual Add into it (runtime/fuse_store.cpp). Only for an fp32 planar output.
    virtual bool fuses_residual() const { return false; }

protected:
    // For one-blob layers whose output has the input's shape.
    Status same_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const;
};

// The shapes of a multi-blob forward's inputs, for the shape checks it shares with infer_shape.
inline std::vector<Shape> shapes_of(const std::vector<Mat>& mats) {
    std::vector<Shape> shapes;
    shapes.reserve(mats.size());
    for (const Mat& m : mats)
        shapes.push_back(m.shape());
    return shapes;
}

struct LayerTypeInfo {
    const char* type;
    Layer* (*create)();            // generic (reference) implementation
    Layer* (*create_optimized)();  // optimized implementation (src/layers/wasm/) or nullptr
    const std::vector<ParamSpec>& (*params)();
    bool extension;            // an nnfold extension layer stock ncnn cannot load (docs/extension-layers.md)
};

// All registered layer types, in src/layers/layer_list.h order.
const std::vector<LayerTypeInfo>& layer_types();
const LayerTypeInfo* find_layer_type(const std::string& type);
// Creates a layer (nullptr for unknown types). `optimized` picks the optimized class when the type
// has one (in every build; whether its kernels are SIMD is build_has_simd()).
std::unique_ptr<Layer> create_layer(const std::string& type, bool optimized = true);
// The ParamSpec for an id of a type, or nullptr.
const ParamSpec* find_param_spec(const std::string& type, int id);
// True when this build's kernels are SIMD-128 (NNFOLD_SIMD); otherwise the optimized layers run
// the scalar twins of the same kernels.
bool build_has_simd();

// True when T declares `static const ParamTable<T>& param_table()` (NF_PARAM_TABLE).
template <class T, class = void>
struct has_param_table : std::false_type {};
template <class T>
struct has_param_table<T, std::void_t<decltype(T::param_table())>> : std::true_type {};

// The ParamSpecs of T's param table; none for a type without params.
template <class T>
const std::vector<ParamSpec>& declared_param_specs() {
    if constexpr (has_param_table<T>::value) {
        return T::param_table().specs();
    } else {
        static const std::vector<ParamSpec> none;
        return none;
    }
}

}  // namespace nnfold

// Used once per layer .cpp: defines the factory and the parameter table accessor the registry
// uses: the type's param_table() (NF_PARAM_TABLE, layers/param_table.h), the one place a type
// declares its params; none for a type without params.
#define NF_DEFINE_LAYER(Type)                                                    \
    ::nnfold::Layer* nf_create_##Type() { return new ::nnfold::Type(); }         \
    const std::vector<::nnfold::ParamSpec>& nf_params_##Type() {                 \
        return ::nnfold::declared_param_specs<::nnfold::Type>();                 \
    }
// Used once per optimized layer .cpp (src/layers/wasm/, listed in optimized_layer_list.h).
#define NF_DEFINE_OPTIMIZED_LAYER(Type, Impl) \
    ::nnfold::Layer* nf_create_optimized_##Type() { return new ::nnfold::Impl(); }
