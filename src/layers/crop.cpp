// Crop (ncnn src/layer/crop.cpp). Params: 0 woffset, 1 hoffset, 13 doffset, 2 coffset, 3 outw,
// 4 outh, 14 outd, 5 outc, 6 woffset2, 7 hoffset2, 15 doffset2, 8 coffset2, 9 starts, 10 ends,
// 11 axes (arrays); all default 0. No weights. Three forms, in ncnn's order of precedence:
//  - starts and ends given (numpy-style slice, ONNX Slice): for each listed axis (default all,
//    negative counts from the end; axes are c,h,w for 3D, c,d,h,w for 4D, h,w for 2D), offset =
//    start (negative: size + start; -233: 0) and extent = min(size, end > 0 ? end : size + end) -
//    offset (end -233: size). Note ncnn's end 0 means size + 0, i.e. to the end.
//  - otherwise, any of outw/outh/outd/outc/woffset2/hoffset2/doffset2/coffset2 set: one input;
//    per dimension extent = size - offset - offset2, capped by out* unless out* is -233 (an out* of
//    0 gives an empty crop, which ncnn fails on).
//  - otherwise two inputs: the second (reference) blob gives the extents (its w, h, d; its c only
//    when it has the input's dims), the offsets come from the params.
// Output keeps the input's dims. A crop reaching outside the input is an error.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "layers/param_table.h"

namespace nnfold {

class Crop : public Layer {
public:
    int woffset = 0, hoffset = 0, doffset = 0, coffset = 0;
    int outw = 0, outh = 0, outd = 0, outc = 0;
    int woffset2 = 0, hoffset2 = 0, doffset2 = 0, coffset2 = 0;
    std::vector<int> starts, ends, axes;
    bool numpy_style = false;

    NF_PARAM_TABLE(Crop,
                   NF_PARAM(0, woffset),
                   NF_PARAM(1, hoffset),
                   NF_PARAM(2, coffset),
                   NF_PARAM(3, outw),
                   NF_PARAM(4, outh),
                   NF_PARAM(5, outc),
                   NF_PARAM(6, woffset2),
                   NF_PARAM(7, hoffset2),
                   NF_PARAM(8, coffset2),
                   NF_PARAM(9, starts),
                   NF_PARAM(10, ends),
                   NF_PARAM(11, axes),
                   NF_PARAM(13, doffset),
                   NF_PARAM(14, outd),
                   NF_PARAM(15, doffset2))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        numpy_style = !starts.empty() && !ends.empty();
        one_blob_only = numpy_style || outw != 0 || outh != 0 || outd != 0 || outc != 0 || woffset2 != 0 ||
                        hoffset2 != 0 || doffset2 != 0 || coffset2 != 0;
        if (numpy_style) {
            size_t n = axes.empty() ? 0 : axes.size();
            if (n > 4)
                return invalid_model("axes (param 11) lists " + std::to_string(n) + " axes, at most 4");
            if (n && (starts.size() < n || ends.size() < n))
                return invalid_model("starts/ends (params 9/10) need one value per axis in axes (param 11)");
        }
        return Status::ok();
    }

    struct Roi {
        int woff = 0, hoff = 0, doff = 0, coff = 0;
        int w = 0, h = 0, d = 0, c = 0;
    };

