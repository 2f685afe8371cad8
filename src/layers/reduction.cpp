// Reduction (ncnn src/layer/reduction.cpp, the current version with keepdims and fixbug0).
// Params: 0 operation (0), 1 reduce_all (1), 2 coeff (1.0), 3 axes (int array), 4 keepdims (0),
// 5 fixbug0 (0).
//   operation: 0 sum, 1 asum (sum |x|), 2 sumsq (sum x^2), 3 mean, 4 max, 5 min, 6 prod,
//              7 l1 (sum |x|), 8 l2 (sqrt(sum x^2)), 9 logsum (log(sum x)), 10 logsumexp
//              (log(sum exp(x))).
// Which axes: reduce_all != 0 reduces everything. Otherwise `axes` lists axes numbered outermost
// first within the blob's own rank (2D: 0 = h, 1 = w; 3D: 0 = c, 1 = h, 2 = w; 4D: 0 = c, 1 = d,
// 2 = h, 3 = w), negative axes counting from the end (axis + dims); repeats are harmless; axes are
// ignored under reduce_all. A 1D blob is always reduced whole. ncnn's first Reduction numbered axes with a batch axis; its
// current version refuses axes without fixbug0=1 ("param is too old, please regenerate"), and so
// does nnfold. ncnn does not range-check axes (an axis outside [-dims, dims) indexes its flag
// array out of bounds or is ignored); nnfold refuses them with a shape error.
// Output shape (ncnn's resolve_reduce_flags_and_output_shape): with keepdims the input's rank
// with every reduced extent 1; without, the kept extents in their order (w, h, d, c), as a blob of
// that many dims (3 kept extents of a 4D blob become [w,h,c]), and [1] when nothing is kept.
// When reduce_all is 0 and no axis of a 2D-4D blob is listed, nothing is reduced: the output has
// the input's shape and each value is the operation applied to that single element (ncnn leaves
// that output uninitialised).
// Values, as ncnn computes them in float: accumulate from sum 0 / prod 1 / max -FLT_MAX /
// min FLT_MAX (so max of an all -inf slice is -FLT_MAX, as in ncnn); then logsum and logsumexp take
// log, l2 takes sqrt (sums below FLT_MIN flushed to 0 first, as ncnn does against an rsqrt
// artefact); mean uses coeff / (number of reduced values); finally every value is multiplied by
// that coeff when it is not 1 (coeff applies to every operation in current ncnn).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

class Reduction : public Layer {
public:
    Reduction() {
        one_blob_only = true;
        support_inplace = false;
    }
    enum { kSum = 0, kAsum, kSumsq, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kCount };
    int operation = kSum;
    int reduce_all = 1;
    float coeff = 1.f;
    std::vector<int> axes;
    int keepdims = 0;
    int fixbug0 = 0;

