// Slice (ncnn src/layer/slice.cpp). Params: 0 slices (int array), 1 axis (default 0; counted
// outermost first as in Concat, negative = axis + dims; a 1D input is cut along w whatever the
// axis, as in ncnn), 2 indices (int array, newer ncnn).
// No weights. One input, one output per top, cut along the axis in order:
//  - slices: top i gets slices[i] values; -233 means "an equal share of what is left":
//    (size - taken) / (tops left), so a single -233 last takes the rest ([116, -233] in
//    shufflenet_v2) and all -233 split evenly. The tops need not cover the whole axis (ncnn
//    leaves the remainder out).
//  - indices (used when given, ONNX Split/torch.split style): top i ends at indices[i]
//    (negative = size + index); the last top takes everything left.
// Every part must be non-empty and inside the input (ncnn does not check; nnfold refuses).
#include <cstring>

#include "layers/param_table.h"

namespace nnfold {

class Slice : public Layer {
public:
    std::vector<int> slices, indices;
    int axis = 0;

    int expected_bottoms() const override { return 1; }

    NF_PARAM_TABLE(Slice, NF_PARAM(0, slices), NF_PARAM(1, axis), NF_PARAM(2, indices))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (slices.empty() && indices.empty())
            return invalid_model("Slice needs slices (param 0) or indices (param 2)");
        if (indices.empty())
            for (int s : slices)
                if (s <= 0 && s != -233)
                    return invalid_model("Slice slices (param 0) must be positive or -233, got " + std::to_string(s));
        if (axis < -4 || axis > 3)
            return invalid_model("Slice axis (param 1) must be in -4..3, got " + std::to_string(axis));
        return Status::ok();
    }

    // Extent of each part along the axis.
    Status parts(const Shape& in, size_t ntops, int& a, std::vector<int>& sizes) const {
        if (in.dims < 1 || in.dims > 4)
            return shape_mismatch("Slice needs a 1D-4D input, got " + in.str());
        if (ntops == 0)
            return shape_mismatch("Slice needs at least one top");
        a = in.dims == 1 ? 0 : axis < 0 ? axis + in.dims : axis;  // ncnn cuts 1D along w whatever the axis
        if (a < 0 || a >= in.dims)
            return shape_mismatch("Slice axis " + std::to_string(axis) + " is out of range for input " + in.str());
        const int64_t size = in.to_list()[a];
        sizes.clear();
        int64_t q = 0;
        for (size_t i = 0; i < ntops; i++) {
            int64_t n;
            if (!indices.empty()) {
                if (i + 1 == ntops) {
                    n = size - q;
                } else {
                    if (i >= indices.size())
                        return shape_mismatch("Slice has " + std::to_string(ntops) + " tops but only " +
                                              std::to_string(indices.size()) + " indices (param 2); it needs " +
                                              std::to_string(ntops - 1));
                    int64_t end = indices[i] < 0 ? size + indices[i] : indices[i];
                    n = end - q;
                }
            } else {
                if (i >= slices.size())
                    return shape_mismatch("Slice has " + std::to_string(ntops) + " tops but only " +
                                          std::to_string(slices.size()) + " slices (param 0)");
                n = slices[i] == -233 ? (size - q) / (int64_t)(ntops - i) : slices[i];
            }
            if (n <= 0 || q + n > size)
                return shape_mismatch("Slice part " + std::to_string(i) + " (" + std::to_string(n) + " from " +
                                      std::to_string(q) + ") is empty or outside axis " + std::to_string(a) +
                                      " of input " + in.str());
            sizes.push_back((int)n);
            q += n;
        }
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("Slice takes one input, got " + std::to_string(bottoms.size()));
        int a;
        std::vector<int> sizes;
        NF_RETURN_IF_ERROR(parts(bottoms[0], tops.size(), a, sizes));
        std::vector<int> l = bottoms[0].to_list();
        for (size_t i = 0; i < tops.size(); i++) {
            l[a] = sizes[i];
            tops[i] = Shape::from_list(l);
        }
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("Slice takes one input, got " + std::to_string(bottoms.size()));
        const Shape in = bottoms[0].shape();
        int a;
        std::vector<int> sizes;
        NF_RETURN_IF_ERROR(parts(in, tops.size(), a, sizes));
        std::vector<int> l = in.to_list();
        size_t outer = 1, inner = 1;
        for (int k = 0; k < a; k++)
            outer *= (size_t)l[k];
        for (int k = a + 1; k < in.dims; k++)
            inner *= (size_t)l[k];
        const size_t src_run = (size_t)l[a] * inner;
        size_t offset = 0;
        if (outer == 1 && bottoms[0].elempack == 1 && !bottoms[0].int8) {
            // slices along the outermost axis (channels of a 3D/4D blob, rows of 2D, a 1D range) are
            // contiguous: the tops are views sharing the bottom's buffer, no copy (the buffer stays
            // allocated, and counted in the peak, until the last view is released; a layer writing
            // in place into a shared buffer gets a copy from the runtime first)
            for (size_t i = 0; i < tops.size(); i++) {
                std::vector<int> ol = l;
                ol[a] = sizes[i];
                NF_RETURN_IF_ERROR(bottoms[0].view(offset, Shape::from_list(ol), tops[i]));
                offset += (size_t)sizes[i] * inner;
            }
            return Status::ok();
        }
        for (size_t i = 0; i < tops.size(); i++) {
            std::vector<int> ol = l;
            ol[a] = sizes[i];
            Mat dst;
            NF_RETURN_IF_ERROR(dst.create(Shape::from_list(ol), opt.blob_allocator));
            const size_t run = (size_t)sizes[i] * inner;
            for (size_t o = 0; o < outer; o++)
                std::memcpy(dst.data + o * run, bottoms[0].data + o * src_run + offset, run * sizeof(float));
            offset += run;
            tops[i] = dst;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Slice)

}  // namespace nnfold
