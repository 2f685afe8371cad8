// nnfold.ScatterND (extension layer, docs/extension-layers.md): ONNX ScatterND on a tensor computed at
// run time (YOLOv5 heads exported with in-place slice assignment: `y[..., 0:2] = ...`). ncnn has no
// such layer. The ONNX index tuples are resolved at import into the dense element offset where each
// tuple's slice starts (blobs keep ONNX's dense element order, docs/shapes-and-files.md), so the layer
// needs no ONNX shape: out = data; for each tuple t, out[offset[t] + e] (op)= updates[t * slice + e].
// Params: 0 slice (elements per tuple, >= 1), 1 reduction (0 none, 1 add, 2 mul, 3 max, 4 min).
// Bottoms: data, offsets (one value per tuple, integers held as floats), updates. Top: data's shape.
#include <algorithm>

#include "layers/param_table.h"

namespace nnfold {

class ScatterND : public Layer {
public:
    int slice = 1, reduction = 0;

    int expected_bottoms() const override { return 3; }
    int expected_tops() const override { return 1; }

    NF_PARAM_TABLE(ScatterND, NF_PARAM(0, slice), NF_PARAM(1, reduction))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (slice < 1)
            return invalid_model("slice (param 0) must be at least 1, got " + std::to_string(slice));
        if (reduction < 0 || reduction > 4)
            return invalid_model("reduction (param 1) must be 0 to 4, got " + std::to_string(reduction));
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 3)
            return shape_mismatch("nnfold.ScatterND takes 3 inputs, got " + std::to_string(bottoms.size()));
        const uint64_t tuples = bottoms[1].total(), upd = bottoms[2].total();
        if (upd != tuples * (uint64_t)slice)
            return shape_mismatch("nnfold.ScatterND: " + std::to_string(tuples) + " offsets of " +
                                  std::to_string(slice) + " elements need " + std::to_string(tuples * slice) +
                                  " updates, got " + bottoms[2].str());
        if ((uint64_t)slice > bottoms[0].total())
            return shape_mismatch("nnfold.ScatterND: a slice of " + std::to_string(slice) +
                                  " elements is larger than the data " + bottoms[0].str());
        tops.assign(1, bottoms[0]);
        return Status::ok();
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        const Mat& data = bottoms[0];
        const Shape s = data.shape();
        const uint64_t total = s.total();
        NF_RETURN_IF_ERROR(tops[0].create(s, opt.blob_allocator));
        float* o = tops[0].data;
        std::copy(data.data, data.data + total, o);
        const float* off = bottoms[1].data;
        const float* upd = bottoms[2].data;
        const uint64_t tuples = bottoms[1].shape().total();
        for (uint64_t t = 0; t < tuples; t++) {
            const double start = off[t];
            // a hand-written .param may hold any offsets: each slice must lie inside the data
            if (!(start >= 0) || start + slice > (double)total || start != (double)(uint64_t)start)
                return invalid_argument("nnfold.ScatterND: offset " + std::to_string(start) + " (tuple " +
                                        std::to_string(t) + ") puts a slice of " + std::to_string(slice) +
                                        " elements outside the data's " + std::to_string(total));
            float* dst = o + (uint64_t)start;
            const float* src = upd + t * (uint64_t)slice;
            for (int e = 0; e < slice; e++) {
                switch (reduction) {
                case 0: dst[e] = src[e]; break;
                case 1: dst[e] += src[e]; break;
                case 2: dst[e] *= src[e]; break;
                case 3: dst[e] = std::max(dst[e], src[e]); break;
                default: dst[e] = std::min(dst[e], src[e]); break;
                }
            }
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(ScatterND)

}  // namespace nnfold
