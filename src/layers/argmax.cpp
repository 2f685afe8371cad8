// ArgMax (ncnn src/layer/argmax.cpp): the `topk` largest values of the whole blob, flattened, as
// indices into it (a [1, topk] top), or with out_max_val = 1 the values in row 0 and their indices
// in row 1 (a [2, topk] top). As ncnn's partial sort by (value, index) descending, equal values
// put the larger index first. Indices are float values.
// ONNX ArgMax matches it only on a blob whose every other axis is 1, with select_last_index = 1
// (the tie rule); every other ArgMax/ArgMin/TopK is nnfold.TopK (src/layers/topk.cpp).
// Params: 0 out_max_val (0), 1 topk (1).
#include <algorithm>
#include <utility>

#include "layers/param_table.h"

namespace nnfold {

class ArgMax : public Layer {
public:
    int out_max_val = 0, topk = 1;

    ArgMax() { one_blob_only = true; }

    NF_PARAM_TABLE(ArgMax, NF_PARAM(0, out_max_val), NF_PARAM(1, topk))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (out_max_val != 0 && out_max_val != 1)
            return invalid_model("out_max_val (param 0) must be 0 or 1");
        if (topk < 1)
            return invalid_model("topk (param 1) must be at least 1, got " + std::to_string(topk));
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("ArgMax takes one input, got " + std::to_string(bottoms.size()));
        // ncnn would read past its sorted list for topk > size
        if ((uint64_t)topk > bottoms[0].total())
            return shape_mismatch("ArgMax: topk = " + std::to_string(topk) + " is larger than the input " +
                                  bottoms[0].str());
        tops.assign(1, Shape::d2(topk, out_max_val ? 2 : 1));
        return Status::ok();
    }

    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        std::vector<Shape> ts;
        NF_RETURN_IF_ERROR(infer_shape({bottom.shape()}, ts));
        NF_RETURN_IF_ERROR(top.create(ts[0], opt.blob_allocator));
        const size_t n = bottom.shape().total();
        std::vector<std::pair<float, int>> v(n);
        for (size_t i = 0; i < n; i++)
            v[i] = std::make_pair(bottom.data[i], (int)i);
        std::partial_sort(v.begin(), v.begin() + topk, v.end(), std::greater<std::pair<float, int>>());
        float* o = top.data;
        for (int i = 0; i < topk; i++) {
            if (out_max_val) {
                o[i] = v[i].first;
                o[topk + i] = (float)v[i].second;
            } else {
                o[i] = (float)v[i].second;
            }
        }
        return Status::ok();
    }
    using Layer::forward;
};

NF_DEFINE_LAYER(ArgMax)

}  // namespace nnfold