    Status resolve(const Shape& in, const Shape* ref, Roi& r) const {
        if (in.dims < 1 || in.dims > 4)
            return shape_mismatch("Crop needs a 1D-4D input, got " + in.str());
        const int dims = in.dims;
        r = Roi();
        r.w = in.w;
        r.h = in.h;
        r.d = in.d;
        r.c = in.c;
        if (numpy_style) {
            int num_axis = axes.empty() ? dims : (int)axes.size();
            if ((int)starts.size() < num_axis || (int)ends.size() < num_axis)
                return shape_mismatch("starts/ends (params 9/10) have fewer values than the " + std::to_string(num_axis) +
                                      " axes of input " + in.str());
            for (int i = 0; i < num_axis; i++) {
                int axis = axes.empty() ? i : axes[i];
                if (axis < 0)
                    axis += dims;
                if (axis < 0 || axis >= dims)
                    return shape_mismatch("axis " + std::to_string(axes.empty() ? i : axes[i]) +
                                          " is out of range for input " + in.str());
                // outermost-first axis -> dimension
                int* off;
                int* ext;
                int size;
                int which = dims - 1 - axis;  // 0 w, 1 h, 2 d or c, 3 c
                if (which == 0) {
                    off = &r.woff, ext = &r.w, size = in.w;
                } else if (which == 1) {
                    off = &r.hoff, ext = &r.h, size = in.h;
                } else if (which == 2 && dims == 4) {
                    off = &r.doff, ext = &r.d, size = in.d;
                } else {
                    off = &r.coff, ext = &r.c, size = in.c;
                }
                int start = starts[i], end = ends[i];
                if (start == -233)
                    start = 0;
                if (end == -233)
                    end = size;
                int64_t o = start >= 0 ? start : (int64_t)size + start;
                int64_t e = std::min<int64_t>(size, end > 0 ? end : (int64_t)size + end) - o;
                if (o < 0 || o > size)
                    return shape_mismatch("slice start " + std::to_string(starts[i]) + " is outside axis " +
                                          std::to_string(axis) + " of input " + in.str());
                *off = (int)o;
                *ext = (int)std::max<int64_t>(e, 0);
            }
        } else if (ref) {
            r.woff = woffset;
            r.w = ref->w;
            if (dims >= 2) {
                r.hoff = hoffset;
                r.h = ref->h;
            }
            if (dims == 3) {
                r.coff = coffset;
                r.c = ref->dims == 3 ? ref->c : in.c;
            }
            if (dims == 4) {
                r.doff = doffset;
                r.d = ref->d;
                r.coff = coffset;
                r.c = ref->dims == 4 ? ref->c : in.c;
            }
        } else {
            auto extent = [](int size, int off, int off2, int cap) {
                int64_t e = (int64_t)size - off - off2;
                if (cap != -233)
                    e = std::min<int64_t>(cap, e);
                return (int)std::max<int64_t>(std::min<int64_t>(e, INT32_MAX), INT32_MIN);
            };
            r.woff = woffset;
            r.w = extent(in.w, woffset, woffset2, outw);
            if (dims >= 2) {
                r.hoff = hoffset;
                r.h = extent(in.h, hoffset, hoffset2, outh);
            }
            if (dims == 4) {
                r.doff = doffset;
                r.d = extent(in.d, doffset, doffset2, outd);
            }
            if (dims >= 3) {
                r.coff = coffset;
                r.c = extent(in.c, coffset, coffset2, outc);
            }
        }
        auto fits = [](int off, int ext, int size) { return off >= 0 && ext > 0 && (int64_t)off + ext <= size; };
        if (!fits(r.woff, r.w, in.w) || !fits(r.hoff, r.h, in.h) || !fits(r.doff, r.d, in.d) ||
            !fits(r.coff, r.c, in.c))
            return shape_mismatch("crop of " + std::to_string(r.c) + "x" + std::to_string(r.d) + "x" +
                                  std::to_string(r.h) + "x" + std::to_string(r.w) + " (c,d,h,w) at offset " +
                                  std::to_string(r.coff) + "," + std::to_string(r.doff) + "," + std::to_string(r.hoff) +
                                  "," + std::to_string(r.woff) + " is empty or outside input " + in.str());
        return Status::ok();
    }

    static Shape roi_shape(const Shape& in, const Roi& r) {
        switch (in.dims) {
        case 1: return Shape::d1(r.w);
        case 2: return Shape::d2(r.w, r.h);
        case 3: return Shape::d3(r.w, r.h, r.c);
        default: return Shape::d4(r.w, r.h, r.d, r.c);
        }
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        size_t want = one_blob_only ? 1 : 2;
        if (bottoms.size() != want)
            return shape_mismatch(std::string("Crop ") +
                                  (one_blob_only ? "with crop params takes one input" : "without crop params takes the input and a reference blob") +
                                  ", got " + std::to_string(bottoms.size()));
        Roi r;
        NF_RETURN_IF_ERROR(resolve(bottoms[0], want == 2 ? &bottoms[1] : nullptr, r));
        tops.assign(1, roi_shape(bottoms[0], r));
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const std::vector<Shape> shapes = shapes_of(bottoms);
        std::vector<Shape> out;
        NF_RETURN_IF_ERROR(infer_shape(shapes, out));
        Roi r;
        NF_RETURN_IF_ERROR(resolve(shapes[0], shapes.size() == 2 ? &shapes[1] : nullptr, r));
        const Mat& src = bottoms[0];
        const Shape in = shapes[0];
        if (out[0] == in) {
            tops[0] = src;  // ncnn returns the input blob when nothing is cropped
            return Status::ok();
        }
        // a crop of whole outermost slices (channels of a 3D/4D blob, rows of a 2D one, a 1D range:
        // yolov4-tiny's CSP split takes the second half of the channels) is contiguous: the top is a
        // view sharing the bottom's buffer, no copy, as Slice does (the runtime copies a shared buffer
        // before a layer writes into it in place)
        const bool whole_inner = in.dims == 1 || (r.w == in.w && (in.dims == 2 || (r.h == in.h && r.d == in.d)));
        if (whole_inner && src.elempack == 1 && !src.int8) {
            const size_t inner = in.dims == 1 ? 1 : in.dims == 2 ? (size_t)in.w : (size_t)in.w * in.h * in.d;
            const size_t outer_off = in.dims == 1 ? (size_t)r.woff : in.dims == 2 ? (size_t)r.hoff : (size_t)r.coff;
            return src.view(outer_off * inner, out[0], tops[0]);
        }
        Mat& dst = tops[0];
        NF_RETURN_IF_ERROR(dst.create(out[0], opt.blob_allocator));
        // threads: output rows (a copy: no result depends on the split)
        const int64_t rows = (int64_t)r.c * r.d * r.h;
        parallel_for(rows, parallel_grain(r.w), [&](int64_t b, int64_t e) {
            for (int64_t row = b; row < e; row++) {
                const int64_t y = row % r.h, z = row / r.h % r.d, q = row / r.h / r.d;
                const float* sp = src.data + ((((size_t)(q + r.coff) * in.d + (z + r.doff)) * in.h + (y + r.hoff)) *
                                                  in.w + r.woff);
                std::memcpy(dst.data + (size_t)row * r.w, sp, sizeof(float) * r.w);
            }
        });
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Crop)

}  // namespace nnfold