    NF_PARAM_TABLE(Reduction,
                   NF_PARAM(0, operation),
                   NF_PARAM(1, reduce_all),
                   NF_PARAM(2, coeff),
                   NF_PARAM(3, axes),
                   NF_PARAM(4, keepdims),
                   NF_PARAM(5, fixbug0))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (operation < 0 || operation >= kCount)
            return invalid_model("Reduction operation (param 0) must be 0..10 (sum, asum, sumsq, mean, max, min, prod, "
                                 "l1, l2, logsum, logsumexp), got " + std::to_string(operation));
        if (fixbug0 == 0 && !axes.empty())
            return invalid_model("Reduction axes (param 3) without fixbug0=1 (param 5) come from an old converter that "
                                 "counted a batch axis; regenerate the model (ncnn refuses it too)");
        return Status::ok();
    }

    // Reduce flags per axis (w, h, d, c) and the output shape for input s.
    Status resolve(const Shape& s, bool red[4], Shape& out) const {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("Reduction needs a 1D-4D input, got " + s.str());
        const int dims = s.dims;
        red[0] = red[1] = red[2] = red[3] = false;
        if (reduce_all || dims == 1) {
            red[0] = red[1] = red[2] = red[3] = true;
        }
        // axis numbered outermost first -> index into (w, h, d, c)
        static const int map2[2] = {1, 0}, map3[3] = {3, 1, 0}, map4[4] = {3, 2, 1, 0};
        for (int axis : reduce_all ? std::vector<int>() : axes) {  // ncnn ignores axes under reduce_all
            const int a = axis < 0 ? axis + dims : axis;
            if (a < 0 || a >= dims)
                return shape_mismatch("Reduction axis " + std::to_string(axis) + " (param 3) is out of range for input " +
                                      s.str() + " (valid: " + std::to_string(-dims) + ".." + std::to_string(dims - 1) + ")");
            if (dims == 1)
                continue;
            red[dims == 2 ? map2[a] : dims == 3 ? map3[a] : map4[a]] = true;
        }
        const int e[4] = {s.w, dims >= 2 ? s.h : 1, dims == 4 ? s.d : 1, dims >= 3 ? s.c : 1};
        out = Shape();
        if (keepdims) {
            out.dims = dims;
            out.w = red[0] ? 1 : e[0];
            out.h = red[1] ? 1 : e[1];
            out.d = red[2] ? 1 : e[2];
            out.c = red[3] ? 1 : e[3];
            return Status::ok();
        }
        std::vector<int> kept;
        const bool present[4] = {true, dims >= 2, dims == 4, dims >= 3};
        for (int i = 0; i < 4; i++)
            if (present[i] && !red[i])
                kept.push_back(e[i]);
        out.dims = std::max<int>(1, (int)kept.size());
        switch (kept.size()) {
        case 0: out.w = 1; break;
        case 1: out.w = kept[0]; break;
        case 2: out.w = kept[0]; out.h = kept[1]; break;
        case 3: out.w = kept[0]; out.h = kept[1]; out.c = kept[2]; break;
        default: out.w = kept[0]; out.h = kept[1]; out.d = kept[2]; out.c = kept[3]; break;
        }
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (bottoms.size() != 1)
            return shape_mismatch("Reduction takes one input, got " + std::to_string(bottoms.size()));
        bool red[4];
        Shape out;
        NF_RETURN_IF_ERROR(resolve(bottoms[0], red, out));
        tops.assign(1, out);
        return Status::ok();
    }

    using Layer::forward;
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        if (bottom.elempack != 1)
            return internal_error("Reduction reference forward needs elempack 1");
        const Shape s = bottom.shape();
        bool red[4];
        Shape oshape;
        NF_RETURN_IF_ERROR(resolve(s, red, oshape));
        Mat out;
        NF_RETURN_IF_ERROR(out.create(oshape, opt.blob_allocator));

        const int dims = s.dims;
        const size_t e[4] = {(size_t)s.w, (size_t)(dims >= 2 ? s.h : 1), (size_t)(dims == 4 ? s.d : 1),
                             (size_t)(dims >= 3 ? s.c : 1)};
        const size_t stride[4] = {1, e[0], e[0] * e[1], e[0] * e[1] * e[2]};
        size_t outer[4], inner[4];  // loop extents over kept axes (output) and reduced axes
        uint64_t reduced_count = 1;
        for (int i = 0; i < 4; i++) {
            outer[i] = red[i] ? 1 : e[i];
            inner[i] = red[i] ? e[i] : 1;
            reduced_count *= inner[i];
        }
        const float* in = bottom.data;
        float* po = out.data;

        auto run = [&](float v0, auto op) {
            for (size_t oc = 0; oc < outer[3]; oc++)
                for (size_t od = 0; od < outer[2]; od++)
                    for (size_t oh = 0; oh < outer[1]; oh++)
                        for (size_t ow = 0; ow < outer[0]; ow++) {
                            const float* base = in + oc * stride[3] + od * stride[2] + oh * stride[1] + ow;
                            float acc = v0;
                            for (size_t ic = 0; ic < inner[3]; ic++)
                                for (size_t id = 0; id < inner[2]; id++)
                                    for (size_t ih = 0; ih < inner[1]; ih++) {
                                        const float* p = base + ic * stride[3] + id * stride[2] + ih * stride[1];
                                        for (size_t iw = 0; iw < inner[0]; iw++)
                                            acc = op(acc, p[iw]);
                                    }
                            *po++ = acc;
                        }
        };
        switch (operation) {
        case kSum:
        case kMean:
        case kLogSum: run(0.f, [](float a, float x) { return a + x; }); break;
        case kAsum:
        case kL1: run(0.f, [](float a, float x) { return a + std::fabs(x); }); break;
        case kSumsq:
        case kL2: run(0.f, [](float a, float x) { return a + x * x; }); break;
        case kMax: run(-FLT_MAX, [](float a, float x) { return std::max(a, x); }); break;
        case kMin: run(FLT_MAX, [](float a, float x) { return std::min(a, x); }); break;
        case kProd: run(1.f, [](float a, float x) { return a * x; }); break;
        case kLogSumExp: run(0.f, [](float a, float x) { return a + std::exp(x); }); break;
        default: return internal_error("Reduction: operation " + std::to_string(operation) + " not validated");
        }

        float* p = out.data;
        const size_t n = out.total_floats();
        if (operation == kLogSum || operation == kLogSumExp)
            for (size_t i = 0; i < n; i++)
                p[i] = std::log(p[i]);
        if (operation == kL2)
            for (size_t i = 0; i < n; i++)
                p[i] = std::sqrt(p[i] < FLT_MIN ? 0.f : p[i]);
        float c = coeff;
        if (operation == kMean)
            c = coeff / (float)reduced_count;
        if (c != 1.f)
            for (size_t i = 0; i < n; i++)
                p[i] = p[i] * c;
        top = out;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Reduction)

}  // namespace nnfold
