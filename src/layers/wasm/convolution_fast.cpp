// Convolution_fast: Convolution (layers/convolution.cpp, the reference semantics) computed as
//   - 3x3 stride 1 dilation 1 with enough channels: Winograd F(4,3) (kernels/winograd.h), the 36
//     transformed-domain products as GEMMs over blocks of tiles;
//   - 1x1 stride 1: one GEMM straight over the (padded) input planes, B[k = channel][n = pixel];
//   - everything else (3x3 s2, 5x5, 7x7, dilations, 1x1 s2...): GEMM with B packed by im2col from
//     the padded input (kernels/gemm.h), the K order (channel, ki, kj) being the reference's;
//   - ncnn's 1D InnerProduct form (1D input, 1x1 kernel): GEMV over the same packed weights.
// Bias and the fused activation are applied in the GEMM / Winograd stores, and so is a residual Add
// the runtime fuses into the layer (Option::residual, runtime/fuse_store.cpp). Weights are repacked
// once in create_pipeline (im2col GEMM A panels, or Winograd U) and the original array is freed.
// Pads (explicit, asymmetric, -233/-234) come from the reference's conv_geometry and make_border.
#include <algorithm>

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
    // Winograd pays off once the GEMMs dominate the transforms (enough channels); above 256x256
    // channels the 4x larger U costs more memory than it saves time at the small spatial sizes such
    // layers have (ResNet's 512-channel stage runs at 7x7).
    static bool winograd_eligible(int kw, int kh, int sw, int sh, int dw, int dh, int inch, int outch) {
        return kw == 3 && kh == 3 && sw == 1 && sh == 1 && dw == 1 && dh == 1 && inch >= 16 && outch >= 16 &&
               (int64_t)inch * outch <= 256 * 256;
    }

    // A residual Add after this convolution is applied in its stores (GEMM tiles, Winograd tile
    // blocks; runtime/fuse_store.cpp) once the weights are packed.
    bool fuses_residual() const override { return packed_ready(); }

protected:
    Status pack() override;
    Status forward_packed(const Mat& bottom, Mat& top, const Option& opt) const override;

private:
    Status forward_winograd(const Mat& bottom, const ConvGeometry& g, Mat& top, const Option& opt) const;

    std::vector<float> packed_;      // im2col GEMM A: num_output x (inch * kernel_h * kernel_w)
    std::vector<float> winograd_u_;  // Winograd U (36 packed A panels of num_output x inch)
    bool winograd_ = false;
};

Status Convolution_fast::pack() {
    const int inch = num_input(), maxk = kernel_w * kernel_h;
    winograd_ = winograd_eligible(kernel_w, kernel_h, stride_w, stride_h, dilation_w, dilation_h, inch, num_output);
    if (winograd_) {
        NF_RETURN_IF_ERROR(fast_alloc(winograd_u_, kernels::winograd43_u_floats(num_output, inch)));
        kernels::winograd43_transform_kernel(weight_data.data(), num_output, inch, winograd_u_.data());
    } else {
        const int K = inch * maxk;
        NF_RETURN_IF_ERROR(fast_pack_a(packed_, num_output, K, weight_data.data(), (size_t)K, 1));
    }
    fast_release(weight_data);
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
    if (winograd_)
        return forward_winograd(bottom, g, top, opt);

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
        ep.post_act = fast_residual_act(*opt.residual);
    }
    kernels::f32_gemm(num_output, N, K, packed_.data(), b, top.data, (size_t)N, ep, false, ws.data, parts);
    return fast_cancelled(opt);
}

// The fused residual Add over the output pixels of Winograd tiles [t0, t0 + nt) (4x4 tiles
// numbered row-major over a grid tiles_w wide), applied right after the block's output transform
// while those rows are still in cache. Each pixel belongs to one tile, so each is added once.
static void winograd_block_residual(float* dst, const float* res, int outch, int out_w, int out_h, int tiles_w,
                                    int t0, int nt, const kernels::ActParams& act) {
    const size_t plane = (size_t)out_w * out_h;
    const int t1 = t0 + nt;
    for (int ty = t0 / tiles_w; ty * tiles_w < t1; ty++) {
        const int tx0 = std::max(t0 - ty * tiles_w, 0), tx1 = std::min(t1 - ty * tiles_w, tiles_w);
        const int x0 = tx0 * 4, x1 = std::min(tx1 * 4, out_w);
        const int y0 = ty * 4, y1 = std::min(y0 + 4, out_h);
        if (x1 <= x0)
            continue;
        for (int o = 0; o < outch; o++)
            for (int y = y0; y < y1; y++) {
                const size_t off = (size_t)o * plane + (size_t)y * out_w + x0;
                kernels::f32_add_act_inplace(dst + off, res + off, (size_t)(x1 - x0), act);
            }
    }
}

