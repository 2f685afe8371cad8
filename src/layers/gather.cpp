// nnfold.Gather (extension layer, docs/extension-layers.md): ONNX Gather with indices computed at run
// time (an embedding lookup on token ids; constant indices become Crop/Slice at import). ncnn's
// Embed reads its indices as int32 bits, while nnfold holds every runtime tensor, integer ones
// included, as float32 values (exact up to 2^24): hence a type of its own. The data is viewed as
// [outer, dim, inner] (the axes before, at and after ONNX's `axis`, dense order); the top is the
// flat [outer, indices, inner] (the importer reshapes it to the ONNX result's layout).
// Params: 0 outer, 1 dim, 2 inner (each >= 1). Bottoms: data, indices. Top: 1-D.
#include <algorithm>
#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

class Gather : public Layer {
public:
    int outer = 1, dim = 1, inner = 1;

    int expected_bottoms() const override { return 2; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(Gather, NF_PARAM(0, outer), NF_PARAM(1, dim), NF_PARAM(2, inner))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (outer < 1 || dim < 1 || inner < 1)
            return invalid_model("outer, dim and inner (params 0, 1, 2) must be at least 1");
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 2)
            return shape_mismatch("nnfold.Gather takes 2 inputs, got " + std::to_string(bottoms.size()));
        const uint64_t want = (uint64_t)outer * (uint64_t)dim * (uint64_t)inner;
        if (bottoms[0].total() != want)
            return shape_mismatch("nnfold.Gather: data " + bottoms[0].str() + " is not " + std::to_string(outer) +
                                  " x " + std::to_string(dim) + " x " + std::to_string(inner));
        const uint64_t n = (uint64_t)outer * bottoms[1].total() * (uint64_t)inner;
        if (n > 0x7fffffff)
            return shape_mismatch("nnfold.Gather: the result has " + std::to_string(n) + " elements");
        tops.assign(1, Shape::d1((int)n));
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        std::vector<Shape> ts;
        NF_RETURN_IF_ERROR(infer_shape({bottoms[0].shape(), bottoms[1].shape()}, ts));
        NF_RETURN_IF_ERROR(tops[0].create(ts[0], opt.blob_allocator));
        const float* x = bottoms[0].data;
        const float* idx = bottoms[1].data;
        const uint64_t n = bottoms[1].shape().total();
        float* o = tops[0].data;
        for (uint64_t k = 0; k < n; k++) {
            const float v = idx[k];
            // ONNX: an index outside [-dim, dim - 1] is an error (onnxruntime refuses it too)
            if (!(v >= (float)-dim && v < (float)dim) || v != std::floor(v))
                return invalid_argument("nnfold.Gather: index " + std::to_string(v) + " (position " +
                                        std::to_string(k) + ") is not an integer in [" + std::to_string(-dim) + ", " +
                                        std::to_string(dim - 1) + "]");
        }
        for (int a = 0; a < outer; a++)
            for (uint64_t k = 0; k < n; k++) {
                int q = (int)idx[k];
                if (q < 0)
                    q += dim;
                const float* src = x + ((uint64_t)a * dim + (uint64_t)q) * inner;
                std::copy(src, src + inner, o + ((uint64_t)a * n + k) * inner);
            }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Gather)

}  // namespace nnfold
