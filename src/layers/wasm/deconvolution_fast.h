// The optimized forward shared by Deconvolution_fast and DeconvolutionDepthWise_fast (the two
// reference classes share one grouped forward too, layers/deconvolution.h):
//   - depthwise groups (one input and one output channel each): per channel, the direct kernel
//     kernels/deconv.h f32_deconvdw_plane onto the bias-filled output;
//   - otherwise per group a GEMM, col[(o, k)][pixel] = sum_c W[o][c][k] x[c][pixel], with the
//     weights packed once as A panels (rows (o, ki, kj), K = input channels) and the input planes
//     as B, over blocks of input pixels; col2im adds each block onto the bias-filled output.
// Then the fused activation over the full output and ncnn's cut (explicit pads or the output_w/h
// excess), all as the reference computes them.
#pragma once

#include <algorithm>

#include "core/parallel.h"
#include "kernels/deconv.h"
#include "kernels/elementwise_parallel.h"
#include "kernels/gemm.h"
#include "layers/deconvolution.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

template <class Base>
class DeconvolutionFastImpl : public PackedWeightedFast<Base> {
protected:
    Status pack() override {
        const int maxk = this->kernel_w * this->kernel_h;
        const int inch_g = this->num_input() / this->group, outch_g = this->num_output / this->group;
        depthwise_ = inch_g == 1 && outch_g == 1;
        if (!depthwise_) {
            // group g's weights [outch_g][inch_g][maxk] -> A rows (o, k), columns c
            const int M = outch_g * maxk;
            const size_t per_group = kernels::packed_a_floats(M, inch_g);
            NF_RETURN_IF_ERROR(fast_alloc(packed_, per_group * this->group));
            std::vector<float> plain;
            NF_RETURN_IF_ERROR(fast_alloc(plain, (size_t)M * inch_g));
            for (int gi = 0; gi < this->group; gi++) {
                const float* wg = this->weight_data.data() + (size_t)gi * outch_g * inch_g * maxk;
                for (int o = 0; o < outch_g; o++)
                    for (int c = 0; c < inch_g; c++)
                        for (int k = 0; k < maxk; k++)
                            plain[((size_t)o * maxk + k) * inch_g + c] = wg[((size_t)o * inch_g + c) * maxk + k];
                kernels::f32_pack_a(M, inch_g, plain.data(), (size_t)inch_g, 1, packed_.data() + gi * per_group);
            }
            fast_release(this->weight_data);
        }
        return Status::ok();
    }

    Status forward_packed(const Mat& bottom, Mat& top, const Option& opt) const override {
        Shape os;
        DeconvGeometry g;
        NF_RETURN_IF_ERROR(this->output_shape(bottom.shape(), os, &g));
        Planes in;
        NF_RETURN_IF_ERROR(conv_input_planes(bottom.shape(), this->type.c_str(), in));
        const bool cut = g.cut.any();
        Mat full;
        NF_RETURN_IF_ERROR(full.create(Shape::d3(g.full_w, g.full_h, this->num_output),
                                       cut ? opt.workspace_allocator : opt.blob_allocator));
        const size_t in_plane = (size_t)in.w * in.h, out_plane = (size_t)g.full_w * g.full_h;
        parallel_for(this->num_output, parallel_grain((int64_t)out_plane), [&](int64_t o0, int64_t o1) {
            for (int64_t o = o0; o < o1; o++)
                std::fill(full.data + o * out_plane, full.data + (o + 1) * out_plane,
                          this->bias_term ? this->bias_data[o] : 0.f);
        });
        kernels::DeconvWindow win;
        win.in_w = in.w;
        win.kernel_w = this->kernel_w;
        win.kernel_h = this->kernel_h;
        win.stride_w = this->stride_w;
        win.stride_h = this->stride_h;
        win.dilation_w = this->dilation_w;
        win.dilation_h = this->dilation_h;
        win.out_w = g.full_w;
        const int maxk = this->kernel_w * this->kernel_h;

        if (depthwise_) {
            // threads: channels
            parallel_for(this->num_output, parallel_grain((int64_t)in_plane * maxk), [&](int64_t q0, int64_t q1) {
                for (int64_t q = q0; q < q1; q++)
                    kernels::f32_deconvdw_plane(bottom.data + q * in_plane, in.h,
                                                this->weight_data.data() + (size_t)q * maxk, win,
                                                full.data + q * out_plane);
            });
        } else {
            const int inch_g = this->num_input() / this->group, outch_g = this->num_output / this->group;
            const int M = outch_g * maxk, npix = in.w * in.h;
            const size_t per_group = kernels::packed_a_floats(M, inch_g);
            // input pixels per block: the col block (M x nb) about 1 M floats
            int nb = (int)std::min<size_t>((size_t)npix, std::max<size_t>(8, ((size_t)1 << 20) / (size_t)M));
            // threads: inside each block's GEMM, then output channels for col2im (each output pixel
            // gets its blocks' contributions in block order, then (o, k) order, whatever the split)
            const int parts = kernels::f32_gemm_parts(M, nb, inch_g);
            Mat ws;
            NF_RETURN_IF_ERROR(fast_workspace(
                (size_t)M * nb + kernels::f32_gemm_workspace_floats(nb, inch_g, kernels::GemmB::Strided, parts), opt,
                ws));
            float* col = ws.data;
            float* gemm_ws = ws.data + (size_t)M * nb;
            const kernels::GemmEpilogue plain;
            for (int gi = 0; gi < this->group; gi++) {
                for (int p0 = 0; p0 < npix; p0 += nb) {
                    const int n = std::min(nb, npix - p0);
                    kernels::GemmB b;
                    b.kind = kernels::GemmB::Strided;
                    b.data = bottom.data + (size_t)gi * inch_g * in_plane + p0;
                    b.rs = in_plane;
                    b.cs = 1;
                    kernels::f32_gemm(M, n, inch_g, packed_.data() + gi * per_group, b, col, (size_t)n, plain, false,
                                      gemm_ws, parts);
                    parallel_for(outch_g, parallel_grain((int64_t)maxk * n), [&](int64_t o0, int64_t o1) {
                        for (int64_t o = o0; o < o1; o++)
                            kernels::f32_col2im_add(col + (size_t)o * maxk * n, (size_t)n, p0, n, win,
                                                    full.data + (size_t)(gi * outch_g + o) * out_plane);
                    });
                }
                NF_RETURN_IF_ERROR(fast_cancelled(opt));
            }
        }
        kernels::f32_act_inplace_parallel(full.data, out_plane * this->num_output, fast_act(this->activation));
        NF_RETURN_IF_ERROR(fast_cancelled(opt));
        if (!cut) {
            top = full;
            return Status::ok();
        }
        return cut_border(full, top, g.cut, opt.blob_allocator);
    }

private:
    bool depthwise_ = false;
    std::vector<float> packed_;  // grouped: per group, A panels of (outch_g * maxk) x inch_g
};

}  // namespace nnfold
