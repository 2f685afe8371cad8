// Shared pieces of the optimized layers (src/layers/wasm/*_fast.cpp): workspace buffers from the
// workspace allocator, weight buffers allocated without throwing, and the kernels' view of a fused
// activation.
#pragma once

#include <algorithm>
#include <climits>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/mat.h"
#include "kernels/activation.h"
#include "kernels/elementwise_parallel.h"
#include "kernels/gemm.h"
#include "kernels/window.h"
#include "layers/fused_activation.h"
#include "layers/layer.h"

namespace nnfold {

// `floats` scratch floats as a 1D Mat from opt.workspace_allocator (size-checked there).
inline Status fast_workspace(size_t floats, const Option& opt, Mat& m) {
    if (floats == 0)
        floats = 1;
    if (floats > (size_t)INT_MAX)
        return resource_limit("a workspace of " + std::to_string(floats) + " floats is too large");
    return m.create(Shape::d1((int)floats), opt.workspace_allocator);
}

// Resizes a weight buffer, turning allocation failure into an error value.
inline Status fast_alloc(std::vector<float>& v, size_t floats) {
    try {
        v.assign(floats, 0.f);
    } catch (const std::bad_alloc&) {
        return resource_limit("out of memory repacking " + std::to_string(floats) + " weights");
    } catch (const std::length_error&) {
        return resource_limit("cannot repack " + std::to_string(floats) + " weights");
    }
    return Status::ok();
}

// Allocates `dst` and packs `groups` M x K matrices into it in the GEMM's A layout
// (kernels::f32_pack_a): group g reads A[i][k] = a[g * group_stride + i * rs + k * cs] and its
// panels start at g * packed_a_floats(M, K). Weights are packed once, in create_pipeline.
inline Status fast_pack_a(std::vector<float>& dst, int M, int K, const float* a, size_t rs, size_t cs, int groups = 1,
                          size_t group_stride = 0) {
    const size_t per_group = kernels::packed_a_floats(M, K);
    NF_RETURN_IF_ERROR(fast_alloc(dst, per_group * groups));
    for (int g = 0; g < groups; g++)
        kernels::f32_pack_a(M, K, a + g * group_stride, rs, cs, dst.data() + g * per_group);
    return Status::ok();
}

// Allocates `dst` and packs the K x N matrix B[k][j] = b[k * rs + j * cs] in the GEMM's B layout.
inline Status fast_pack_b(std::vector<float>& dst, int K, int N, const float* b, size_t rs, size_t cs) {
    NF_RETURN_IF_ERROR(fast_alloc(dst, kernels::packed_b_floats(K, N)));
    kernels::f32_pack_b(K, N, b, rs, cs, dst.data());
    return Status::ok();
}

// The window kernels' view (kernels/window.h) of a w x h plane slid over by a square-or-not window
// with the given stride and dilation, its border (pad_left, pad_top; right and bottom follow from
// the output size) filled virtually with pad_value. src is set per plane by the caller.
inline kernels::WindowGeometry fast_window_geometry(int in_w, int in_h, int pad_left, int pad_top, float pad_value,
                                                    int out_w, int out_h, int kernel_w, int kernel_h, int stride_w,
                                                    int stride_h, int dilation_w = 1, int dilation_h = 1) {
    return {nullptr, in_w, in_h, pad_left, pad_top, pad_value, out_w, out_h,
            kernel_w, kernel_h, stride_w, stride_h, dilation_w, dilation_h};
}

// The optimized layers compute on planar blobs only.
inline Status fast_planar(const Mat& m, const std::string& type) {
    if (m.elempack != 1)
        return internal_error(type + " needs a planar (elempack 1) input");
    return Status::ok();
}

inline kernels::ActParams fast_act(const FusedActivation& a) { return kernels::make_act(a.type, a.p0, a.p1); }

inline Status fast_cancelled(const Option& opt) {
    if (opt.cancel && *opt.cancel)
        return Status(ErrorCode::Cancelled, "cancelled");
    return Status::ok();
}

// The kernels' view of a fused residual's activation.
inline kernels::ActParams fast_residual_act(const FusedResidual& r) {
    return kernels::make_act(r.act_type, r.act_p0, r.act_p1);
}

// Applies Option::residual (if set) to a whole output in one pass: for the paths that do not fuse
// it into their stores. The output and the residual are dense planar blobs of the same shape, or
// the residual covers only the first `channels` channels and the rest add +0.f.
inline void fast_apply_residual(Mat& top, const Option& opt) {
    if (!opt.residual)
        return;
    const kernels::ActParams act = fast_residual_act(*opt.residual);
    const size_t total = top.total_floats();
    const size_t covered = opt.residual->channels < 0 || top.dims != 3 || top.elempack != 1
                               ? total
                               : std::min(total, (size_t)opt.residual->channels * top.cstep);
    kernels::f32_add_act_inplace_parallel(top.data, opt.residual->data, covered, act);
    static const float zeros[64] = {};
    for (size_t i = covered; i < total; i += 64)
        kernels::f32_add_act_inplace(top.data + i, zeros, std::min<size_t>(64, total - i), act);
}

// An optimized elementwise layer (Sigmoid_fast, Swish_fast, GELU_fast): Base's params and
// reference loop, with Kernel(layer, data, count) run over the blob in place when it is unpacked
// (elempack 1); packed blobs take Base's loop.
template <class Base, void (*Kernel)(const Base&, float*, size_t)>
class UnaryFast : public Base {
public:
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (m.elempack != 1)
            return Base::forward_inplace(m, opt);
        Kernel(*this, m.data, m.total_floats());
        return Status::ok();
    }
};

// The frame of the optimized weighted layers (Convolution_fast, ConvolutionDepthWise_fast,
// InnerProduct_fast, and DeconvolutionFastImpl for the two deconvolutions): create_pipeline
// repacks once the reference has loaded usable weights (WeightedLayer::weights_ready: fp32, not
// dynamic); until then forward is the reference's. The packed path takes planar inputs only.
template <class Ref>
class PackedWeightedFast : public Ref {
public:
    Status create_pipeline(const Option& opt) override {
        NF_RETURN_IF_ERROR(Ref::create_pipeline(opt));
        if (!this->weights_ready())
            return Status::ok();
        NF_RETURN_IF_ERROR(pack());
        ready_ = true;
        return Status::ok();
    }
    using Ref::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        if (!ready_) {
            NF_RETURN_IF_ERROR(Ref::forward(bottom, top, opt));
            fast_apply_residual(top, opt);  // the runtime fuses only when packed_ready(); kept honest
            return Status::ok();
        }
        NF_RETURN_IF_ERROR(fast_planar(bottom, this->type));
        return forward_packed(bottom, top, opt);
    }

protected:
    // True once the weights are repacked (forward runs forward_packed).
    bool packed_ready() const { return ready_; }
    // Repacks weight_data (and may release it).
    virtual Status pack() = 0;
    // forward on the packed weights; `bottom` is planar.
    virtual Status forward_packed(const Mat& bottom, Mat& top, const Option& opt) const = 0;

private:
    bool ready_ = false;
};

// Frees a vector's memory (the optimized layers keep only their repacked weights).
inline void fast_release(std::vector<float>& v) { std::vector<float>().swap(v); }

}  // namespace nnfold
