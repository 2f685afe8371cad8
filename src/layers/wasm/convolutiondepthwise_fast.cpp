// ConvolutionDepthWise_fast: ConvolutionDepthWise (layers/convolutiondepthwise.cpp) computed as
//   - depthwise (one input and one output channel per group) 3x3 or 5x5 at stride 1 or 2, dilation
//     1: the pack4 kernels of kernels/dwconv.h on blocks of four channels (weights and biases
//     packed once, in create_pipeline), bias and activation fused into the store, pads applied
//     virtually (no border copy of the input);
//   - any other depthwise window: per channel, the row-vectorized general kernel (windows taller
//     than its row ring, kernels/window.h, run the reference forward);
//   - any other grouping (group conv, channel multipliers): one GEMM per group with the group's
//     weights packed once as A panels and B by im2col from the group's input planes (1x1 stride 1:
//     the planes themselves), as Convolution_fast does for the whole input.
// Pads come from the reference's conv_geometry/make_border (explicit, asymmetric, -233, -234).
#include "core/parallel.h"
#include "kernels/dwconv.h"
#include "kernels/gemm.h"
#include "layers/convolutiondepthwise.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class ConvolutionDepthWise_fast : public PackedWeightedFast<ConvolutionDepthWise> {
public:
    // int8 models run on the int8 kernels (kernels/int8.h) in the SIMD builds; the baseline keeps
    // the reference loops, which compilers vectorize better than the GEMM's scalar twin (native
    // squeezenet_int8: 69 vs 86 ms)
    ConvolutionDepthWise_fast() { this->int8.fast = NNFOLD_SIMD != 0; }

protected:
    Status pack() override;
    Status forward_packed(const Mat& bottom, Mat& top, const Option& opt) const override;

private:
    bool depthwise_ = false;
    // the pack4 kernel of this window (nullptr: the general kernel), its packed weights and biases
    void (*pack4_)(const kernels::DwBlock4&) = nullptr;
    std::vector<float> w4_, b4_;
    std::vector<float> packed_;  // grouped: per group, GEMM A panels of (num_output/group) x (inch/group * maxk)
};

Status ConvolutionDepthWise_fast::pack() {
    const int maxk = kernel_w * kernel_h;
    const int inch_g = num_input() / group, outch_g = num_output / group;
    depthwise_ = inch_g == 1 && outch_g == 1;
    if (!depthwise_) {
        // weight_data is [group][outch_g][inch_g * maxk]: each group's block is a row-major A
        const int K = inch_g * maxk;
        NF_RETURN_IF_ERROR(
            fast_pack_a(packed_, outch_g, K, weight_data.data(), (size_t)K, 1, group, (size_t)outch_g * K));
        fast_release(weight_data);
    }
    pack4_ = nullptr;
    if (!depthwise_)
        return Status::ok();
    // depthwise: weight_data [channel][kernel_h][kernel_w] is the general kernel's layout; the
    // fixed windows get theirs in blocks of four channels
    if (dilation_w == 1 && dilation_h == 1 && kernel_w == kernel_h && stride_w == stride_h) {
        if (kernel_w == 3 && stride_w == 1)
            pack4_ = kernels::f32_dwconv3x3s1_pack4;
        else if (kernel_w == 3 && stride_w == 2)
            pack4_ = kernels::f32_dwconv3x3s2_pack4;
        else if (kernel_w == 5 && stride_w == 1)
            pack4_ = kernels::f32_dwconv5x5s1_pack4;
        else if (kernel_w == 5 && stride_w == 2)
            pack4_ = kernels::f32_dwconv5x5s2_pack4;
    }
    if (pack4_) {
        NF_RETURN_IF_ERROR(fast_alloc(w4_, kernels::dw_pack4_weight_floats(num_output, maxk)));
        NF_RETURN_IF_ERROR(fast_alloc(b4_, kernels::dw_pack4_bias_floats(num_output)));
        kernels::f32_dwconv_pack4_weights(weight_data.data(), bias_term ? bias_data.data() : nullptr, num_output,
                                          maxk, w4_.data(), b4_.data());
        fast_release(weight_data);  // the pack4 path never falls back to the reference
    }
    return Status::ok();
}

