// Padding (ncnn src/layer/padding.cpp). Params: 0 top, 1 bottom, 2 left, 3 right, 4 type
// (0 constant, 1 replicate, 2 reflect), 5 value (float), 6 per_channel_pad_data_size, 7 front,
// 8 behind (all default 0). Weights: per_channel_pad_data [per_channel_pad_data_size] (raw).
// Shapes: 1D pads w only; 2D pads h, w; 3D pads c (front/behind), h, w; 4D pads d (front/behind),
// h, w. Constant padding uses `value`, or per_channel_pad_data[q] when it is given: for 3D, q is
// the output channel (so the array covers the padded channels too), for 4D the channel.
// Reflect mirrors without repeating the edge (ncnn, numpy "reflect"), so each reflected pad must
// be smaller than its dimension. Pads of -233 (or -234) on all four sides mean ncnn takes them
// from a second input blob at run time: read and written, not run.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "layers/param_table.h"

namespace nnfold {

class Padding : public Layer {
public:
    Padding() { one_blob_only = true; }

    int top = 0, bottom = 0, left = 0, right = 0, front = 0, behind = 0;
    int type = 0;
    float value = 0.f;
    int per_channel_pad_data_size = 0;
    std::vector<float> per_channel_pad_data;
    bool dynamic = false;

