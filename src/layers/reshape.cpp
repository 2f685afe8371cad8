// Reshape (ncnn src/layer/reshape.cpp). Params: 0 w, 1 h, 11 d, 2 c (default -233 = not given),
// 3 permute (default 0). No weights.
// The output dims follow ncnn's chain: 4D when d is given, but c not given makes it 2D, h not
// given 1D (so d without c is ignored, as in ncnn). Per output extent: 0 = the input's extent of
// the same name (w from w, h from h, ...), -1 = inferred from the element count (at most one),
// otherwise the value. The element count must not change.
// permute=1 (older converters): reshape in channel-last order, as TensorFlow/Caffe flatten do: a
// 2D input is read transposed (w h -> h w), a 3D input as h, w, c (c innermost); the result is
// laid out the same way and turned back (2D transposed, 3D from h, w, c to c, h, w). ncnn skips
// the permutation when the outermost extent is unchanged (2D -> 2D with the same h, 3D -> 3D with
// the same c). Permute applies to 1D-3D inputs and outputs; current ncnn no longer reads param 3
// at all, so 4D with permute is refused rather than guessed.
// Newer ncnn's shape expressions (param 6) and batch axes (params 12, 13) are not supported.
// Without permute the data is shared, not copied (the tensor is dense: only the labels change).
#include <algorithm>

#include "layers/one_input_layer.h"
#include "layers/param_table.h"

namespace nnfold {

class Reshape : public OneInputLayer {
public:
    int w = -233, h = -233, d = -233, c = -233;
    int permute = 0;
    int ndim = 0;

    NF_PARAM_TABLE(Reshape,
                   NF_PARAM(0, w),
                   NF_PARAM(1, h),
                   NF_PARAM(2, c),
                   NF_PARAM(3, permute),
                   NF_PARAM(11, d))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (!pd.get_string(6, "").empty())
            return unsupported("Reshape shape expressions (param 6) are not supported");
        if (pd.get_int(12, 233) != 233 || pd.get_int(13, 233) != 233)
            return unsupported("Reshape batch axes (params 12, 13) are not supported");
        if (permute != 0 && permute != 1)
            return invalid_model("Reshape permute (param 3) must be 0 or 1, got " + std::to_string(permute));
        ndim = 4;
        if (d == -233)
            ndim = 3;
        if (c == -233)
            ndim = 2;
        if (h == -233)
            ndim = 1;
        if (w == -233)
            ndim = 0;
        if (ndim == 0)
            return invalid_model("Reshape needs at least w (param 0)");
        const int v[4] = {w, h, d, c};
        const char* names[4] = {"w (param 0)", "h (param 1)", "d (param 11)", "c (param 2)"};
        int infer = 0;
        for (int k = 0; k < 4; k++) {
            if (!used(k))
                continue;
            if (v[k] < -1)
                return invalid_model("Reshape " + std::string(names[k]) + " must be positive, 0 (keep) or -1 (infer), got " +
                                     std::to_string(v[k]));
            infer += v[k] == -1;
        }
        if (infer > 1)
            return invalid_model("Reshape can infer only one extent (-1), got " + std::to_string(infer));
        if (permute && ndim == 4)
            return unsupported("Reshape with permute (param 3) to a 4D shape is not defined by ncnn");
        return Status::ok();
    }

    // Whether extent k (0 w, 1 h, 2 d, 3 c) is part of the output.
    bool used(int k) const {
        switch (k) {
        case 0: return ndim >= 1;
        case 1: return ndim >= 2;
        case 2: return ndim == 4;
        default: return ndim >= 3;
        }
    }

