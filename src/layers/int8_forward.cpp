// The int8 paths of Convolution, ConvolutionDepthWise and InnerProduct (layers/int8_layers.h):
// ncnn src/layer/convolution.cpp, convolutiondepthwise.cpp and innerproduct.cpp, load_model and
// forward_int8. Each quantizes its input (unless it is already int8), pads the codes, sums in
// int32 (kernels/int8.h) and dequantizes or requantizes per output channel.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "kernels/int8.h"
#include "kernels/int8_dw.h"
#include "kernels/int8_quant.h"
#include "kernels/int8_wino43.h"
#include "layers/convolution.h"
#include "layers/convolutiondepthwise.h"
#include "layers/innerproduct.h"

namespace nnfold {

namespace {

Status cancelled(const Option& opt) {
    if (opt.cancel && *opt.cancel)
        return Status(ErrorCode::Cancelled, "cancelled");
    return Status::ok();
}

// `bytes` of scratch from the workspace allocator, which checks them against the MemoryLimits
// before allocating (resource_limit naming the byte count, as the fp32 paths' workspaces do).
Status int8_workspace(size_t bytes, const Option& opt, Mat& m) {
    const size_t floats = bytes / 4 + 1;
    if (floats > (size_t)INT_MAX)
        return resource_limit("an int8 workspace of " + std::to_string(bytes) + " bytes is too large");
    return m.create(Shape::d1((int)floats), opt.workspace_allocator);
}

// The kernels' store (kernels/int8.h Int8Out) for output channels [p0, ...) of `top`.
kernels::Int8Out int8_out(const Int8Weights& q, const std::vector<float>& bias, const FusedActivation& act, int p0,
                          Mat& top, size_t ld) {
    kernels::Int8Out o;
    o.scale_in = q.scale_in.data() + p0;
    o.bias = bias.empty() ? nullptr : bias.data() + p0;
    o.fused_bias = q.fused_bias;
    o.act = kernels::make_act(act.type, act.p0, act.p1);
    o.top_scale = q.top_scale;
    o.ld = ld;
    if (q.requantize)
        o.q = top.int8_data() + (size_t)p0 * ld;
    else
        o.f = top.data + (size_t)p0 * ld;
    return o;
}

// Input planes as int8 codes (1 byte per padded value) with the border added, in a workspace with
// `slack` readable bytes after the planes (the depthwise kernel's whole-vector loads). ncnn
// quantizes first and pads the int8 blob (make_padding on elemsize 1: copy_make_border with
// pad_value converted to signed char), so the border holds (int8)pad_value, not a quantized pad_value.
// Threads: channels (each code is computed alone, so any split gives the same bytes).
Status padded_codes_ws(const Mat& bottom, int channels, int w, int h, const ConvGeometry& g, float pad_value,
                       float bottom_scale, size_t slack, const Option& opt, Mat& ws) {
    const size_t pplane = (size_t)g.padded_w * g.padded_h, plane = (size_t)w * h;
    NF_RETURN_IF_ERROR(int8_workspace(pplane * channels + slack, opt, ws));
    int8_t* out = reinterpret_cast<int8_t*>(ws.data);
    std::memset(out + pplane * channels, 0, slack);
    const int8_t* codes = bottom.int8 ? bottom.int8_data() : nullptr;
    const bool pads = g.pads.any();
    const int8_t pad = (int8_t)(int)pad_value;
    // a float input costs a multiply and a rounding per value, an int8 one a copy
    parallel_for(channels, parallel_grain((int64_t)(codes ? pplane / 4 : plane * 4)), [&](int64_t q0, int64_t q1) {
        if (!pads) {
            const size_t at = (size_t)q0 * plane, n = (size_t)(q1 - q0) * plane;
            if (codes)
                std::memcpy(out + at, codes + at, n);
            else
                kernels::i8_quantize(bottom.data + at, n, bottom_scale, out + at);
            return;
        }
        for (int64_t q = q0; q < q1; q++) {
            int8_t* po = out + (size_t)q * pplane;
            if (codes) {
                kernels::Int8PadPlane pp;
                pp.w = w;
                pp.h = h;
                pp.left = g.pads.left;
                pp.top = g.pads.top;
                pp.padded_w = g.padded_w;
                pp.padded_h = g.padded_h;
                pp.pad = pad;
                kernels::i8_pad_plane(codes + (size_t)q * plane, pp, po);
                continue;
            }
            // the border rows above and below, and the left/right border of each input row
            std::memset(po, pad, (size_t)g.pads.top * g.padded_w);
            const size_t below = (size_t)(g.pads.top + h) * g.padded_w;
            std::memset(po + below, pad, pplane - below);
            for (int y = 0; y < h; y++) {
                int8_t* d = po + (size_t)(y + g.pads.top) * g.padded_w;
                std::memset(d, pad, (size_t)g.pads.left);
                std::memset(d + g.pads.left + w, pad, (size_t)(g.padded_w - g.pads.left - w));
                const size_t at = (size_t)q * plane + (size_t)y * w;
                kernels::i8_quantize(bottom.data + at, (size_t)w, bottom_scale, d + g.pads.left);
            }
        }
    });
    return Status::ok();
}

// The columns of one GEMM tile: B packed for them must stay in L2 (about 128 KB) while every
// 4-row block of A runs over it; a multiple of 8 (the kernel's column block), at least 8.
int int8_tile_columns(int K, int N) {
    const int Kp = (K + 1) / 2 * 2;
    int t = (int)((size_t)(128 * 1024) / (size_t)Kp) / 8 * 8;
    t = std::max(t, 8);
    return std::min(t, (N + 7) / 8 * 8);
}

// Convolution 3x3 stride 1 by int8 Winograd F(m x m, 3x3), m = q.wino_m: F(2x2, 3x3)
// (kernels/int8.h) or F(4x4, 3x3) (kernels/int8_wino43.h). Blocks of whole tile rows (m output
// rows each), per block the input transform, (m + 2)^2 int16 GEMMs against U, the output transform
// into rows of exact sums, and the kernels' store for each output channel's rows.
// Threads: blocks of tile rows, each part with its own scratch; the sums are exact integers and
// each store the same, so any split gives the same bits.
Status conv_int8_wino(const ConvWindowLayer& l, const Int8Weights& q, int inch, const int8_t* src,
                      const ConvGeometry& g, Mat& top, const Option& opt) {
    const int outch = l.num_output;
    const int wm = q.wino_m, P = (wm + 2) * (wm + 2);
    const bool f43 = wm == 4;
    const int tiles_w = (g.out_w + wm - 1) / wm, tiles_h = (g.out_h + wm - 1) / wm;
    const size_t out_plane = (size_t)g.out_w * g.out_h;
    // tiles per block: about 128 (the GEMMs' N), fewer when V (P positions x 2 bytes per input
    // channel and tile) would pass about 256 KB
    const size_t v_per_tile = (size_t)P * ((inch + 1) / 2 * 2) * sizeof(int16_t);
    const int target = (int)std::max<size_t>(8, std::min<size_t>(128, (256 * 1024) / v_per_tile));
    int rb = std::min(tiles_h, std::max(1, target / tiles_w));
    const int64_t block_cost = (int64_t)P * outch * inch * tiles_w * rb;
    int blocks = (tiles_h + rb - 1) / rb;
    const int wanted = parallel_part_count(tiles_h, block_cost / rb);
    if (blocks < wanted && rb > 1) {
        rb = std::max(1, (tiles_h + wanted - 1) / wanted);
        blocks = (tiles_h + rb - 1) / rb;
    }
    const int parts = std::max(1, std::min(wanted, blocks));
    const int ntmax = rb * tiles_w;
    const size_t v_count = P * kernels::i16_packed_b_count(inch, ntmax);
    const size_t m_count = (size_t)P * outch * ntmax;
    const size_t ld = (size_t)wm * rb * g.out_w;
    const size_t part_bytes = v_count * sizeof(int16_t) + (m_count + (size_t)outch * ld) * sizeof(int32_t);
    Mat ws;
    NF_RETURN_IF_ERROR(int8_workspace(part_bytes * parts, opt, ws));
    kernels::Int8WinoInput in;
    in.src = src;
    in.inch = inch;
    in.padded_w = g.padded_w;
    in.padded_h = g.padded_h;
    in.tiles_w = tiles_w;
    const size_t pa_count = kernels::i8_packed_a_count(outch, inch);
    kernels::Int8Out o = int8_out(q, l.bias_data, l.activation, 0, top, out_plane);
    // the output transform gives the exact direct sums (kernels/int8.h, int8_wino43.h), each a sum
    // of input codes in [-128, 127] times one channel's weights: |sum| <= 128 * sum |w|
    o.sum_bound = q.wino_sum_bound;
    parallel_for_slots(blocks, parallel_piece_count(blocks, parts), parts, [&](int slot, int64_t b0, int64_t b1) {
        // int32 scratch first (4-byte aligned), then the int16 V
        int32_t* m = reinterpret_cast<int32_t*>(reinterpret_cast<char*>(ws.data) + part_bytes * slot);
        int32_t* sums = m + m_count;
        int16_t* v = reinterpret_cast<int16_t*>(sums + (size_t)outch * ld);
        kernels::Int8WinoOutput out;
        out.outch = outch;
        out.out_w = g.out_w;
        out.out_h = g.out_h;
        out.tiles_w = tiles_w;
        out.sums = sums;
        out.ld = ld;
        for (int64_t b = b0; b < b1; b++) {
            if (opt.cancel && *opt.cancel)
                return;
            const int ty0 = (int)b * rb, nty = std::min(rb, tiles_h - ty0);
            const int t0 = ty0 * tiles_w, nt = nty * tiles_w;
            if (f43)
                kernels::i8_wino43_input(in, t0, nt, v);
            else
                kernels::i8_wino_input(in, t0, nt, v);
            const size_t vb = kernels::i16_packed_b_count(inch, nt);
            for (int p = 0; p < P; p++)
                kernels::i16_gemm(outch, nt, inch, q.wino_u.data() + p * pa_count, v + p * vb,
                                  m + (size_t)p * outch * nt, (size_t)nt);
            if (f43)
                kernels::i8_wino43_output(m, t0, nt, out);
            else
                kernels::i8_wino_output(m, t0, nt, out);
            const int y0 = ty0 * wm, rows = std::min(wm * nty, g.out_h - y0);
            for (int c = 0; c < outch; c++)
                kernels::i8_store(o, c, (size_t)y0 * g.out_w, sums + (size_t)c * ld, (size_t)rows * g.out_w);
        }
    });
    return Status::ok();
}

// A depthwise layer's plane geometry for i8_dwconv (source, kernel, channel and sums set per use).
kernels::Int8DwPlane dw_plane(const ConvWindowLayer& l, const ConvGeometry& g, const std::vector<int>& ofs) {
    kernels::Int8DwPlane p;
    p.ofs = ofs.data();
    p.maxk = (int)ofs.size();
    p.padded_w = g.padded_w;
    p.out_w = g.out_w;
    p.out_h = g.out_h;
    p.stride_w = l.stride_w;
    p.stride_h = l.stride_h;
    return p;
}

// Depthwise on int8 codes (an int8 layer's requantized output: mobilenet's and mobilenet_v2's
// depthwise layers): each channel's plane is padded (i8_pad_plane) into its part's scratch, then
// summed and stored by i8_dwconv while that plane is still in L1; no workspace of every padded
// plane, written in one pass and read back from L2 or memory in another (32 x 114 x 114 bytes for
// mobilenet_v2's first depthwise layer). The padded bytes are the ones padded_codes_ws makes
// (ncnn make_padding of an int8 blob: (int8)pad_value), so the sums and the output are the same.
// Threads: by channel, each part with its own scratch plane and sums; each channel's output is
// computed alone, so any split gives the same bits.
Status conv_int8_dw_codes(const ConvWindowLayer& l, const Int8Weights& q, int inch, float pad_value, const Mat& bottom,
                          const Planes& in, const ConvGeometry& g, Mat& top, const Option& opt) {
    const int maxk = l.kernel_w * l.kernel_h;
    const size_t out_plane = (size_t)g.out_w * g.out_h, plane = (size_t)in.w * in.h;
    const size_t pplane = (size_t)g.padded_w * g.padded_h;
    const std::vector<int> ofs = kernel_offsets(l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, g.padded_w);
    const bool pads = g.pads.any();
    // a part's scratch: its padded plane with the kernel's slack (zeros: read, never used), then
    // its sums (4-byte aligned)
    const size_t slack = kernels::i8_dwconv_slack(l.stride_w);
    const size_t plane_bytes = pads ? (pplane + slack + 3) / 4 * 4 : 0;
    const size_t part_bytes = plane_bytes + kernels::i8_dwconv_sum_ints(g.out_w, g.out_h) * sizeof(int32_t);
    const int parts = parallel_part_count(inch, (int64_t)out_plane * maxk);
    Mat ws, src_ws;
    NF_RETURN_IF_ERROR(int8_workspace(part_bytes * parts, opt, ws));
    const int8_t* codes = bottom.int8_data();
    if (!pads && slack > 0) {
        // no border: the planes are read in place, except that the kernel's whole-vector loads read
        // up to `slack` bytes past a plane, past the blob's end for the last channel: that one
        // plane is copied into a buffer with the slack
        NF_RETURN_IF_ERROR(int8_workspace(plane + slack, opt, src_ws));
        int8_t* last = reinterpret_cast<int8_t*>(src_ws.data);
        std::memcpy(last, codes + (size_t)(inch - 1) * plane, plane);
        std::memset(last + plane, 0, slack);
    }
    kernels::Int8PadPlane pp;
    pp.w = in.w;
    pp.h = in.h;
    pp.left = g.pads.left;
    pp.top = g.pads.top;
    pp.padded_w = g.padded_w;
    pp.padded_h = g.padded_h;
    pp.pad = (int8_t)(int)pad_value;
    const kernels::Int8Out o = int8_out(q, l.bias_data, l.activation, 0, top, out_plane);
    parallel_for_slots(inch, parallel_piece_count(inch, parts), parts, [&](int slot, int64_t c0, int64_t c1) {
        int8_t* scratch = reinterpret_cast<int8_t*>(ws.data) + part_bytes * slot;
        if (pads)
            std::memset(scratch + pplane, 0, slack);
        kernels::Int8DwPlane p = dw_plane(l, g, ofs);
        p.rowsums = reinterpret_cast<int32_t*>(scratch + plane_bytes);
        for (int64_t c = c0; c < c1; c++) {
            if (pads) {
                kernels::i8_pad_plane(codes + (size_t)c * plane, pp, scratch);
                p.src = scratch;
            } else {
                p.src = c + 1 < inch ? codes + (size_t)c * plane : reinterpret_cast<const int8_t*>(src_ws.data);
            }
            p.kernel = q.weight.data() + (size_t)c * maxk;
            p.channel = (int)c;
            kernels::i8_dwconv(p, o);
        }
    });
    return Status::ok();
}

// The int8 kernels' path of conv_int8: depthwise (one i8_dwconv per channel) or, per group, tiles
// of output pixels: the tile's im2col codes packed as the GEMM's B (a 1x1 stride-1 window reads
// the planes as they are) times the weights packed at create_pipeline, dequantized/requantized in
// the kernels' store.
// Threads: depthwise by channel; the GEMM by (group, column tile, block of output channels) items,
// each packing its own tile into its part's scratch. Every output value is one exact integer sum
// and the same float store whatever the split, so any thread count gives the same bits.
Status conv_int8_fast(const ConvWindowLayer& l, const Int8Weights& q, int group, float pad_value, int inch,
                      const Mat& bottom, const Planes& in, const ConvGeometry& g, Mat& top, const Option& opt) {
    const bool depthwise = group == inch && group == l.num_output;
    const int maxk = l.kernel_w * l.kernel_h;
    const size_t out_plane = (size_t)g.out_w * g.out_h;
    const size_t pplane = (size_t)g.padded_w * g.padded_h;
    const std::vector<int> ofs = kernel_offsets(l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, g.padded_w);
    if (depthwise && bottom.int8 && q.wino_u.empty())
        return conv_int8_dw_codes(l, q, inch, pad_value, bottom, in, g, top, opt);
    Mat src_ws;
    const int8_t* src;
    if (!depthwise && bottom.int8 && !g.pads.any()) {
        // int8 codes with no border to add (a 1x1 convolution after an int8 layer: mobilenet_v2's
        // projections): the GEMM's packing and the Winograd input transform read the planes as
        // they are, only inside them, so they need no copy
        src = bottom.int8_data();
    } else {
        NF_RETURN_IF_ERROR(padded_codes_ws(bottom, inch, in.w, in.h, g, pad_value, q.bottom_scale,
                                           depthwise ? kernels::i8_dwconv_slack(l.stride_w) : 0, opt, src_ws));
        src = reinterpret_cast<const int8_t*>(src_ws.data);
    }
    if (!q.wino_u.empty())
        return conv_int8_wino(l, q, inch, src, g, top, opt);
    if (depthwise) {
        const int parts = parallel_part_count(inch, (int64_t)out_plane * maxk);
        const size_t row_ints = kernels::i8_dwconv_sum_ints(g.out_w, g.out_h);
        Mat rows;
        NF_RETURN_IF_ERROR(int8_workspace(row_ints * sizeof(int32_t) * parts, opt, rows));
        const kernels::Int8Out o = int8_out(q, l.bias_data, l.activation, 0, top, out_plane);
        parallel_for_slots(inch, parallel_piece_count(inch, parts), parts, [&](int slot, int64_t c0, int64_t c1) {
            kernels::Int8DwPlane p = dw_plane(l, g, ofs);
            p.rowsums = reinterpret_cast<int32_t*>(rows.data) + row_ints * slot;
            for (int64_t c = c0; c < c1; c++) {
                p.src = src + (size_t)c * pplane;
                p.kernel = q.weight.data() + (size_t)c * maxk;
                p.channel = (int)c;
                kernels::i8_dwconv(p, o);
            }
        });
        return Status::ok();
    }
    const int inch_g = inch / group, outch_g = l.num_output / group;
    const int K = inch_g * maxk, N = (int)out_plane;
    const bool planes = maxk == 1 && l.stride_w == 1 && l.stride_h == 1 && ofs[0] == 0;
    std::vector<size_t> kofs((size_t)K);
    for (int c = 0; c < inch_g; c++)
        for (int t = 0; t < maxk; t++)
            kofs[(size_t)c * maxk + t] = (size_t)c * pplane + (size_t)ofs[t];
    kernels::Int8BSource b0;
    b0.kofs = kofs.data();
    b0.out_w = planes ? g.padded_w : g.out_w;
    b0.row_step = planes ? (size_t)g.padded_w : (size_t)l.stride_h * g.padded_w;
    b0.col_step = planes ? 1 : (size_t)l.stride_w;

    // Work items: (group, tile, row chunk). Rows are split (each chunk packs the same tile again)
    // only when there are fewer tiles than threads to keep busy.
    int T = int8_tile_columns(K, N);
    const int mblocks = (outch_g + 3) / 4;
    const int64_t block_cost = (int64_t)4 * K * T;  // multiply-adds of one 4-row block of one tile
    int ntiles = (N + T - 1) / T;
    const int wanted = parallel_part_count((int64_t)group * ntiles * mblocks, block_cost);
    if (wanted > 1 && (int64_t)group * ntiles < wanted && T > 8) {
        // narrower tiles first, down to 8 columns, so that rows need not be split
        const int per = (N + wanted / group - 1) / std::max(1, wanted / group);
        T = std::max(8, std::min(T, (per + 7) / 8 * 8));
        ntiles = (N + T - 1) / T;
    }
    int mchunks = 1;
    if ((int64_t)group * ntiles < wanted)
        mchunks = (int)std::min<int64_t>(mblocks, (wanted + group * ntiles - 1) / (group * ntiles));
    const int64_t items = (int64_t)group * ntiles * mchunks;
    const int parts = (int)std::min<int64_t>(wanted, items);
    const size_t tile_bytes = kernels::i8_packed_b_bytes(K, T);
    Mat pb_ws;
    NF_RETURN_IF_ERROR(int8_workspace(tile_bytes * parts, opt, pb_ws));
    parallel_for_slots(items, parallel_piece_count(items, parts), parts, [&](int slot, int64_t i0, int64_t i1) {
        int8_t* pb = reinterpret_cast<int8_t*>(pb_ws.data) + tile_bytes * slot;
        for (int64_t it = i0; it < i1; it++) {
            if (opt.cancel && *opt.cancel)
                return;
            const int mc = (int)(it % mchunks);
            const int tile = (int)(it / mchunks % ntiles);
            const int gi = (int)(it / mchunks / ntiles);
            const int n0 = tile * T, nt = std::min(T, N - n0);
            const int mb0 = (int)((int64_t)mblocks * mc / mchunks), mb1 = (int)((int64_t)mblocks * (mc + 1) / mchunks);
            if (mb0 >= mb1)
                continue;
            const int m0 = mb0 * 4, mt = std::min(outch_g, mb1 * 4) - m0;
            kernels::Int8BSource b = b0;
            b.src = src + (size_t)gi * inch_g * pplane;
            b.col0 = n0;
            kernels::i8_pack_b(K, nt, b, pb);
            kernels::Int8Out o = int8_out(q, l.bias_data, l.activation, gi * outch_g + m0, top, out_plane);
            if (o.q)
                o.q += n0;
            else
                o.f += n0;
            kernels::i8_gemm(mt, nt, K, q.packed_a.data() + gi * q.packed_group_stride + (size_t)mb0 * ((K + 1) / 2) * 8,
                             pb, o);
        }
    });
    return Status::ok();
}

// Shared by Convolution (group 1) and ConvolutionDepthWise.
Status conv_int8(const ConvWindowLayer& l, const Int8Weights& q, int group, float pad_value, int inch,
                 const Mat& bottom, const Shape& os, const ConvGeometry& g, Mat& top, const Option& opt) {
    Planes in;
    NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), l.type.c_str(), in));
    if (bottom.elempack != 1)
        return internal_error(l.type + ": int8 path needs an unpacked input");
    // the top first: its size was checked by create (int8 codes when requantizing: 1 byte a value)
    NF_RETURN_IF_ERROR(q.requantize ? top.create_int8(os, opt.blob_allocator) : top.create(os, opt.blob_allocator));
    const bool depthwise = group == inch && group == l.num_output;
    if (q.fast && kernels::int8_store_act_supported(l.activation.type) &&
        (depthwise || !q.packed_a.empty() || !q.wino_u.empty())) {
        NF_RETURN_IF_ERROR(conv_int8_fast(l, q, group, pad_value, inch, bottom, in, g, top, opt));
        return cancelled(opt);
    }
    // The reference path (fused activations the kernels' store does not take: sigmoid, mish,
    // hardswish): scratch from the workspace allocator, sums in int32, stored per channel.
    Mat src_ws, sums_ws, cols_ws;
    NF_RETURN_IF_ERROR(padded_codes_ws(bottom, inch, in.w, in.h, g, pad_value, q.bottom_scale, 0, opt, src_ws));
    kernels::Int8ConvShape s;
    s.inch = inch;
    s.outch = l.num_output;
    s.group = group;
    s.padded_w = g.padded_w;
    s.padded_h = g.padded_h;
    s.out_w = g.out_w;
    s.out_h = g.out_h;
    s.stride_w = l.stride_w;
    s.stride_h = l.stride_h;
    s.maxk = l.kernel_w * l.kernel_h;
    const std::vector<int> ofs = kernel_offsets(l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, g.padded_w);
    const size_t out_plane = (size_t)g.out_w * g.out_h;
    // threads: ranges of output channels, each with its own im2col scratch (a range that spans
    // groups gathers each of them in turn); every sum is exact and each store the same
    const size_t cols_bytes = kernels::int8_conv_cols_bytes(s);
    const int parts = parallel_part_count(l.num_output, (int64_t)cols_bytes + 1);  // K x N per channel
    NF_RETURN_IF_ERROR(int8_workspace(out_plane * l.num_output * sizeof(int32_t), opt, sums_ws));
    NF_RETURN_IF_ERROR(int8_workspace(cols_bytes * parts, opt, cols_ws));
    int32_t* sums = reinterpret_cast<int32_t*>(sums_ws.data);
    parallel_for_slots(l.num_output, parts, parts, [&](int slot, int64_t p0, int64_t p1) {
        if (opt.cancel && *opt.cancel)
            return;
        kernels::int8_conv_sums(s, reinterpret_cast<const int8_t*>(src_ws.data), q.weight.data(), ofs.data(),
                                reinterpret_cast<int8_t*>(cols_ws.data) + cols_bytes * slot, sums, (int)p0, (int)p1);
        for (int64_t p = p0; p < p1; p++)
            int8_store(q, (int)p, sums + (size_t)p * out_plane, out_plane, l.bias_data, l.activation, top,
                       (size_t)p * out_plane);
    });
    return cancelled(opt);
}

