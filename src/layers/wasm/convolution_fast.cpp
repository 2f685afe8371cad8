// Convolution_fast: Convolution (layers/convolution.cpp, the reference semantics) computed as
//   - 3x3 stride 1 dilation 1 with enough channels: Winograd F(4,3) or F(6,3) (kernels/winograd.h),
//     the transformed-domain products as GEMMs over blocks of tiles, or im2col + GEMM, whichever
//     costs least for the first output size the layer computes (winograd_choice below);
//   - 1x1 stride 1: one GEMM straight over the (padded) input planes, B[k = channel][n = pixel];
//   - everything else (3x3 s2, 5x5, 7x7, dilations, 1x1 s2...): GEMM with B packed by im2col from
//     the padded input (kernels/gemm.h), the K order (channel, ki, kj) being the reference's;
//   - ncnn's 1D InnerProduct form (1D input, 1x1 kernel): GEMV over the same packed weights.
// Bias and the fused activation are applied in the GEMM / Winograd stores, and so is a residual Add
// the runtime fuses into the layer (Option::residual, runtime/fuse_store.cpp). Weights are repacked
// once (im2col GEMM A panels, or Winograd U) and the original array is freed: in create_pipeline,
// except for the 3x3 layers whose algorithm depends on the output size, which repack at their first
// forward (the size is not known before).
// Pads (explicit, asymmetric, -233/-234) come from the reference's conv_geometry and make_border.
#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>

#include "core/parallel.h"
#include "kernels/gemm.h"
#include "kernels/winograd.h"
#include "layers/convolution.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Convolution_fast : public PackedWeightedFast<Convolution> {
public:
    // int8 models run on the int8 kernels (kernels/int8.h) in the SIMD builds; the baseline keeps
    // the reference loops, which compilers vectorize better than the GEMM's scalar twin (native
    // squeezenet_int8: 69 vs 86 ms)
    Convolution_fast() { this->int8.fast = NNFOLD_SIMD != 0; }

public:
    // Winograd pays off once the GEMMs dominate the transforms (enough channels).
    static bool winograd_eligible(int kw, int kh, int sw, int sh, int dw, int dh, int inch, int outch) {
        return kw == 3 && kh == 3 && sw == 1 && sh == 1 && dw == 1 && dh == 1 && inch >= 16 && outch >= 16;
    }

    // The algorithm for an eligible layer and an output of out_w x out_h, by multiply-adds per
    // output pixel and (input, output) channel pair, as the kernels compute them:
    //   im2col   9, on 8-column GEMM panels over the pixels (a 2x2 map fills half of one)
    //   F(m,3)   (m + 2)^2 per tile, the tiles covering ceil(w/m) x ceil(h/m) * m^2 pixels (7x7 by
    //            F(6,3) computes 12x12), on 8-tile panels (4 tiles fill half of one)
    // Beyond 256 x 256 channels Winograd must save a third over im2col (U, 4x or 7x the weights, is
    // then many MB streamed from memory, which the count does not show). F(6,3) needs 256 channels
    // on each side and 5% fewer multiply-adds than F(4,3): its larger transforms and U eat the rest
    // of its advantage. Measured on the wasm SIMD build (nnfold_kernel_bench --winograd-sweep, ms of
    // thread CPU time, F(4,3) / F(6,3) / im2col): 512x512 at 28x28 29.0 / 30.3 / 120; at 14x14
    // 7.9 / 18.5 / 23.9; at 7x7 5.0 / 8.0 / 7.6; 256x256 at 56x56 29.5 / 27.5 / 102; at 28x28
    // 8.0 / 8.0 / 25.1; 128x128 at 112x112 31.7 / 37.2 / 106; 64x64 at 224x224 35.8 / 41.6 / 109.
    enum class Algo { Im2col, F43, F63 };
    static Algo winograd_choice(int inch, int outch, int out_w, int out_h) {
        const double pixels = (double)out_w * out_h;
        auto panels = [](int64_t n) { return (double)((n + 7) / 8 * 8); };
        auto tiles = [&](int m) { return (int64_t)((out_w + m - 1) / m) * ((out_h + m - 1) / m); };
        const double c43 = 36.0 * panels(tiles(4)) / pixels, c63 = 64.0 * panels(tiles(6)) / pixels;
        const bool f63 = inch >= 256 && outch >= 256 && c63 <= 0.95 * c43;
        const double cim = 9.0 * panels((int64_t)out_w * out_h) / pixels;
        const double margin = (int64_t)inch * outch <= 256 * 256 ? 1.0 : 2.0 / 3.0;
        if ((f63 ? c63 : c43) >= cim * margin)
            return Algo::Im2col;
        return f63 ? Algo::F63 : Algo::F43;
    }

    // A residual Add after this convolution is applied in its stores (GEMM tiles, Winograd tile
    // blocks; runtime/fuse_store.cpp) once the weights are packed.
    bool fuses_residual() const override { return packed_ready(); }