    Status out_shape(const Shape& in, Shape& out) const override {
        if (in.dims < 1 || in.dims > 4 || !in.valid())
            return shape_mismatch("Reshape needs a 1D-4D input, got " + in.str());
        if (permute && in.dims == 4)
            return unsupported("Reshape with permute (param 3) of a 4D input is not defined by ncnn");
        const int64_t total = (int64_t)in.total();
        int64_t v[4] = {w, h, d, c};
        const int64_t src[4] = {in.w, in.h, in.d, in.c};
        // product of the given extents, capped just above `total` so it cannot overflow
        int64_t known = 1;
        int inf = -1;
        for (int k = 0; k < 4; k++) {
            if (!used(k)) {
                v[k] = 1;
                continue;
            }
            if (v[k] == 0)
                v[k] = src[k];
            if (v[k] == -1)
                inf = k;
            else
                known = v[k] > (total + 1) / known ? total + 1 : known * v[k];
        }
        if (inf >= 0) {
            if (total % known != 0)
                return shape_mismatch("Reshape cannot infer an extent: the " + std::to_string(total) +
                                      " values of input " + in.str() + " do not divide into the given extents");
            v[inf] = total / known;
            known *= v[inf];
        }
        auto clamp = [](int64_t x) { return (int)std::min<int64_t>(x, INT32_MAX); };
        Shape s;
        switch (ndim) {
        case 1: s = Shape::d1(clamp(v[0])); break;
        case 2: s = Shape::d2(clamp(v[0]), clamp(v[1])); break;
        case 3: s = Shape::d3(clamp(v[0]), clamp(v[1]), clamp(v[3])); break;
        default: s = Shape::d4(clamp(v[0]), clamp(v[1]), clamp(v[2]), clamp(v[3])); break;
        }
        if (known != total)
            return shape_mismatch("Reshape of input " + in.str() + " (" + std::to_string(total) + " values) to " +
                                  s.str() + " changes the element count");
        out = s;
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape in = bottom.shape();
        Shape out;
        NF_RETURN_IF_ERROR(out_shape(in, out));
        bool need_permute = permute == 1;
        if (in.dims == 2 && ndim == 2 && in.h == out.h)
            need_permute = false;
        if (in.dims == 3 && ndim == 3 && in.c == out.c)
            need_permute = false;
        if (!need_permute)
            return bottom.reshape(out, top);

        // input in channel-last order: 2D h w -> w h (transposed), 3D c h w -> h w c
        if (in.total() > (uint64_t)INT32_MAX)
            return resource_limit("Reshape with permute of input " + in.str() + " is too large");
        Mat flat;  // the output itself when the target is 1D
        NF_RETURN_IF_ERROR(
            flat.create(Shape::d1((int)in.total()), ndim == 1 ? opt.blob_allocator : opt.workspace_allocator));
        if (in.dims == 1) {
            std::copy(bottom.data, bottom.data + in.total(), flat.data);
        } else if (in.dims == 2) {
            for (int x = 0; x < in.w; x++)
                for (int y = 0; y < in.h; y++)
                    flat.data[(size_t)x * in.h + y] = bottom.data[(size_t)y * in.w + x];
        } else {
            const size_t plane = (size_t)in.w * in.h;
            for (int y = 0; y < in.h; y++)
                for (int x = 0; x < in.w; x++)
                    for (int q = 0; q < in.c; q++)
                        flat.data[((size_t)y * in.w + x) * in.c + q] = bottom.data[q * plane + (size_t)y * in.w + x];
        }
        if (ndim == 1) {
            top = flat;
            return Status::ok();
        }
        // the flat sequence read as the output in channel-last order, turned back
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(out, opt.blob_allocator));
        if (ndim == 2) {
            // flat holds [w][h]
            for (int y = 0; y < out.h; y++)
                for (int x = 0; x < out.w; x++)
                    dst.data[(size_t)y * out.w + x] = flat.data[(size_t)x * out.h + y];
        } else {
            // flat holds [h][w][c]
            const size_t plane = (size_t)out.w * out.h;
            for (int q = 0; q < out.c; q++)
                for (int y = 0; y < out.h; y++)
                    for (int x = 0; x < out.w; x++)
                        dst.data[q * plane + (size_t)y * out.w + x] = flat.data[((size_t)y * out.w + x) * out.c + q];
        }
        top = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Reshape)

}  // namespace nnfold
