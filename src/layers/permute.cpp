// Permute (ncnn src/layer/permute.cpp). Param 0 order_type (default 0). No weights.
// ncnn names each order by the input axes that become the output's axes, innermost first: for a
// 3D input "3 = c w h" means output w = input c, output h = input w, output c = input h (Caffe's
// permute (0,2,3,1), NCHW -> NHWC, as in mobilenet_ssd). The output keeps the input's dims.
//   2D: 0 = w h, 1 = h w (transpose)
//   3D: 0 = w h c, 1 = h w c, 2 = w c h, 3 = c w h, 4 = h c w, 5 = c h w
//   4D: 0 = w h d c, 1 = h w d c, 2 = w d h c, 3 = d w h c, 4 = h d w c, 5 = d h w c,
//       6 = w h c d, 7 = h w c d, 8 = w c h d, 9 = c w h d, 10 = h c w d, 11 = c h w d,
//       12 = w d c h, 13 = d w c h, 14 = w c d h, 15 = c w d h, 16 = d c w h, 17 = c d w h,
//       18 = h d c w, 19 = d h c w, 20 = h c d w, 21 = c h d w, 22 = d c h w, 23 = c d h w
// A 1D input or order 0 is returned as is (shared). An order a given dims does not define is an
// error (ncnn produces nothing there).
#include "core/permute_order.h"
#include "layers/param_table.h"

namespace nnfold {

class Permute : public Layer {
public:
    Permute() { one_blob_only = true; }
    int order_type = 0;

    NF_PARAM_TABLE(Permute, NF_PARAM(0, order_type))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (order_type < 0 || order_type > 23)
            return invalid_model("Permute order_type (param 0) must be in 0..23, got " + std::to_string(order_type));
        return Status::ok();
    }

    // The permutation for this input, innermost first over `n` axes (n = dims, 1D/2D included).
    Status perm(const Shape& s, int p[4], int& n) const {
        n = s.dims;
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("Permute needs a 1D-4D input, got " + s.str());
        if (permute_order(s.dims, order_type, p))
            return Status::ok();
        return shape_mismatch("Permute order_type " + std::to_string(order_type) + " is not defined for " +
                              std::to_string(s.dims) + "D input " + s.str() + " (1D: 0, 2D: 0-1, 3D: 0-5, 4D: 0-23)");
    }

    // Extents innermost first: w, h, then c (3D) or d, c (4D).
    static void extents(const Shape& s, int e[4]) {
        e[0] = s.w;
        e[1] = s.h;
        e[2] = s.dims == 4 ? s.d : s.c;
        e[3] = s.dims == 4 ? s.c : 1;
    }

    static Shape make(int dims, const int e[4]) {
        switch (dims) {
        case 1: return Shape::d1(e[0]);
        case 2: return Shape::d2(e[0], e[1]);
        case 3: return Shape::d3(e[0], e[1], e[2]);
        default: return Shape::d4(e[0], e[1], e[2], e[3]);
        }
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("Permute takes one input, got " + std::to_string(bottoms.size()));
        int p[4], n;
        NF_RETURN_IF_ERROR(perm(bottoms[0], p, n));
        int e[4], o[4] = {1, 1, 1, 1};
        extents(bottoms[0], e);
        for (int k = 0; k < n; k++)
            o[k] = e[p[k]];
        tops.assign(1, make(n, o));
        return Status::ok();
    }

    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        int p[4], n;
        NF_RETURN_IF_ERROR(perm(s, p, n));
        bool identity = true;
        for (int k = 0; k < n; k++)
            identity = identity && p[k] == k;
        if (identity) {
            top = bottom;
            return Status::ok();
        }
        int e[4], o[4] = {1, 1, 1, 1};
        extents(s, e);
        for (int k = 0; k < n; k++)
            o[k] = e[p[k]];
        // input strides innermost first; the output is walked in order and reads the input axis
        // each output axis comes from
        size_t stride[4] = {1, (size_t)e[0], (size_t)e[0] * e[1], (size_t)e[0] * e[1] * e[2]};
        size_t is[4] = {0, 0, 0, 0};
        for (int k = 0; k < n; k++)
            is[k] = stride[p[k]];
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(make(n, o), opt.blob_allocator));
        float* dp = dst.data;
        const float* sp = bottom.data;
        for (int i3 = 0; i3 < o[3]; i3++)
            for (int i2 = 0; i2 < o[2]; i2++)
                for (int i1 = 0; i1 < o[1]; i1++) {
                    const float* row = sp + i3 * is[3] + i2 * is[2] + i1 * is[1];
                    for (int i0 = 0; i0 < o[0]; i0++)
                        *dp++ = row[i0 * is[0]];
                }
        top = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Permute)

}  // namespace nnfold