// ncnn InnerProduct::forward_int8 (and Convolution's 1D-input path, which ncnn hands to an
// InnerProduct layer): one dot product per output, dequantized; InnerProduct has no top scale.
Status dot_int8(const WeightedLayer& l, const Int8Weights& q, int n, int rows, const Mat& bottom, Mat& top,
                const Option& opt) {
    if (bottom.elempack != 1)
        return internal_error(l.type + ": int8 path needs an unpacked input");
    Mat xs, ss;
    NF_RETURN_IF_ERROR(int8_workspace((size_t)n * rows, opt, xs));
    NF_RETURN_IF_ERROR(int8_workspace((size_t)l.num_output * sizeof(int32_t), opt, ss));
    int8_t* x = reinterpret_cast<int8_t*>(xs.data);
    int32_t* sums = reinterpret_cast<int32_t*>(ss.data);
    int8_input_codes(bottom, (size_t)n * rows, q.bottom_scale, x);
    // the store: no requantize, multiply then add (ncnn's x86 InnerProduct), whatever q.fused_bias
    // says (Convolution's 1D path)
    const bool fast = q.fast && kernels::int8_store_act_supported(l.activation.type);
    Int8Weights dq;  // the reference store's view (its scales copied only for that path)
    if (!fast)
        dq.scale_in = q.scale_in;
    const kernels::ActParams act = kernels::make_act(l.activation.type, l.activation.p0, l.activation.p1);
    // threads: blocks of 4 outputs (each a whole dot product and its store), for every row; a part
    // starts at a multiple of 4, where a block of interleaved rows starts
    parallel_for((l.num_output + 3) / 4, parallel_grain((int64_t)4 * n * rows), [&](int64_t b0, int64_t b1) {
        const int64_t p0 = b0 * 4, p1 = std::min<int64_t>(b1 * 4, l.num_output);
        const int cnt = (int)(p1 - p0);
        const int8_t* wp = q.weight.data() + (size_t)p0 * n;
        for (int r = 0; r < rows; r++) {
            if (q.fast)
                kernels::i8_dot_rows(x + (size_t)r * n, n, wp, cnt, q.interleaved, sums + p0);
            else
                kernels::i8_dot_rows__scalar(x + (size_t)r * n, n, wp, cnt, q.interleaved, sums + p0);
            const size_t at = (size_t)r * l.num_output;
            if (fast) {
                // each output has its own scale and bias
                kernels::i8_dequant_each(sums + p0, cnt, q.scale_in.data() + p0,
                                         l.bias_data.empty() ? nullptr : l.bias_data.data() + p0, false, act,
                                         top.data + at + p0);
            } else {
                for (int64_t p = p0; p < p1; p++)
                    int8_store(dq, (int)p, sums + p, 1, l.bias_data, l.activation, top, at + p);
            }
        }
    });
    return Status::ok();
}

}  // namespace

