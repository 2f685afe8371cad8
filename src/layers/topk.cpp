// nnfold.TopK (extension layer, docs/extension-layers.md): the k largest (or smallest) values along
// one axis and their indices (ONNX TopK; ArgMax and ArgMin are TopK with k = 1 and the indices
// only). ncnn's ArgMax (src/layer/argmax.cpp) flattens the whole blob, has no axis, no "smallest",
// and breaks ties towards the larger index; ONNX's TopK keeps the smaller index first (ArgMax and
// ArgMin too unless select_last_index = 1): hence a type of its own.
// Indices are written as float values like every runtime tensor (exact below 2^24); the importer
// reports them as int64 at the model's interface.
// Order: values sorted (largest first for largest = 1, smallest first otherwise); equal values by
// index (smaller first, or larger first with select_last = 1). NaN counts as larger than every
// number (numpy's argmax picks it), which keeps the order total.
// Params: 0 axis (in ncnn's outermost-first axes of the blob; negative counts from the end),
// 1 k (>= 1), 2 largest (1), 3 select_last (0), 4 indices_only (0).
// Bottom: data. Tops: values and indices, or the indices alone when indices_only = 1.
#include <algorithm>
#include <cmath>
#include <utility>

#include "layers/param_table.h"

namespace nnfold {

class TopK : public Layer {
public:
    int axis = 0, k = 1, largest = 1, select_last = 0, indices_only = 0;

    int expected_bottoms() const override { return 1; }
    int expected_tops() const override { return indices_only ? 1 : 2; }

    NF_PARAM_TABLE(TopK,
                   NF_PARAM(0, axis),
                   NF_PARAM(1, k),
                   NF_PARAM(2, largest),
                   NF_PARAM(3, select_last),
                   NF_PARAM(4, indices_only))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (k < 1)
            return invalid_model("k (param 1) must be at least 1, got " + std::to_string(k));
        for (int f : {largest, select_last, indices_only})
            if (f != 0 && f != 1)
                return invalid_model("largest, select_last and indices_only (params 2, 3, 4) must be 0 or 1");
        return Status::ok();
    }

    // The blob viewed as [outer, n, inner] around the axis.
    Status split(const Shape& s, uint64_t& outer, int& n, uint64_t& inner) const {
        std::vector<int> l = s.to_list();
        int a = axis < 0 ? axis + (int)l.size() : axis;
        if (a < 0 || a >= (int)l.size())
            return shape_mismatch("nnfold.TopK: axis " + std::to_string(axis) + " is outside the " +
                                  std::to_string(l.size()) + "-D input " + s.str());
        outer = inner = 1;
        for (int i = 0; i < a; i++)
            outer *= (uint64_t)l[i];
        for (size_t i = a + 1; i < l.size(); i++)
            inner *= (uint64_t)l[i];
        n = l[a];
        if (k > n)
            return shape_mismatch("nnfold.TopK: k = " + std::to_string(k) + " is larger than the axis (" +
                                  std::to_string(n) + ") of input " + s.str());
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("nnfold.TopK takes 1 input, got " + std::to_string(bottoms.size()));
        uint64_t outer, inner;
        int n;
        NF_RETURN_IF_ERROR(split(bottoms[0], outer, n, inner));
        std::vector<int> l = bottoms[0].to_list();
        l[axis < 0 ? axis + l.size() : axis] = k;
        tops.assign(indices_only ? 1 : 2, Shape::from_list(l));
        return Status::ok();
    }

    // True when (va, ia) comes before (vb, ib).
    bool before(float va, int ia, float vb, int ib) const {
        const bool na = va != va, nb = vb != vb;
        if (na || nb) {
            if (na && nb)
                return select_last ? ia > ib : ia < ib;
            return largest ? na : nb;  // NaN is the largest value
        }
        if (va != vb)
            return largest ? va > vb : va < vb;
        return select_last ? ia > ib : ia < ib;
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        std::vector<Shape> ts;
        NF_RETURN_IF_ERROR(infer_shape({bottoms[0].shape()}, ts));
        uint64_t outer, inner;
        int n;
        NF_RETURN_IF_ERROR(split(bottoms[0].shape(), outer, n, inner));
        tops.resize(ts.size());
        for (size_t t = 0; t < ts.size(); t++)
            NF_RETURN_IF_ERROR(tops[t].create(ts[t], opt.blob_allocator));
        float* val = indices_only ? nullptr : tops[0].data;
        float* idx = tops[indices_only ? 0 : 1].data;
        const float* x = bottoms[0].data;
        std::vector<int> order(n);
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                const float* line = x + o * (uint64_t)n * inner + i;
                for (int j = 0; j < n; j++)
                    order[j] = j;
                std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
                    return before(line[(uint64_t)a * inner], a, line[(uint64_t)b * inner], b);
                });
                const uint64_t base = o * (uint64_t)k * inner + i;
                for (int j = 0; j < k; j++) {
                    if (val)
                        val[base + (uint64_t)j * inner] = line[(uint64_t)order[j] * inner];
                    idx[base + (uint64_t)j * inner] = (float)order[j];
                }
            }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(TopK)

}  // namespace nnfold