protected:
    Status pack() override;
    Status forward_packed(const Mat& bottom, Mat& top, const Option& opt) const override;

private:
    Status forward_winograd(const Mat& bottom, const ConvGeometry& g, kernels::Winograd f, Mat& top,
                            const Option& opt) const;
    Status winograd_by_channel(kernels::Winograd f, const kernels::WinogradInput& wi, const kernels::WinogradOutput& wo,
                               int ntiles, int tb, const Option& opt,
                               const std::function<void(int, int, int, int)>& residual) const;
    // The deferred repack of a Winograd-eligible layer, for its first output size.
    Status choose_3x3(const ConvGeometry& g) const;

    // im2col GEMM A: num_output x (inch * kernel_h * kernel_w)
    mutable std::vector<float> packed_;
    // Winograd U (P packed A panels of num_output x inch)
    mutable std::vector<float> winograd_u_;
    mutable Algo algo_ = Algo::Im2col;
    // an eligible layer keeps its weights ([outch][inch][3][3]) until choose_3x3 has run
    mutable std::vector<float> pending_weights_;
    mutable std::atomic<bool> pending_{false};
    mutable std::mutex pending_mutex_;
};

Status Convolution_fast::pack() {
    const int inch = num_input(), maxk = kernel_w * kernel_h;
    if (winograd_eligible(kernel_w, kernel_h, stride_w, stride_h, dilation_w, dilation_h, inch, num_output)) {
        pending_weights_ = std::move(weight_data);
        fast_release(weight_data);
        pending_ = true;
        return Status::ok();
    }
    const int K = inch * maxk;
    NF_RETURN_IF_ERROR(fast_pack_a(packed_, num_output, K, weight_data.data(), (size_t)K, 1));
    algo_ = Algo::Im2col;
    fast_release(weight_data);
    return Status::ok();
}

Status Convolution_fast::choose_3x3(const ConvGeometry& g) const {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    if (!pending_)
        return Status::ok();
    const int inch = num_input();
    const Algo algo = winograd_choice(inch, num_output, g.out_w, g.out_h);
    const std::vector<float>& weights = pending_weights_;
    if (algo == Algo::Im2col) {
        const int K = inch * 9;
        NF_RETURN_IF_ERROR(fast_pack_a(packed_, num_output, K, weights.data(), (size_t)K, 1));
    } else {
        const kernels::Winograd f = algo == Algo::F63 ? kernels::Winograd::F63 : kernels::Winograd::F43;
        NF_RETURN_IF_ERROR(fast_alloc(winograd_u_, kernels::winograd_u_floats(f, num_output, inch)));
        kernels::winograd_transform_kernel(f, weights.data(), num_output, inch, winograd_u_.data());
    }
    algo_ = algo;
    pending_ = false;
    fast_release(pending_weights_);
    return Status::ok();
}