    NF_PARAM_TABLE(Padding,
                   NF_PARAM(0, top),
                   NF_PARAM(1, bottom),
                   NF_PARAM(2, left),
                   NF_PARAM(3, right),
                   NF_PARAM(4, type),
                   NF_PARAM(5, value),
                   NF_PARAM(6, per_channel_pad_data_size),
                   NF_PARAM(7, front),
                   NF_PARAM(8, behind))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        dynamic = (top == -233 && bottom == -233 && left == -233 && right == -233) ||
                  (top == -234 && bottom == -234 && left == -234 && right == -234);
        one_blob_only = !dynamic;
        if (type < 0 || type > 2)
            return invalid_model("type (param 4) must be 0 (constant), 1 (replicate) or 2 (reflect), got " +
                                 std::to_string(type));
        if (per_channel_pad_data_size < 0)
            return invalid_model("per_channel_pad_data_size (param 6) must be >= 0");
        if (!dynamic && (top < 0 || bottom < 0 || left < 0 || right < 0))
            return invalid_model("pads (params 0-3) must be >= 0, got top " + std::to_string(top) + " bottom " +
                                 std::to_string(bottom) + " left " + std::to_string(left) + " right " +
                                 std::to_string(right));
        if (front < 0 || behind < 0)
            return invalid_model("front/behind (params 7/8) must be >= 0");
        return Status::ok();
    }

    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        if (per_channel_pad_data_size > 0)
            specs.push_back({"per_channel_pad_data", (uint64_t)per_channel_pad_data_size, false, WeightRole::Data, 1});
        return Status::ok();
    }

    Status load_model(const std::vector<WeightArray>& w) override {
        if (per_channel_pad_data_size > 0) {
            if (w.empty())
                return internal_error("Padding: missing per_channel_pad_data");
            per_channel_pad_data = w[0].data;
        }
        return Status::ok();
    }

    bool identity() const { return !top && !bottom && !left && !right && !front && !behind; }

    Status output_shape(const Shape& in, Shape& out) const {
        if (dynamic)
            return unsupported("Padding with pads from a second input blob (pads -233/-234) is not supported");
        if (in.dims < 1 || in.dims > 4)
            return shape_mismatch("Padding needs a 1D-4D input, got " + in.str());
        if (identity()) {
            out = in;
            return Status::ok();
        }
        auto grow = [](int v, int a, int b, int& o) {
            int64_t r = (int64_t)v + a + b;
            if (r > INT32_MAX)
                return false;
            o = (int)r;
            return true;
        };
        out = in;
        bool ok = grow(in.w, left, right, out.w);
        if (in.dims >= 2)
            ok = ok && grow(in.h, top, bottom, out.h);
        if (in.dims == 3)
            ok = ok && grow(in.c, front, behind, out.c);
        if (in.dims == 4)
            ok = ok && grow(in.d, front, behind, out.d);
        if (!ok)
            return shape_mismatch("padded shape is too large");
        if (type == 2) {
            auto check = [&](int size, int a, int b, const char* what) -> Status {
                if (a >= size || b >= size)
                    return shape_mismatch(std::string("reflect padding of ") + what + " needs pads smaller than " +
                                          std::to_string(size) + " (input " + in.str() + ")");
                return Status::ok();
            };
            NF_RETURN_IF_ERROR(check(in.w, left, right, "w"));
            if (in.dims >= 2)
                NF_RETURN_IF_ERROR(check(in.h, top, bottom, "h"));
            if (in.dims == 3)
                NF_RETURN_IF_ERROR(check(in.c, front, behind, "c"));
            if (in.dims == 4)
                NF_RETURN_IF_ERROR(check(in.d, front, behind, "d"));
        }
        if (type == 0 && per_channel_pad_data_size > 0) {
            int need = in.dims == 3 ? out.c : in.dims == 4 ? in.c : 0;
            if (per_channel_pad_data_size < need)
                return shape_mismatch("per_channel_pad_data has " + std::to_string(per_channel_pad_data_size) +
                                      " values, the padded output has " + std::to_string(need) + " channels");
        }
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return dynamic ? unsupported("Padding with pads from a second input blob (pads -233/-234) is not supported")
                           : shape_mismatch("Padding takes one input, got " + std::to_string(bottoms.size()));
        tops.resize(1);
        return output_shape(bottoms[0], tops[0]);
    }

    // Source index for output index i along a dimension of `size` padded by `before`; -1 = constant.
    int map_index(int i, int before, int size) const {
        int s = i - before;
        if (s >= 0 && s < size)
            return s;
        if (type == 0)
            return -1;
        if (type == 1)
            return s < 0 ? 0 : size - 1;
        return s < 0 ? -s : 2 * (size - 1) - s;  // reflect without the edge
    }

    // One plane (h x w -> oh x ow).
    void pad_plane(const float* src, int w, int h, float* dst, int ow, int oh, float v) const {
        for (int y = 0; y < oh; y++) {
            int sy = map_index(y, top, h);
            float* drow = dst + (size_t)y * ow;
            if (sy < 0) {
                for (int x = 0; x < ow; x++)
                    drow[x] = v;
                continue;
            }
            const float* srow = src + (size_t)sy * w;
            // the columns inside the input are one contiguous copy (a channel-only pad, as in
            // BlazeFace's residuals, copies whole rows); only the border columns are mapped
            const int x0 = std::max(0, std::min(left, ow)), x1 = std::max(x0, std::min(left + w, ow));
            for (int x = 0; x < x0; x++) {
                int sx = map_index(x, left, w);
                drow[x] = sx < 0 ? v : srow[sx];
            }
            if (x1 > x0)
                std::memcpy(drow + x0, srow + (x0 - left), sizeof(float) * (size_t)(x1 - x0));
            for (int x = x1; x < ow; x++) {
                int sx = map_index(x, left, w);
                drow[x] = sx < 0 ? v : srow[sx];
            }
        }
    }

    Status forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override {
        const Shape in = bottom_blob.shape();
        Shape os;
        NF_RETURN_IF_ERROR(output_shape(in, os));
        if (identity()) {
            top_blob = bottom_blob;  // ncnn returns the input blob itself
            return Status::ok();
        }
        NF_RETURN_IF_ERROR(top_blob.create(os, opt.blob_allocator));
        const int w = in.w, h = in.h, ow = os.w, oh = os.h;
        const size_t iplane = (size_t)w * h, oplane = (size_t)ow * oh;
        const bool per_channel = type == 0 && per_channel_pad_data_size > 0;
        if (in.dims == 1) {
            // ncnn pads a 1D blob along w only, with `value`
            for (int x = 0; x < ow; x++) {
                int sx = map_index(x, left, w);
                top_blob.data[x] = sx < 0 ? value : bottom_blob.data[sx];
            }
            return Status::ok();
        }
        if (in.dims == 2) {
            pad_plane(bottom_blob.data, w, h, top_blob.data, ow, oh, value);
            return Status::ok();
        }
        if (in.dims == 3) {
            // threads: output channels (copies; BlazeFace pads the channels of every residual)
            parallel_for(os.c, parallel_grain((int64_t)oplane), [&](int64_t q0, int64_t q1) {
                for (int q = (int)q0; q < q1; q++) {
                    const float v = per_channel ? per_channel_pad_data[q] : value;
                    float* dst = top_blob.data + q * oplane;
                    int sq = map_index(q, front, in.c);
                    if (sq < 0) {
                        for (size_t i = 0; i < oplane; i++)
                            dst[i] = v;
                        continue;
                    }
                    pad_plane(bottom_blob.data + sq * iplane, w, h, dst, ow, oh, v);
                }
            });
            return Status::ok();
        }
        for (int q = 0; q < in.c; q++) {
            const float v = per_channel ? per_channel_pad_data[q] : value;
            for (int z = 0; z < os.d; z++) {
                float* dst = top_blob.data + ((size_t)q * os.d + z) * oplane;
                int sz = map_index(z, front, in.d);
                if (sz < 0) {
                    for (size_t i = 0; i < oplane; i++)
                        dst[i] = v;
                    continue;
                }
                pad_plane(bottom_blob.data + ((size_t)q * in.d + sz) * iplane, w, h, dst, ow, oh, v);
            }
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Padding)

}  // namespace nnfold