Status Convolution_fast::forward_winograd(const Mat& bottom, const ConvGeometry& g, Mat& top, const Option& opt) const {
    const int inch = num_input(), outch = num_output;
    const int tiles_w = (g.out_w + 3) / 4, tiles_h = (g.out_h + 3) / 4;
    const int ntiles = tiles_w * tiles_h;
    // the input with the conv pads, extended right/bottom so every 6x6 tile is inside (the extra
    // cells only feed output pixels past out_w/out_h, which are dropped)
    Planes in;
    NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), "Convolution", in));
    Pads p = g.pads;
    p.right = tiles_w * 4 + 2 - in.w - p.left;
    p.bottom = tiles_h * 4 + 2 - in.h - p.top;
    Mat src;
    NF_RETURN_IF_ERROR(make_border(bottom, src, p, pad_value, opt.workspace_allocator));
    const int src_w = tiles_w * 4 + 2;
    const size_t src_plane = (size_t)src_w * (tiles_h * 4 + 2);

    // Tiles per block: the block's V (36 x inch) and M (36 x outch) about 512 KB, in panels of 8.
    const size_t per_tile = (size_t)36 * (inch + outch);
    int tb = (int)((size_t)(128 * 1024) / per_tile) / 8 * 8;
    tb = std::max(tb, 8);
    tb = std::min(tb, (ntiles + 7) / 8 * 8);
    // Threads take whole tile blocks, each with its own V and M (every output is one tile's
    // transform of sums over input channels in a fixed order, whatever the block). Blocks are made
    // smaller when there are fewer than threads.
    const int64_t tile_cost = (int64_t)36 * inch * outch;  // multiply-adds per tile
    const int parts_wanted = parallel_part_count(ntiles, tile_cost);
    if (parts_wanted > 1)
        tb = std::max(8, std::min(tb, (ntiles + parts_wanted - 1) / parts_wanted + 7) / 8 * 8);
    const int nblocks = (ntiles + tb - 1) / tb;
    const int parts = std::min(parts_wanted, nblocks);
    const size_t v_floats = 36 * kernels::packed_b_floats(inch, tb);
    const size_t m_floats = (size_t)36 * outch * tb;
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace((v_floats + m_floats) * parts, opt, ws));

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
    const size_t u_stride = kernels::packed_a_floats(outch, inch);
    const kernels::GemmEpilogue plain;
    const kernels::ActParams residual_act = opt.residual ? fast_residual_act(*opt.residual) : kernels::ActParams();
    parallel_for_parts(nblocks, parts, [&](int part, int64_t b0, int64_t b1) {
        float* V = ws.data + (v_floats + m_floats) * part;
        float* M = V + v_floats;
        for (int64_t blk = b0; blk < b1; blk++) {
            if (opt.cancel && *opt.cancel)
                return;
            const int t0 = (int)blk * tb;
            const int nt = std::min(tb, ntiles - t0);
            kernels::winograd43_transform_input(wi, t0, nt, V);
            const size_t v_stride = kernels::packed_b_floats(inch, nt);
            for (int pos = 0; pos < 36; pos++) {
                kernels::GemmB b;
                b.kind = kernels::GemmB::Packed;
                b.data = V + pos * v_stride;
                kernels::f32_gemm(outch, nt, inch, winograd_u_.data() + pos * u_stride, b,
                                  M + (size_t)pos * outch * nt, (size_t)nt, plain, false, nullptr);
            }
            kernels::winograd43_transform_output(M, (size_t)nt, wo, t0, nt);
            if (opt.residual)
                winograd_block_residual(top.data, opt.residual->data, outch, g.out_w, g.out_h, tiles_w, t0, nt,
                                        residual_act);
        }
    });
    return fast_cancelled(opt);
}

NF_DEFINE_OPTIMIZED_LAYER(Convolution, Convolution_fast)

}  // namespace nnfold
