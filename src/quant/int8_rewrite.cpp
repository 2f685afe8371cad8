#include "quant/int8_rewrite.h"

#include <memory>

#include "core/strings.h"
#include "kernels/int8.h"
#include "layers/convolution.h"
#include "layers/convolutiondepthwise.h"
#include "layers/innerproduct.h"

namespace nnfold {
namespace quant {

bool quantizable_type(const std::string& type) {
    return type == "Convolution" || type == "ConvolutionDepthWise" || type == "InnerProduct";
}

int int8_scale_term(const LayerNode& node) {
    return node.params.get_int(8, 0);
}

static int bias_term(const LayerNode& node) {
    // InnerProduct keeps bias_term at id 1, the convolutions at id 5
    return node.type == "InnerProduct" ? node.params.get_int(1, 0) : node.params.get_int(5, 0);
}

float stored_bottom_scale(const LayerNode& node) {
    // weight_data, [bias_data], weight_data_int8_scales, bottom_blob_int8_scales, ...
    size_t k = 1 + (bias_term(node) ? 1 : 0) + 1;
    if (k >= node.weights.size() || node.weights[k].data.empty())
        return 0.f;
    return node.weights[k].data[0];
}

int first_int8_layer(const Graph& g) {
    for (size_t i = 0; i < g.layers.size(); i++) {
        const LayerNode& l = g.layers[i];
        if (l.erased)
            continue;
        if (l.type == "Quantize" || l.type == "Dequantize" || l.type == "Requantize")
            return (int)i;
        if (quantizable_type(l.type) && int8_scale_term(l) != 0)
            return (int)i;
        for (auto& w : l.weights)
            if (w.storage == WeightStorage::Int8)
                return (int)i;
    }
    return -1;
}

Status find_candidates(const Graph& g, std::vector<Int8Candidate>& out) {
    out.clear();
    for (size_t i = 0; i < g.layers.size(); i++) {
        const LayerNode& node = g.layers[i];
        if (node.erased || !quantizable_type(node.type))
            continue;
        Int8Candidate c;
        c.layer = (int)i;
        c.type = node.type;
        // the layer class reads the params with ncnn's defaults (kernel_h = kernel_w, ...)
        std::unique_ptr<Layer> l = create_layer(node.type, false);
        Status st = l->load_param(node.params);
        if (!st)
            return st.with_context(layer_desc(node.name, node.type));
        auto* wl = static_cast<WeightedLayer*>(l.get());
        if (node.type == "ConvolutionDepthWise") {
            auto* dw = static_cast<ConvolutionDepthWise*>(l.get());
            c.rows = dw->group;
        } else {
            c.rows = wl->num_output;
        }
        c.row_size = c.rows > 0 ? wl->weight_data_size / c.rows : 0;
        if (node.type == "Convolution") {
            auto* cv = static_cast<Convolution*>(l.get());
            // ncnn2table: "int8 winograd F43 needs weight data to use 6bit quantization"
            if (cv->kernel_w == 3 && cv->kernel_h == 3 && cv->dilation_w == 1 && cv->dilation_h == 1 &&
                cv->stride_w == 1 && cv->stride_h == 1)
                c.qmax = 31;
        }
        if (wl->dynamic_weight)
            c.skip = "its weights come from an input blob (dynamic_weight=1)";
        else if (node.bottoms.size() != 1 || node.tops.size() != 1)
            c.skip = "it does not have exactly one input and one output";
        else if (node.weights.empty() || node.weights[0].data.size() != (size_t)wl->weight_data_size ||
                 c.rows <= 0 || c.row_size <= 0)
            c.skip = "its fp32 weights are not loaded";
        out.push_back(c);
    }
    return Status::ok();
}

Status quantize_layer(LayerNode& node, const Int8Candidate& c, const std::vector<float>& weight_scales,
                      float bottom_scale) {
    if (weight_scales.size() != (size_t)c.rows)
        return internal_error(layer_desc(node.name, node.type) + ": " + std::to_string(weight_scales.size()) +
                              " weight scales for " + std::to_string(c.rows) + " rows");
    const std::vector<float>& w = node.weights[0].data;
    WeightArray q;
    q.storage = WeightStorage::Int8;
    q.tag = kTagInt8;
    q.i8.resize(w.size());
    // ncnn's quantize_to_int8 (a Quantize layer with one scale per row): float2int8(w * scale)
    for (int r = 0; r < c.rows; r++) {
        const float s = weight_scales[(size_t)r];
        const size_t base = (size_t)r * c.row_size;
        for (int k = 0; k < c.row_size; k++)
            q.i8[base + k] = kernels::float2int8(w[base + k] * s);
    }
    node.weights[0] = std::move(q);
    node.weights.push_back(WeightArray::untagged(weight_scales));
    node.weights.push_back(WeightArray::untagged({bottom_scale}));
    node.params.set_int(8, node.type == "ConvolutionDepthWise" ? 1 : 2);
    return Status::ok();
}

static bool is_conv(const LayerNode& l) {
    return !l.erased && (l.type == "Convolution" || l.type == "ConvolutionDepthWise");
}
static bool is_int8_conv(const LayerNode& l) {
    return is_conv(l) && int8_scale_term(l) != 0;
}

// The consumer of `blob` as ncnn2int8 finds it: the first later Convolution/ConvolutionDepthWise
// with one input reading it; -1 when there is none, or when the blob has other consumers too.
static int conv_consumer(const Graph& g, int blob, size_t after) {
    if (g.consumer_count(blob) != 1)
        return -1;
    for (size_t j = after + 1; j < g.layers.size(); j++) {
        const LayerNode& l = g.layers[j];
        if (is_conv(l) && l.bottoms.size() == 1 && l.bottoms[0] == blob)
            return (int)j;
    }
    return -1;
}

static void fuse_into(LayerNode& producer, const LayerNode& consumer) {
    producer.params.set_int(8, int8_scale_term(producer) + 100);
    producer.weights.push_back(WeightArray::untagged({stored_bottom_scale(consumer)}));
}

std::vector<std::string> fuse_requantize(Graph& g) {
    std::vector<std::string> fused;
    const size_t n = g.layers.size();
    // Convolution/ConvolutionDepthWise - Convolution/ConvolutionDepthWise
    for (size_t i = 0; i < n; i++) {
        LayerNode& a = g.layers[i];
        if (!is_int8_conv(a) || int8_scale_term(a) > 100 || a.tops.size() != 1)
            continue;
        int j = conv_consumer(g, a.tops[0], i);
        if (j < 0 || !is_int8_conv(g.layers[(size_t)j]))
            continue;
        fuse_into(a, g.layers[(size_t)j]);
        fused.push_back(a.name);
    }
    // Convolution/ConvolutionDepthWise - Split - Convolution/ConvolutionDepthWise on every branch
    for (size_t i = 0; i < n; i++) {
        LayerNode& a = g.layers[i];
        if (!is_int8_conv(a) || int8_scale_term(a) > 100 || a.tops.size() != 1)
            continue;
        const int top = a.tops[0];
        if (g.consumer_count(top) != 1)
            continue;
        int s = -1;
        for (size_t j = i + 1; j < n; j++) {
            const LayerNode& l = g.layers[j];
            if (!l.erased && l.type == "Split" && l.bottoms.size() == 1 && l.bottoms[0] == top) {
                s = (int)j;
                break;
            }
        }
        if (s < 0 || g.layers[(size_t)s].tops.empty())
            continue;
        const LayerNode& split = g.layers[(size_t)s];
        bool all_int8_conv = true;
        int first = -1;
        for (size_t p = 0; p < split.tops.size(); p++) {
            int k = conv_consumer(g, split.tops[p], (size_t)s);
            if (k < 0 || !is_int8_conv(g.layers[(size_t)k])) {
                all_int8_conv = false;
                break;
            }
            if (p == 0)
                first = k;
            // ncnn hands every branch codes made with the first branch's bottom scale; where the
            // branches' scales differ (EQ searches them separately) that would be wrong, so no fusion
            else if (stored_bottom_scale(g.layers[(size_t)k]) != stored_bottom_scale(g.layers[(size_t)first])) {
                all_int8_conv = false;
                break;
            }
        }
        if (!all_int8_conv)
            continue;
        fuse_into(a, g.layers[(size_t)first]);
        fused.push_back(a.name);
    }
    return fused;
}

}  // namespace quant
}  // namespace nnfold