Status Convolution_fast::forward_packed(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const float* bias = bias_term ? bias_data.data() : nullptr;
    const int inch = num_input();

    if (os.dims == 1) {  // ncnn's InnerProduct form
        kernels::f32_gemv_packed_parallel(num_output, inch, packed_.data(), bottom.data, bias, fast_act(activation),
                                          top.data);
        fast_apply_residual(top, opt);
        return Status::ok();
    }
    if (pending_)
        NF_RETURN_IF_ERROR(choose_3x3(g));
    if (algo_ != Algo::Im2col)
        return forward_winograd(bottom, g, algo_ == Algo::F63 ? kernels::Winograd::F63 : kernels::Winograd::F43, top,
                                opt);

    Mat src = bottom;
    if (g.pads.any())
        NF_RETURN_IF_ERROR(make_border(bottom, src, g.pads, pad_value, opt.workspace_allocator));
    const int N = g.out_w * g.out_h, K = inch * kernel_w * kernel_h;
    kernels::GemmB b;
    if (kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1) {
        // output pixels are the padded input pixels: B is the input planes as they are
        b.kind = kernels::GemmB::Strided;
        b.data = src.data;
        b.rs = (size_t)g.padded_w * g.padded_h;
        b.cs = 1;
    } else {
        b.kind = kernels::GemmB::Im2colSource;
        b.im2col.src = src.data;
        b.im2col.in_w = g.padded_w;
        b.im2col.in_plane = (size_t)g.padded_w * g.padded_h;
        b.im2col.kernel_w = kernel_w;
        b.im2col.kernel_h = kernel_h;
        b.im2col.dilation_w = dilation_w;
        b.im2col.dilation_h = dilation_h;
        b.im2col.stride_w = stride_w;
        b.im2col.stride_h = stride_h;
        b.im2col.out_w = g.out_w;
    }
    // threads: output channel blocks x pixel tiles (kernels/gemm.h f32_gemm parts)
    const int parts = kernels::f32_gemm_parts(num_output, N, K);
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(kernels::f32_gemm_workspace_floats(N, K, b.kind, parts), opt, ws));
    kernels::GemmEpilogue ep;
    ep.bias = bias;
    ep.act = fast_act(activation);
    if (opt.residual) {
        ep.residual = opt.residual->data;
        ep.ldr = (size_t)N;
        if (opt.residual->channels >= 0)
            ep.residual_rows = opt.residual->channels;
        ep.post_act = fast_residual_act(*opt.residual);
    }
    kernels::f32_gemm(num_output, N, K, packed_.data(), b, top.data, (size_t)N, ep, false, ws.data, parts);
    return fast_cancelled(opt);
}

// The fused residual Add over the output pixels of Winograd tiles [t0, t0 + nt) (m x m tiles
// numbered row-major over a grid tiles_w wide), applied right after the block's output transform
// while those rows are still in cache. Each pixel belongs to one tile, so each is added once.
// Channels from res_channels on add +0.f (a zero-padded shortcut; a tile row is m <= 8 wide).
static void winograd_block_residual(float* dst, const float* res, int res_channels, int outch, int out_w, int out_h,
                                    int m, int tiles_w, int t0, int nt, const kernels::ActParams& act) {
    static const float zeros[8] = {};
    const size_t plane = (size_t)out_w * out_h;
    const int t1 = t0 + nt;
    for (int ty = t0 / tiles_w; ty * tiles_w < t1; ty++) {
        const int tx0 = std::max(t0 - ty * tiles_w, 0), tx1 = std::min(t1 - ty * tiles_w, tiles_w);
        const int x0 = tx0 * m, x1 = std::min(tx1 * m, out_w);
        const int y0 = ty * m, y1 = std::min(y0 + m, out_h);
        if (x1 <= x0)
            continue;
        for (int o = 0; o < outch; o++)
            for (int y = y0; y < y1; y++) {
                const size_t off = (size_t)o * plane + (size_t)y * out_w + x0;
                kernels::f32_add_act_inplace(dst + off, o < res_channels ? res + off : zeros, (size_t)(x1 - x0), act);
            }
    }
}

