// nnfold.GatherND (extension layer, docs/extension-layers.md): ONNX GatherND on data computed at run
// time. ncnn has no gather by index tuples. The data is viewed as [batch, d_1 .. d_k, slice] (the
// `batch_dims` leading axes merged, the k indexed axes, the rest merged), the indices as
// [batch, tuples, k] (values held as floats like every runtime tensor, exact below 2^24); the top
// is the flat [batch, tuples, slice] (the importer reshapes it to the ONNX result's layout).
// An index outside [-d_j, d_j - 1] or not an integer is an invalid_argument error (onnxruntime
// refuses it too), checked before anything is written.
// Params: 0 batch (>= 1), 1 slice (>= 1), 2 dims (int array d_1 .. d_k, each >= 1, k in 1..8).
// Bottoms: data, indices. Top: 1-D.
#include <algorithm>
#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

class GatherND : public Layer {
public:
    int batch = 1, slice = 1;
    std::vector<int> dims;

    int expected_bottoms() const override { return 2; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(GatherND, NF_PARAM(0, batch), NF_PARAM(1, slice), NF_PARAM(2, dims))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (batch < 1 || slice < 1)
            return invalid_model("batch and slice (params 0, 1) must be at least 1");
        if (dims.empty() || dims.size() > 8)
            return invalid_model("dims (param 2) must list 1 to 8 indexed extents, got " + std::to_string(dims.size()));
        for (int d : dims)
            if (d < 1)
                return invalid_model("dims (param 2) must be positive");
        return Status::ok();
    }

    uint64_t indexed() const {
        uint64_t n = 1;
        for (int d : dims)
            n *= (uint64_t)d;
        return n;
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 2)
            return shape_mismatch("nnfold.GatherND takes 2 inputs, got " + std::to_string(bottoms.size()));
        const uint64_t want = (uint64_t)batch * indexed() * (uint64_t)slice;
        if (bottoms[0].total() != want)
            return shape_mismatch("nnfold.GatherND: data " + bottoms[0].str() + " does not hold " + std::to_string(want) +
                                  " values (batch x dims x slice)");
        const uint64_t per = (uint64_t)batch * dims.size();
        if (bottoms[1].total() % per != 0)
            return shape_mismatch("nnfold.GatherND: indices " + bottoms[1].str() + " are not " + std::to_string(batch) +
                                  " batches of " + std::to_string(dims.size()) + "-tuples");
        const uint64_t n = bottoms[1].total() / dims.size() * (uint64_t)slice;
        if (n > 0x7fffffff)
            return shape_mismatch("nnfold.GatherND: the result has " + std::to_string(n) + " elements");
        tops.assign(1, Shape::d1((int)n));
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        std::vector<Shape> ts;
        NF_RETURN_IF_ERROR(infer_shape({bottoms[0].shape(), bottoms[1].shape()}, ts));
        const size_t k = dims.size();
        const uint64_t tuples = bottoms[1].shape().total() / k;  // over all batches
        const uint64_t per_batch = tuples / (uint64_t)batch;
        const float* idx = bottoms[1].data;
        std::vector<uint64_t> start(tuples);
        for (uint64_t t = 0; t < tuples; t++) {
            uint64_t off = 0;
            for (size_t j = 0; j < k; j++) {
                const float v = idx[t * k + j];
                const int d = dims[j];
                if (!(v >= (float)-d && v < (float)d) || v != std::floor(v))
                    return invalid_argument("nnfold.GatherND: index " + std::to_string(v) + " (tuple " + std::to_string(t) +
                                            ", position " + std::to_string(j) + ") is not an integer in [" +
                                            std::to_string(-d) + ", " + std::to_string(d - 1) + "]");
                const int q = (int)v < 0 ? (int)v + d : (int)v;
                off = off * (uint64_t)d + (uint64_t)q;
            }
            start[t] = ((t / per_batch) * indexed() + off) * (uint64_t)slice;
        }
        NF_RETURN_IF_ERROR(tops[0].create(ts[0], opt.blob_allocator));
        const float* x = bottoms[0].data;
        float* o = tops[0].data;
        for (uint64_t t = 0; t < tuples; t++)
            std::copy(x + start[t], x + start[t] + slice, o + t * (uint64_t)slice);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(GatherND)

}  // namespace nnfold
