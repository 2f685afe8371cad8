// Helpers the passes share: blob and consumer checks, the facts about the layers that can absorb a
// per-channel affine map (the Convolution family and InnerProduct), ncnn's BinaryOp broadcasting
// for a constant operand, and the two ways to remove an identity layer without renaming a model's
// inputs or outputs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/strings.h"
#include "passes/pass.h"

namespace nnfold {

// "'conv1'" with sanitize applied.
std::string lq(const Graph& g, int layer);
// "'blob'" with sanitize applied.
std::string bq(const Graph& g, int blob);
// Shortest float text that reads back exactly ("0.5", "1e-05"), for log details.
std::string fmt(double v);

// The one live layer consuming `blob`, or -1 when it has none or several.
int sole_consumer(const Graph& g, int blob);

// Blocked unless `blob` (the output of `owner`) can disappear: exactly one consumer, not a model
// output, not kept. `ok()` otherwise.
MatchResult check_intermediate(const PassContext& ctx, int owner, int blob);

// The first live consumer of `layer`'s output that `accept` takes, whatever the consumer count
// (so a refusal can name the pair), or -1, also when the layer does not have one output.
int next_consumer(const Graph& g, int layer, const std::function<bool(const LayerNode&)>& accept);
int next_of_type(const Graph& g, int layer, const std::string& type);

// Blocked unless `layer` has one input and one output.
MatchResult check_one_in_one_out(const Graph& g, int layer);

// The start of every "layer, then its consumer `next`" pattern whose middle blob disappears:
// names both layers as the candidate, then check_intermediate on the layer's output.
MatchResult match_pair(const PassContext& ctx, int layer, int next, Candidate& c);
// next_of_type, then match_pair with that consumer (whose index goes to `next`); none() when
// `layer`'s output does not go to a layer of type `type`.
MatchResult match_pair_of_type(const PassContext& ctx, int layer, const std::string& type, Candidate& c, int& next);

// Blocked when a rewrite that stops reading a MemoryData's constant (directly, or through output
// `split_top` of Split `split`; -1 when none) would leave that MemoryData's output kept (--keep)
// but read by nothing: the MemoryData must then stay and its output would become a new model
// output, changing the model's outputs (found by the differential fuzzer, tests/fuzz/).
MatchResult check_kept_constant_keeps_a_reader(const PassContext& ctx, int memorydata, int split);

// Producer layer `p` absorbs its only consumer `c`: p's output becomes c's output (its name is
// kept), c is erased. The blob between them disappears.
void absorb_consumer(PassContext& ctx, int p, int c);

// ---- layers that fold a per-channel affine map y' = scale[o] * y + shift[o] into their weights
// The Convolution family (Convolution, ConvolutionDepthWise, Deconvolution, DeconvolutionDepthWise)
// and InnerProduct: weights are stored output channel by output channel (ncnn layouts
// [num_output][...], grouped ones [group][num_output/group][...], both contiguous per output
// channel), then an optional bias of num_output values.
struct AffineHost {
    bool is_host = false;
    int num_output = 0;
    int bias_term = 0;
    int bias_param = 0;         // param id of bias_term (5 for the Convolution family, 1 for InnerProduct)
    int weight_data_size = 0;
    int activation_type = 0;
    int int8_scale_term = 0;
    int dynamic_weight = 0;
    bool conv_family = false;   // else InnerProduct
    bool kernel_1x1 = false;    // Convolution / ConvolutionDepthWise with a 1x1 kernel
};
AffineHost affine_host(const LayerNode& l);
bool is_affine_host_type(const std::string& type);

// Blocked when the weights of `l` cannot take a per-channel map exactly: a fused activation
// (folding a linear op after it would move it before the activation), int8 weights, weights from a
// blob, or weights that are not decoded fp32.
MatchResult check_foldable_weights(const PassContext& ctx, int layer);

// Applies y' = scale[o] * y + shift[o] to host `l` (scale and shift have num_output entries or
// are empty for 1 / 0). A missing bias is created when the shift is not zero. Fails (leaving `l`
// unchanged) when a result is not finite.
Status fold_affine(LayerNode& l, const std::vector<double>& scale, const std::vector<double>& shift);

// The dims a host's output can have when its shape is unknown: the Convolution family outputs 3D,
// except Convolution/ConvolutionDepthWise with a 1x1 kernel on a 1D input (ncnn's InnerProduct
// path: 1D [num_output]); InnerProduct outputs 1D, or 2D [h, num_output] on a 2D input (row-wise).
// Returns the known dims, or 0 when either could happen (callers then accept only operands that
// are per-channel for every possible output).
int host_output_dims(const PassContext& ctx, int layer);

// ---- a constant operand of a BinaryOp against a host output (ncnn's broadcasting,
// docs/developer-guide/binaryop-broadcasting.md): a lower-rank operand is aligned with the
// OUTER axes of the other ([c] against [c,h,w] is per channel), axes of extent 1 broadcast.
enum class Broadcast { None, Scalar, PerChannel };
// `out` is the host's output shape when known; `out_dims` its rank (host_output_dims: 1, 2, 3, or
// 0 when it may be 1 or 3 for the Convolution family / 1 or 2 for InnerProduct: `inner_product`
// tells which). The host's channels are its num_output: the c axis of a 3D output, w of a 1D or of
// a row-wise 2D [h, num_output] one. ncnn expands a 1D [n] operand to [1,1,n] against a 3D blob
// whose c is n (else along w), and to [1,n] against a 2D blob whose h is n (else along w).
// Returns None with `why` when the operand would not be the same number for every element of a
// channel, or would enlarge the output.
Broadcast classify_constant_operand(const Shape& out, int out_dims, bool inner_product, int channels, const Shape& operand,
                                    std::string& why);

// ---- identity layers (Dropout with scale 1, Noop, Pooling 1x1, Flatten/Reshape that keep the
// shape, a Split with one output): out == in element for element.
// Removing one keeps every model input and output name: consumers of `out` read `in` instead when
// `out` may disappear; when `out` is a model output or kept, `in`'s producer writes `out` directly
// instead (allowed when `in` has no other consumer and is not an input, an output or kept).
MatchResult check_remove_identity(const PassContext& ctx, int layer, int in_blob, int out_blob);
void remove_identity(PassContext& ctx, int layer, int in_blob, int out_blob);

// MemoryData's shape from its params (0=w 1=h 11=d 2=c; the rule is memorydata_shape's).
Shape memorydata_shape(const LayerNode& l);

// True when the graph gives `blob` a producer that is an Input layer.
bool is_input_blob(const Graph& g, int blob);

}  // namespace nnfold
