// Concat (ncnn src/layer/concat.cpp). Param 0 axis (default 0), counted outermost first: 2D (h=0,
// w=1), 3D (c=0, h=1, w=2), 4D (c=0, d=1, h=2, w=3); negative counts from the end (axis + dims);
// 1D inputs are joined whatever the axis, as in ncnn. No weights. Every input must have the same
// dims and the same extents except along the axis (ncnn does not check; nnfold refuses, naming
// the shapes).
// Tensors are dense, so concatenation along an axis is `outer` blocks (the product of the extents
// before the axis) in which each input contributes one contiguous run of extent * inner values.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "layers/param_table.h"

namespace nnfold {

class Concat : public Layer {
public:
    int axis = 0;

    int expected_tops() const override { return 1; }

    // ncnn joins 1D inputs whatever the axis says (there is only one)
    int positive_axis(int dims) const { return dims == 1 ? 0 : axis < 0 ? axis + dims : axis; }

    NF_PARAM_TABLE(Concat, NF_PARAM(0, axis))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (axis < -4 || axis > 3)
            return invalid_model("Concat axis (param 0) must be in -4..3, got " + std::to_string(axis));
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.empty())
            return shape_mismatch("Concat needs at least one input");
        const Shape& s0 = bottoms[0];
        if (s0.dims < 1 || s0.dims > 4)
            return shape_mismatch("Concat needs 1D-4D inputs, got " + s0.str());
        const int a = positive_axis(s0.dims);
        if (a < 0 || a >= s0.dims)
            return shape_mismatch("Concat axis " + std::to_string(axis) + " is out of range for " +
                                  std::to_string(s0.dims) + "D input " + s0.str());
        std::vector<int> out = s0.to_list();
        int64_t sum = 0;
        for (size_t i = 0; i < bottoms.size(); i++) {
            const Shape& s = bottoms[i];
            if (s.dims != s0.dims)
                return shape_mismatch("Concat inputs must have the same dims: input 0 is " + s0.str() + ", input " +
                                      std::to_string(i) + " is " + s.str());
            std::vector<int> l = s.to_list();
            for (int k = 0; k < s0.dims; k++)
                if (k != a && l[k] != out[k])
                    return shape_mismatch("Concat along axis " + std::to_string(a) + ": input " + std::to_string(i) +
                                          " " + s.str() + " does not match input 0 " + s0.str() + " on axis " +
                                          std::to_string(k));
            sum += l[a];
        }
        if (sum > INT32_MAX)
            return shape_mismatch("Concat output is too large along axis " + std::to_string(a));
        out[a] = (int)sum;
        tops.assign(1, Shape::from_list(out));
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const std::vector<Shape> in = shapes_of(bottoms);
        std::vector<Shape> out;
        NF_RETURN_IF_ERROR(infer_shape(in, out));
        if (bottoms.size() == 1) {
            tops[0] = bottoms[0];  // nothing to join: share the input
            return Status::ok();
        }
        const int a = positive_axis(in[0].dims);
        std::vector<int> l = in[0].to_list();
        size_t outer = 1, inner = 1;
        for (int k = 0; k < a; k++)
            outer *= (size_t)l[k];
        for (int k = a + 1; k < in[0].dims; k++)
            inner *= (size_t)l[k];
        std::vector<size_t> runs;
        for (auto& s : in)
            runs.push_back((size_t)s.to_list()[a] * inner);
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(out[0], opt.blob_allocator));
        // dst row o is the bottoms' runs o side by side; threads copy ranges of 16k floats of dst,
        // each range in pieces that stay inside one run (a copy: no result depends on the split)
        size_t row = 0;
        for (size_t r : runs)
            row += r;
        constexpr int64_t kPiece = 16384;
        const int64_t total = (int64_t)(outer * row), pieces = (total + kPiece - 1) / kPiece;
        parallel_for(pieces, parallel_grain(kPiece), [&](int64_t p0, int64_t p1) {
            size_t i = (size_t)(p0 * kPiece);
            const size_t end = (size_t)std::min(total, p1 * kPiece);
            while (i < end) {
                const size_t o = i / row;
                size_t at = i - o * row, b = 0;
                while (at >= runs[b])
                    at -= runs[b++];
                const size_t n = std::min(runs[b] - at, end - i);
                std::memcpy(dst.data + i, bottoms[b].data + o * runs[b] + at, n * sizeof(float));
                i += n;
            }
        });
        tops[0] = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Concat)

}  // namespace nnfold