Status Convolution_fast::forward_winograd(const Mat& bottom, const ConvGeometry& g, kernels::Winograd f, Mat& top,
                                          const Option& opt) const {
    const int inch = num_input(), outch = num_output;
    const int m = kernels::winograd_m(f), P = kernels::winograd_positions(f);
    const int tiles_w = (g.out_w + m - 1) / m, tiles_h = (g.out_h + m - 1) / m;
    const int ntiles = tiles_w * tiles_h;
    // the input with the conv pads, extended right/bottom so every (m + 2)^2 tile is inside (the
    // extra cells only feed output pixels past out_w/out_h, which are dropped)
    Planes in;
    NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), "Convolution", in));
    Pads p = g.pads;
    p.right = tiles_w * m + 2 - in.w - p.left;
    p.bottom = tiles_h * m + 2 - in.h - p.top;
    Mat src;
    NF_RETURN_IF_ERROR(make_border(bottom, src, p, pad_value, opt.workspace_allocator));
    const int src_w = tiles_w * m + 2;
    const size_t src_plane = (size_t)src_w * (tiles_h * m + 2);

    kernels::WinogradInput wi;
    wi.src = src.data;
    wi.in_w = src_w;
    wi.in_plane = src_plane;
    wi.inch = inch;
    wi.tiles_w = tiles_w;
    kernels::WinogradOutput wo;
    wo.dst = top.data;
    wo.out_w = g.out_w;
    wo.out_h = g.out_h;
    wo.outch = outch;
    wo.tiles_w = tiles_w;
    wo.bias = bias_term ? bias_data.data() : nullptr;
    wo.act = fast_act(activation);
    const kernels::ActParams residual_act = opt.residual ? fast_residual_act(*opt.residual) : kernels::ActParams();
    const size_t out_plane = (size_t)g.out_w * g.out_h;
    // the fused residual Add of output channels [o0, o1) of tiles [t0, t0 + nt)
    // (a zero-channel padded shortcut has fewer channels than outch: the rest add +0.f)
    const int res_total = opt.residual && opt.residual->channels >= 0 ? opt.residual->channels : outch;
    auto residual = [&](int o0, int o1, int t0, int nt) {
        if (!opt.residual)
            return;
        const int rc = std::max(0, std::min(res_total - o0, o1 - o0));
        const float* res = rc > 0 ? opt.residual->data + o0 * out_plane : opt.residual->data;
        winograd_block_residual(top.data + o0 * out_plane, res, rc, o1 - o0, g.out_w, g.out_h, m, tiles_w, t0, nt,
                                residual_act);
    };

    // The split over threads never changes a result: every output is one tile's transform of
    // per-position sums over input channels in increasing order, whatever the block, tile range or
    // output channel slice that computes it (kernels/winograd.h).
    const int tb = kernels::winograd_tile_block(f, inch, outch, ntiles);
    const int64_t tile_cost = (int64_t)P * inch * outch;  // multiply-adds per tile
    const int parts = parallel_part_count(ntiles, tile_cost);
    if (kernels::winograd_split_by_channel(ntiles, tb, outch, parts))
        return winograd_by_channel(f, wi, wo, ntiles, tb, opt, residual);

    // By tiles: each piece is a contiguous range of whole 8-tile panels (near-equal counts, at most
    // part_tiles tiles), run as blocks of at most tb tiles with its thread's V and M.
    const int panels = (ntiles + 7) / 8;
    const int part_tiles = std::min(tb, ((panels + parts - 1) / parts) * 8);
    const size_t block_floats = kernels::winograd_block_floats(f, inch, outch, part_tiles);
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(block_floats * parts, opt, ws));
    // pieces of whole blocks where there are blocks enough (a block streams all of U): at least one
    // per thread, at most kPiecesPerPart per thread
    const int64_t tb_panels = std::max(1, tb / 8), whole_blocks = (panels + tb_panels - 1) / tb_panels;
    const int64_t pieces = std::min(parallel_piece_count(panels, parts), std::max<int64_t>(parts, whole_blocks));
    parallel_for_slots(panels, pieces, parts, [&](int slot, int64_t p0, int64_t p1) {
        float* block_ws = ws.data + block_floats * slot;
        const int first = (int)p0 * 8, last = std::min(ntiles, (int)p1 * 8);
        // blocks of near-equal whole panels, at most tb tiles each
        const int range_panels = (int)(p1 - p0), per_block = std::max(1, tb / 8);
        const int nblocks = (range_panels + per_block - 1) / per_block;
        for (int blk = 0; blk < nblocks; blk++) {
            if (opt.cancel && *opt.cancel)
                return;
            const int t0 = first + (int)((int64_t)range_panels * blk / nblocks) * 8;
            const int t1 = std::min(last, first + (int)((int64_t)range_panels * (blk + 1) / nblocks) * 8);
            kernels::winograd_conv_block(f, winograd_u_.data(), wi, wo, t0, t1 - t0, block_ws);
            residual(0, outch, t0, t1 - t0);
        }
    });
    return fast_cancelled(opt);
}