Status Convolution::load_int8(const std::vector<WeightArray>& w) {
    Int8Flavor f;
    f.fused_bias = true;  // x86 Requantize / Dequantize
    return load_int8_weights(*this, w, num_output, num_output, 1, f, int8);
}

Status Convolution::forward_int8(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    if (int8.weight.size() != (size_t)weight_data_size)
        return internal_error("Convolution: int8 weights not loaded");
    if (os.dims == 1) {
        NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
        return dot_int8(*this, int8, num_input(), 1, bottom, top, opt);
    }
    return conv_int8(*this, int8, 1, pad_value, num_input(), bottom, os, g, top, opt);
}

Status Convolution::pack_int8() {
    // 3x3 stride 1: Winograd (F(4x4, 3x3): 36 int16 products per 16 outputs instead of 144;
    // F(2x2, 3x3): 16 per 4 instead of 36). Each is exact while every output channel's sum |w| keeps
    // its result within int32 (kernels/int8_wino43.h): F(4,3) when it can, else F(2,3), else im2col.
    // Measured (kernel bench --i8-winograd-sweep, wasm SIMD): F(4,3) beats F(2,3) on every
    // squeezenet/googlenet/resnet18 shape (1.1-1.5x, 7x7 maps least) and im2col from 16 -> 64
    // channels on; im2col wins below (4 -> 16, 8 -> 16; 16 -> 16 on 14x14 is a tie).
    const int inch = num_input();
    if (kernel_w == 3 && kernel_h == 3 && stride_w == 1 && stride_h == 1 && dilation_w == 1 && dilation_h == 1 &&
        num_output >= 16 && inch >= 16 && (int64_t)inch * num_output >= 1024) {
        const int64_t abs_sum = kernels::i8_max_abs_weight_sum(int8.weight.data(), num_output, inch);
        const int m = abs_sum <= kernels::kI8Wino43MaxAbsSum ? 4 : abs_sum <= kernels::kI8Wino23MaxAbsSum ? 2 : 0;
        if (m) {
            try {
                int8.wino_u.assign(m == 4 ? kernels::i8_wino43_u_count(num_output, inch)
                                          : kernels::i8_wino_u_count(num_output, inch),
                                   0);
            } catch (const std::bad_alloc&) {
                return resource_limit("out of memory transforming " + std::to_string(int8.weight.size()) +
                                      " int8 weights");
            }
            if (m == 4)
                kernels::i8_wino43_transform_kernel(int8.weight.data(), num_output, inch, int8.wino_u.data());
            else
                kernels::i8_wino_transform_kernel(int8.weight.data(), num_output, inch, int8.wino_u.data());
            int8.wino_m = m;
            int8.wino_sum_bound = 128.0 * (double)abs_sum;
            return Status::ok();
        }
    }
    return pack_int8_gemm(int8, 1, num_output, num_input() * kernel_w * kernel_h);
}

