// ncnn2int8's graph rewrite (tools/quantize/ncnn2int8.cpp) on nnfold's Graph: which layers can
// become int8, how their weights and scales are stored, and the requantize fusion.
//
// Stored as ncnn2int8 writes them (tools/modelwriter.h, the Convolution / ConvolutionDepthWise /
// InnerProduct cases; read back by ncnn's src/layer/convolution.cpp etc. load_model):
//   weight_data: int8 codes float2int8(w * weight_scale[row]) with the int8 tag 0x000D4B38;
//   bias_data: unchanged;
//   then, raw fp32: weight_data_int8_scales [rows], bottom_blob_int8_scales [1], and with
//   int8_scale_term > 100 top_blob_int8_scales [1].
//   int8_scale_term: Convolution 2, InnerProduct 2 (scales per output channel), ConvolutionDepthWise
//   1 (scales per group); + 100 when fuse_requantize hands the output on as int8.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "model/graph.h"

namespace nnfold {
namespace quant {

struct Int8Candidate {
    int layer = -1;          // index in the graph
    std::string type;        // Convolution | ConvolutionDepthWise | InnerProduct
    int rows = 0;            // weight scales: num_output, or group for ConvolutionDepthWise
    int row_size = 0;        // weights per scale
    int qmax = 127;          // 31 for ncnn2table's 6-bit case (3x3 stride 1 dilation 1 Convolution)
    std::string skip;        // why the layer cannot be quantized ("" when it can)
};

// True for the three types ncnn2int8 quantizes with a calibration table.
bool quantizable_type(const std::string& type);

// Every live Convolution / ConvolutionDepthWise / InnerProduct of `g`, in layer order, with its
// weight-row layout, or the reason it cannot be quantized (dynamic weights, no weights, several
// inputs). invalid_model when a layer's params do not load.
Status find_candidates(const Graph& g, std::vector<Int8Candidate>& out);

// The first layer that is already quantized (int8_scale_term != 0, or a Quantize / Dequantize /
// Requantize layer), or -1.
int first_int8_layer(const Graph& g);

// Rewrites one fp32 layer into its int8 form (as ncnn2int8's quantize_convolution etc.): int8
// codes, int8_scale_term, the weight and bottom scales appended.
Status quantize_layer(LayerNode& node, const Int8Candidate& c, const std::vector<float>& weight_scales,
                      float bottom_scale);

// ncnn2int8 fuse_requantize: an int8 Convolution/ConvolutionDepthWise whose output goes straight
// to an int8 Convolution/ConvolutionDepthWise (or through a Split whose every output does) gets
// int8_scale_term + 100 and that consumer's bottom scale as its top scale (for a Split, the consumer
// of its first output, as ncnn; not when the branches' bottom scales differ). Blobs with more than one consumer are left alone (ncnn graphs
// have a Split there). Returns the names of the fused layers.
std::vector<std::string> fuse_requantize(Graph& g);

// int8_scale_term of a layer node (param 8), 0 when absent.
int int8_scale_term(const LayerNode& node);
// The bottom scale stored in an int8 layer's weights.
float stored_bottom_scale(const LayerNode& node);

}  // namespace quant
}  // namespace nnfold