Status ConvolutionDepthWise_fast::forward_packed(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape os;
    ConvGeometry g;
    NF_RETURN_IF_ERROR(output_shape(bottom.shape(), os, &g));
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const size_t out_plane = (size_t)g.out_w * g.out_h;
    const kernels::ActParams act = fast_act(activation);
    const int maxk = kernel_w * kernel_h;

    if (depthwise_) {
        // no border copy: the kernels pad virtually through a ring of padded rows (kernels/window.h)
        Planes in;
        NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), "ConvolutionDepthWise", in));
        const kernels::WindowGeometry win =
            fast_window_geometry(in.w, in.h, g.pads.left, g.pads.top, pad_value, g.out_w, g.out_h, kernel_w, kernel_h,
                                 stride_w, stride_h, dilation_w, dilation_h);
        const size_t in_plane = (size_t)in.w * in.h;
        if (pack4_) {
            // threads: blocks of four channels, each part with its own ring of interleaved rows
            const int blocks = (num_output + 3) / 4;
            const int parts = parallel_part_count(blocks, (int64_t)out_plane * maxk * 4);
            const size_t scratch_floats = kernels::f32_dwconv_pack4_scratch_floats(win);
            Mat scratch;
            NF_RETURN_IF_ERROR(fast_workspace(scratch_floats * parts, opt, scratch));
            const int64_t pieces = parallel_piece_count(blocks, parts);
            parallel_for_slots(blocks, pieces, parts, [&](int slot, int64_t b0, int64_t b1) {
                for (int64_t bi = b0; bi < b1; bi++) {
                    kernels::DwBlock4 p;
                    p.win = win;
                    p.win.src = bottom.data + bi * 4 * in_plane;
                    p.src_stride = in_plane;
                    p.channels = std::min(4, num_output - (int)bi * 4);
                    p.dst = top.data + bi * 4 * out_plane;
                    p.dst_stride = out_plane;
                    p.kernel = w4_.data() + (size_t)bi * 4 * maxk;
                    p.bias = b4_.data() + bi * 4;
                    p.act = act;
                    p.scratch = scratch.data + scratch_floats * slot;
                    pack4_(p);
                    if ((bi & 15) == 15 && opt.cancel && *opt.cancel)
                        return;
                }
            });
            return fast_cancelled(opt);
        }
        if (!kernels::f32_dwconv_supported(win))  // a window taller than the row ring holds
            return ConvolutionDepthWise::forward(bottom, top, opt);
        // threads: channels, each part with its own row ring
        const int parts = parallel_part_count(num_output, (int64_t)out_plane * maxk);
        const size_t scratch_floats = kernels::f32_dwconv_scratch_floats(win);
        Mat scratch;
        NF_RETURN_IF_ERROR(fast_workspace(scratch_floats * parts, opt, scratch));
        const int64_t pieces = parallel_piece_count(num_output, parts);
        parallel_for_slots(num_output, pieces, parts, [&](int slot, int64_t q0, int64_t q1) {
            for (int64_t q = q0; q < q1; q++) {
                kernels::DwPlane p;
                p.win = win;
                p.win.src = bottom.data + q * in_plane;
                p.dst = top.data + q * out_plane;
                p.kernel = weight_data.data() + (size_t)q * maxk;
                p.bias = bias_term ? bias_data[q] : 0.f;
                p.act = act;
                p.scratch = scratch.data + scratch_floats * slot;
                kernels::f32_dwconv_general(p);
                if ((q & 63) == 63 && opt.cancel && *opt.cancel)
                    return;
            }
        });
        return fast_cancelled(opt);
    }

    Mat src = bottom;
    if (g.pads.any())
        NF_RETURN_IF_ERROR(make_border(bottom, src, g.pads, pad_value, opt.workspace_allocator));
    const size_t in_plane = (size_t)g.padded_w * g.padded_h;
    const int inch_g = num_input() / group, outch_g = num_output / group;
    const int K = inch_g * maxk, N = g.out_w * g.out_h;
    const size_t per_group = kernels::packed_a_floats(outch_g, K);
    const bool direct = kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1;
    const kernels::GemmB::Kind kind = direct ? kernels::GemmB::Strided : kernels::GemmB::Im2colSource;
    // threads: whole groups per part when there are groups enough (each part with its own GEMM
    // workspace), else inside each group's GEMM
    const int parts_by_group = parallel_part_count(group, (int64_t)outch_g * N * K);
    const int gemm_parts = parts_by_group > 1 ? 1 : kernels::f32_gemm_parts(outch_g, N, K);
    const size_t ws_floats = kernels::f32_gemm_workspace_floats(N, K, kind, gemm_parts);
    Mat ws;
    NF_RETURN_IF_ERROR(fast_workspace(ws_floats * parts_by_group, opt, ws));
    const int64_t pieces = parallel_piece_count(group, parts_by_group);
    parallel_for_slots(group, pieces, parts_by_group, [&](int slot, int64_t g0, int64_t g1) {
        for (int64_t gi = g0; gi < g1; gi++) {
            if (opt.cancel && *opt.cancel)
                return;
            const float* gsrc = src.data + (size_t)gi * inch_g * in_plane;
            kernels::GemmB b;
            b.kind = kind;
            if (direct) {
                b.data = gsrc;
                b.rs = in_plane;
                b.cs = 1;
            } else {
                b.im2col.src = gsrc;
                b.im2col.in_w = g.padded_w;
                b.im2col.in_plane = in_plane;
                b.im2col.kernel_w = kernel_w;
                b.im2col.kernel_h = kernel_h;
                b.im2col.dilation_w = dilation_w;
                b.im2col.dilation_h = dilation_h;
                b.im2col.stride_w = stride_w;
                b.im2col.stride_h = stride_h;
                b.im2col.out_w = g.out_w;
            }
            kernels::GemmEpilogue ep;
            ep.bias = bias_term ? bias_data.data() + (size_t)gi * outch_g : nullptr;
            ep.act = act;
            kernels::f32_gemm(outch_g, N, K, packed_.data() + gi * per_group, b,
                              top.data + (size_t)gi * outch_g * out_plane, (size_t)N, ep, false,
                              ws.data + ws_floats * slot, gemm_parts);
        }
    });
    return fast_cancelled(opt);
}

NF_DEFINE_OPTIMIZED_LAYER(ConvolutionDepthWise, ConvolutionDepthWise_fast)

}  // namespace nnfold