Status ConvolutionDepthWise::load_int8(const std::vector<WeightArray>& w) {
    // ncnn ConvolutionDepthWise::load_model reads weight scales only for these four values
    if (int8_scale_term != 1 && int8_scale_term != 2 && int8_scale_term != 101 && int8_scale_term != 102)
        return invalid_model("ConvolutionDepthWise int8_scale_term (param 8) must be 1, 2, 101 or 102, got " +
                             std::to_string(int8_scale_term));
    const int per_group_scales = (int8_scale_term == 1 || int8_scale_term == 101) ? group : 1;
    // ncnn's x86 depthwise path (elempack 8 when the channels are a multiple of 8) takes
    // _mm_rcp_ps of the scale product and multiplies, then adds; a grouped layer runs one int8
    // Convolution per group, with its fused epilogue
    const bool depthwise = group == num_output && num_input() == group;
    Int8Flavor f;
    f.x86_rcp = depthwise && group % 8 == 0;
    f.fused_bias = !depthwise;
    return load_int8_weights(*this, w, group, per_group_scales, num_output / group, f, int8);
}

Status ConvolutionDepthWise::forward_int8(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    if (int8.weight.size() != (size_t)weight_data_size)
        return internal_error("ConvolutionDepthWise: int8 weights not loaded");
    return conv_int8(*this, int8, group, pad_value, num_input(), bottom, os, g, top, opt);
}

Status ConvolutionDepthWise::pack_int8() {
    if (group == num_output && num_input() == group)
        return Status::ok();  // depthwise: i8_dwconv reads the taps as they are
    return pack_int8_gemm(int8, group, num_output / group, num_input() / group * kernel_w * kernel_h);
}

Status InnerProduct::load_int8(const std::vector<WeightArray>& w) {
    return load_int8_weights(*this, w, num_output, num_output, 1, Int8Flavor(), int8);
}

Status InnerProduct::pack_int8() {
    if (!int8.interleaved) {  // once: the rearrangement is in place
        kernels::i8_interleave_rows(int8.weight.data(), num_input(), num_output);
        int8.interleaved = true;
    }
    return Status::ok();
}

Status InnerProduct::forward_int8(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os));
    if (int8.weight.size() != (size_t)weight_data_size)
        return internal_error("InnerProduct: int8 weights not loaded");
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int rows = os.dims == 2 ? os.h : 1;
    NF_RETURN_IF_ERROR(dot_int8(*this, int8, num_input(), rows, bottom, top, opt));
    return cancelled(opt);
}

}  // namespace nnfold
