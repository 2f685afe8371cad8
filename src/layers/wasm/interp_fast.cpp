// Interp_fast: Interp (layers/interp.h) on 3D planar blobs, the reference's values:
//   - nearest: the source column of every output column computed once per forward (not per row),
//     and an output row whose source row is the previous row's a copy of it (a 2x upsample computes
//     half its rows);
//   - bilinear: the horizontal pass as the reference, the vertical pass (two rows weighted and
//     added: a * w0 + b * w1, the reference's operations) by kernels::f32_axpby, four values per
//     f32x4.
// Channels are split across threads as in the reference. Other cases (1D/2D inputs, bicubic,
// packed blobs, the same size) take the reference's forward.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "kernels/binary.h"
#include "layers/interp.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Interp_fast : public Interp {
public:
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        using namespace interp_detail;
        if (bottoms.empty() || bottoms[0].elempack != 1 || bottoms[0].dims != 3 ||
            (resize_type != 1 && resize_type != 2))
            return Interp::forward(bottoms, tops, opt);
        const std::vector<Shape> shapes = shapes_of(bottoms);
        Shape os;
        int outw, outh;
        NF_RETURN_IF_ERROR(output_shape(shapes, os, outw, outh));
        if (os == shapes[0])
            return Interp::forward(bottoms, tops, opt);
        tops.resize(1);
        const Mat& src = bottoms[0];
        Mat& dst = tops[0];
        NF_RETURN_IF_ERROR(dst.create(os, opt.blob_allocator));
        const int w = src.w, h = src.h, channels = src.c;
        const size_t iplane = (size_t)w * h, oplane = (size_t)outw * outh;

        if (resize_type == 1) {
            const float ws = output_width ? w / (float)outw : 1.f / width_scale;
            const float hs = output_height ? h / (float)outh : 1.f / height_scale;
            Mat xi_m;
            NF_RETURN_IF_ERROR(fast_workspace((size_t)outw, opt, xi_m));
            int* xi = reinterpret_cast<int*>(xi_m.data);  // a float-sized slot per column
            for (int x = 0; x < outw; x++)
                xi[x] = nearest_index(x * ws, w);
            // threads: channels
            parallel_for(channels, parallel_grain((int64_t)oplane), [&](int64_t q0, int64_t q1) {
                for (int64_t q = q0; q < q1; q++) {
                    const float* sp = src.data + q * iplane;
                    float* dp = dst.data + q * oplane;
                    int prev = -1;
                    for (int y = 0; y < outh; y++, dp += outw) {
                        const int sy = nearest_index(y * hs, h);
                        if (sy == prev) {
                            std::memcpy(dp, dp - outw, sizeof(float) * (size_t)outw);
                            continue;
                        }
                        const float* row = sp + (size_t)sy * w;
                        for (int x = 0; x < outw; x++)
                            dp[x] = row[xi[x]];
                        prev = sy;
                    }
                }
            });
            return Status::ok();
        }

        bool ok = true;
        const Taps tx = make_taps(2, w, outw, align_corner, ok);
        const Taps ty = make_taps(2, h, outh, align_corner, ok);
        if (!ok)
            return unsupported("Interp: this resize reads outside the input in ncnn");
        // threads: channels, each part with its own row buffer (the workspace, counted)
        const size_t rows_floats = (size_t)h * outw;
        const int parts = parallel_part_count(channels, (int64_t)(rows_floats + oplane) * 4);
        Mat ws_m;
        NF_RETURN_IF_ERROR(fast_workspace(rows_floats * (size_t)parts, opt, ws_m));
        const int64_t pieces = parallel_piece_count(channels, parts);
        parallel_for_slots(channels, pieces, parts, [&](int slot, int64_t q0, int64_t q1) {
            float* rows = ws_m.data + rows_floats * (size_t)slot;
            for (int64_t q = q0; q < q1; q++) {
                const float* sp = src.data + q * iplane;
                float* dp = dst.data + q * oplane;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < outw; x++)
                        rows[(size_t)y * outw + x] = apply_taps(tx, x, sp + (size_t)y * w, 1);
                for (int y = 0; y < outh; y++) {
                    const int* iy = &ty.index[(size_t)y * 2];
                    const float* wy = &ty.weight[(size_t)y * 2];
                    kernels::f32_axpby(rows + (size_t)iy[0] * outw, wy[0], rows + (size_t)iy[1] * outw, wy[1],
                                       dp + (size_t)y * outw, (size_t)outw);
                }
            }
        });
        return Status::ok();
    }
};

NF_DEFINE_OPTIMIZED_LAYER(Interp, Interp_fast)

}  // namespace nnfold
