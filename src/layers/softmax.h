// Softmax (ncnn src/layer/softmax.cpp). Params: 0 axis (0; negative counts from the end),
// 1 fixbug0. ncnn's first Softmax handled axis on 3D blobs wrongly; it refuses a param file
// without fixbug0=1 whose axis is not 0 ("param is too old, please regenerate"), and so does nnfold.
// Axes count outermost first: 2D (h=0, w=1), 3D (c=0, h=1, w=2), 4D (c=0, d=1, h=2, w=3).
// Per slice: m = max, e = exp(x - m), y = e / sum(e).
// Declared in a header for an optimized subclass (src/layers/wasm/softmax_fast.cpp).
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "core/parallel.h"
#include "layers/param_table.h"

namespace nnfold {

class Softmax : public Layer {
public:
    Softmax() {
        one_blob_only = true;
        support_inplace = true;
    }
    int axis = 0;
    int fixbug0 = 0;

    NF_PARAM_TABLE(Softmax, NF_PARAM(0, axis), NF_PARAM(1, fixbug0))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (fixbug0 == 0 && axis != 0)
            return invalid_model("Softmax axis " + std::to_string(axis) +
                                 " without fixbug0=1 (param 1) comes from an old converter whose axis meaning ncnn no "
                                 "longer supports; regenerate the model (ncnn refuses it too)");
        return Status::ok();
    }
    Status positive_axis(const Shape& s, int& a) const {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("Softmax needs a 1D-4D input, got " + s.str());
        a = axis < 0 ? s.dims + axis : axis;
        if (a < 0 || a >= s.dims)
            return shape_mismatch("Softmax axis " + std::to_string(axis) + " is out of range for input " + s.str());
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        int a;
        return positive_axis(bottoms[0], a);
    }
    Status forward_inplace(Mat& m, const Option&) const override {
        Shape s = m.shape();
        int a;
        NF_RETURN_IF_ERROR(positive_axis(s, a));
        // dims outermost first; the blob is dense, so softmax over one axis is `outer` blocks of
        // `len` steps of `inner` contiguous values.
        std::vector<int> l = s.to_list();
        size_t outer = 1, inner = 1;
        for (int i = 0; i < a; i++)
            outer *= l[i];
        for (int i = a + 1; i < s.dims; i++)
            inner *= l[i];
        const size_t len = l[a];
        // threads: whole slices (each slice's max and sum on one thread, in order)
        parallel_for((int64_t)(outer * inner), parallel_grain((int64_t)len * 24), [&](int64_t j0, int64_t j1) {
            for (int64_t j = j0; j < j1; j++) {
                const size_t o = (size_t)j / inner, i = (size_t)j % inner;
                float* p = m.data + o * len * inner + i;
                float mx = -FLT_MAX;
                for (size_t k = 0; k < len; k++)
                    mx = std::max(mx, p[k * inner]);
                float sum = 0.f;
                for (size_t k = 0; k < len; k++) {
                    p[k * inner] = std::exp(p[k * inner] - mx);
                    sum += p[k * inner];
                }
                for (size_t k = 0; k < len; k++)
                    p[k * inner] /= sum;
            }
        });
        return Status::ok();
    }
};

}  // namespace nnfold
