// CumulativeSum (ncnn src/layer/cumulativesum.cpp). Params: 0 axis (0; negative counts from the
// end). Axes count outermost first: 2D (h=0, w=1), 3D (c=0, h=1, w=2); ncnn's layer takes 1D-3D
// blobs only, and so does nnfold.
// Running sums along the axis, inclusive and forward (ONNX CumSum with exclusive = reverse = 0).
#include "layers/param_table.h"

namespace nnfold {

class CumulativeSum : public Layer {
public:
    CumulativeSum() { one_blob_only = true; }
    int axis = 0;

    NF_PARAM_TABLE(CumulativeSum, NF_PARAM(0, axis))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return Status::ok();
    }
    Status positive_axis(const Shape& s, int& a) const {
        if (s.dims < 1 || s.dims > 3)
            return shape_mismatch("CumulativeSum needs a 1D-3D input, got " + s.str());
        a = axis < 0 ? s.dims + axis : axis;
        if (a < 0 || a >= s.dims)
            return shape_mismatch("CumulativeSum axis " + std::to_string(axis) + " is out of range for input " + s.str());
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("CumulativeSum takes one input, got " + std::to_string(bottoms.size()));
        int a;
        NF_RETURN_IF_ERROR(positive_axis(bottoms[0], a));
        tops.assign(1, bottoms[0]);
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        int a;
        NF_RETURN_IF_ERROR(positive_axis(s, a));
        std::vector<int> ext = s.to_list();  // outermost first
        uint64_t outer = 1, inner = 1;
        for (int k = 0; k < a; k++)
            outer *= (uint64_t)ext[k];
        for (int k = a + 1; k < s.dims; k++)
            inner *= (uint64_t)ext[k];
        const uint64_t n = (uint64_t)ext[a];
        NF_RETURN_IF_ERROR(top.create(s, opt.blob_allocator));
        const float* x = bottom.data;
        float* y = top.data;
        for (uint64_t o = 0; o < outer; o++)
            for (uint64_t i = 0; i < inner; i++) {
                float sum = 0.f;
                for (uint64_t k = 0; k < n; k++) {
                    const uint64_t off = (o * n + k) * inner + i;
                    sum += x[off];
                    y[off] = sum;
                }
            }
        return Status::ok();
    }
    using Layer::forward;
};

NF_DEFINE_LAYER(CumulativeSum)

}  // namespace nnfold