Status Convolution_fast::winograd_by_channel(kernels::Winograd f, const kernels::WinogradInput& wi,
                                             const kernels::WinogradOutput& wo, int ntiles, int tb, const Option& opt,
                                             const std::function<void(int, int, int, int)>& residual) const {
    const int inch = wi.inch, outch = wo.outch, P = kernels::winograd_positions(f);
    const int nblocks = (ntiles + tb - 1) / tb;
    const int nt_max = std::min(tb, ntiles);
    const size_t v_floats = (size_t)P * kernels::packed_b_floats(inch, nt_max);
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(kernels::winograd_block_floats(f, inch, outch, nt_max), opt, ws));
    float* V = ws.data;
    float* M = ws.data + v_floats;
    const int opanels = (outch + kernels::kGemmMR - 1) / kernels::kGemmMR;
    for (int blk = 0; blk < nblocks; blk++) {
        if (opt.cancel && *opt.cancel)
            break;
        // near-equal blocks
        const int t0 = (int)((int64_t)ntiles * blk / nblocks), nt = (int)((int64_t)ntiles * (blk + 1) / nblocks) - t0;
        // input transform by input channel: each writes its channels' rows of every V panel
        parallel_for(inch, parallel_grain((int64_t)nt * P * 8), [&](int64_t q0, int64_t q1) {
            kernels::WinogradInput part = wi;
            part.q_begin = (int)q0;
            part.q_end = (int)q1;
            if (f == kernels::Winograd::F43)
                kernels::winograd43_transform_input(part, t0, nt, V);
            else
                kernels::winograd63_transform_input(part, t0, nt, V);
        });
        // GEMMs + output transform by output channel panels: the slice at o0 keeps its M at
        // P * o0 * nt (slices laid end to end), so any chunking writes disjoint memory
        parallel_for(opanels, parallel_grain((int64_t)kernels::kGemmMR * P * inch * nt),
                     [&](int64_t p0, int64_t p1) {
                         const int o0 = (int)p0 * kernels::kGemmMR, o1 = std::min(outch, (int)p1 * kernels::kGemmMR);
                         kernels::winograd_block_outputs(f, winograd_u_.data(), inch, V, wo, t0, nt, o0, o1,
                                                         M + (size_t)P * o0 * nt);
                         residual(o0, o1, t0, nt);
                     });
    }
    return fast_cancelled(opt);
}

NF_DEFINE_OPTIMIZED_LAYER(Convolution, Convolution_fast)

}  // namespace nnfold
