// Pooling_fast: Pooling (layers/pooling.cpp) with the row-vectorized kernels of kernels/pooling.h
// for global max/avg pooling and the common windows (2x2 and 3x3 at stride 1 and 2, max and avg,
// any pads and pad mode). The border is the reference's (-FLT_MAX for max, 0 for avg),
// applied virtually by the kernels instead of copied; an average without count_include_pad divides by the number of window cells inside the
// pad params and the full-mode tail, per output row and column, as the reference counts them.
// Adaptive pooling and other windows run the reference forward.
#include <algorithm>
#include <cfloat>

#include "core/parallel.h"
#include "kernels/pooling.h"
#include "layers/pooling.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Pooling_fast : public Pooling {
public:
    using Pooling::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override;
};

namespace {

// Window cells of [i * stride, i * stride + kernel) inside [first, end), for each output index.
std::vector<int> inside_counts(int n, int kernel, int stride, int first, int end) {
    std::vector<int> c((size_t)n);
    for (int i = 0; i < n; i++) {
        int lo = std::max(i * stride, first), hi = std::min(i * stride + kernel, end);
        c[(size_t)i] = std::max(hi - lo, 0);
    }
    return c;
}

using WindowKernel = void (*)(const kernels::PoolPlane&);

// The square-window kernel for (is_max, k, s), looked up in the kernel list's columns
// (kernels/pooling.h NNFOLD_POOL_WINDOW_KERNELS); nullptr for a window the list has no kernel for.
WindowKernel window_kernel(bool is_max, int k, int s) {
#define NF_POOL_PICK(ret, name, params, args, max_, K, S) \
    if (is_max == (max_) && k == (K) && s == (S))         \
        return kernels::name;
    NNFOLD_POOL_WINDOW_KERNELS(NF_POOL_PICK)
#undef NF_POOL_PICK
    return nullptr;
}

}  // namespace

Status Pooling_fast::forward(const Mat& bottom, Mat& top, const Option& opt) const {
    if (adaptive_pooling || bottom.elempack != 1)
        return Pooling::forward(bottom, top, opt);
    const Shape in = bottom.shape();
    Planes p;
    NF_RETURN_IF_ERROR(conv_input_planes(in, "Pooling", p));
    const size_t plane = (size_t)p.w * p.h;

    if (global_pooling) {
        NF_RETURN_IF_ERROR(top.create(Shape::d1(p.c), opt.blob_allocator));
        // threads: channels (each channel's reduction stays on one thread, in one order)
        parallel_for(p.c, parallel_grain((int64_t)plane), [&](int64_t q0, int64_t q1) {
            for (int64_t q = q0; q < q1; q++) {
                const float* ptr = bottom.data + q * plane;
                top.data[q] = pooling_type == kMax ? kernels::f32_global_maxpool(ptr, plane)
                                                   : kernels::f32_global_avgpool(ptr, plane);
            }
        });
        return Status::ok();
    }

    const bool square = kernel_w == kernel_h && stride_w == stride_h;
    const int k = kernel_w, s = stride_w;
    const bool fast_window = square && (k == 2 || k == 3) && (s == 1 || s == 2);
    // SAME modes with non-zero pad params count cells by the pad params, which need not be the
    // border the window sees (a reference quirk kept exactly): leave that to the reference
    const bool counts_match = pooling_type == kMax || avgpool_count_include_pad || pad_mode == 0 || pad_mode == 1 ||
                              (pad_left == 0 && pad_right == 0 && pad_top == 0 && pad_bottom == 0);
    if (!fast_window || !counts_match)
        return Pooling::forward(bottom, top, opt);

    Geometry g;
    NF_RETURN_IF_ERROR(geometry(in, g));
    NF_RETURN_IF_ERROR(top.create(Shape::d3(g.out_w, g.out_h, p.c), opt.blob_allocator));
    // the reference's border value, applied virtually through a ring of padded rows (no border copy)
    const float border = pooling_type == kMax ? -FLT_MAX : 0.f;
    const kernels::WindowGeometry win =
        fast_window_geometry(p.w, p.h, g.border.left, g.border.top, border, g.out_w, g.out_h, k, k, s, s);
    const size_t oplane = (size_t)g.out_w * g.out_h;
    // threads: channels, each part with its own row ring
    const int parts = parallel_part_count(p.c, (int64_t)oplane * k * k);
    const size_t scratch_floats = kernels::f32_pool_scratch_floats(win);
    Mat scratch;
    NF_RETURN_IF_ERROR(fast_workspace(scratch_floats * parts, opt, scratch));
    std::vector<int> row_count, col_count;
    const bool by_counts = pooling_type == kAvg && !avgpool_count_include_pad;
    if (by_counts) {
        row_count = inside_counts(g.out_h, k, s, g.first_y, g.end_y);
        col_count = inside_counts(g.out_w, k, s, g.first_x, g.end_x);
        col_count.resize(((size_t)g.out_w + 3) / 4 * 4, 0);  // the kernels read whole vectors
    }
    const WindowKernel kernel = window_kernel(pooling_type == kMax, k, s);  // fast_window: one exists
    parallel_for_slots(p.c, parallel_piece_count(p.c, parts), parts, [&](int slot, int64_t q0, int64_t q1) {
        for (int64_t q = q0; q < q1; q++) {
            kernels::PoolPlane pp;
            pp.win = win;
            pp.win.src = bottom.data + q * plane;
            pp.dst = top.data + q * oplane;
            pp.scratch = scratch.data + scratch_floats * slot;
            if (by_counts) {
                pp.row_count = row_count.data();
                pp.col_count = col_count.data();
            }
            kernel(pp);
        }
    });
    return fast_cancelled(opt);
}

NF_DEFINE_OPTIMIZED_LAYER(Pooling, Pooling_fast)

}  // namespace nnfold
