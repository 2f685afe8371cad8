// Scale (ncnn src/layer/scale.cpp). Params: 0 scale_data_size (0), 1 bias_term (0).
//   scale_data_size > 0:     y = x * scale[k] (+ bias[k]) per channel k, with weights
//                            scale_data [scale_data_size] and, when bias_term, bias_data
//                            [scale_data_size], both raw fp32 without a tag (ModelBin type 1).
//   scale_data_size == -233: the two-input form (Caffe's Scale with two bottoms): the scales come
//                            from the second input, read as a flat array with one value per
//                            channel (a [c] vector or a [c,1,1] blob from global pooling), and
//                            there are no weights.
// Channels are ncnn's channel axis (1D: per element, 2D: per row, 3D/4D: per channel), which must
// have exactly as many entries as there are scales (ncnn does not check and reads past them).
// ncnn's two-input form with bias_term would load a bias of -233 values and fail; nnfold refuses it
// when reading the params.
#include "core/parallel.h"
#include "layers/channel_slices.h"
#include "layers/param_table.h"

namespace nnfold {

class Scale : public Layer {
public:
    Scale() {
        one_blob_only = true;
        support_inplace = true;
    }
    int scale_data_size = 0;
    int bias_term = 0;
    std::vector<float> scale_data, bias_data;

    bool two_inputs() const { return scale_data_size == -233; }

    NF_PARAM_TABLE(Scale, NF_PARAM(0, scale_data_size), NF_PARAM(1, bias_term))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (two_inputs()) {
            if (bias_term)
                return invalid_model("Scale with scale_data_size -233 (scales from a second input) cannot have "
                                     "bias_term (param 1): ncnn has no bias of that size to load");
        } else if (scale_data_size <= 0) {
            return invalid_model("Scale scale_data_size (param 0) must be at least 1, or -233 for the two-input form, got " +
                                 std::to_string(scale_data_size));
        }
        // ncnn: the two-input form is not one_blob_only and works on the first input in place
        one_blob_only = !two_inputs();
        support_inplace = !two_inputs();
        return Status::ok();
    }
    int expected_bottoms() const override { return two_inputs() ? 2 : 1; }
    int expected_tops() const override { return 1; }

    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        if (!two_inputs()) {
            specs.push_back({"scale_data", (uint64_t)scale_data_size, false, WeightRole::Gamma, 1});
            if (bias_term)
                specs.push_back({"bias_data", (uint64_t)scale_data_size, false, WeightRole::Bias, 1});
        }
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        if (two_inputs())
            return Status::ok();
        if (w.size() != (bias_term ? 2u : 1u))
            return internal_error("Scale: wrong number of weight arrays");
        for (const WeightArray& a : w)
            if (a.data.size() != (size_t)scale_data_size)
                return internal_error("Scale: a weight array does not have scale_data_size values");
        scale_data = w[0].data;
        if (bias_term)
            bias_data = w[1].data;
        return Status::ok();
    }

    // `nscale`: number of scales available (scale_data_size, or the second input's element count).
    Status check(const Shape& s, uint64_t nscale, const Shape* scale_blob) const {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("Scale needs a 1D-4D input, got " + s.str());
        const size_t count = channel_slices(s).count;
        if (count != nscale) {
            std::string what = scale_blob ? "the scale input " + scale_blob->str() + " has " + std::to_string(nscale) + " values"
                                          : "Scale has " + std::to_string(nscale) + " scales";
            return shape_mismatch(what + " but input " + s.str() + " has " + std::to_string(count) + " along " +
                                  channel_axis_name(s));
        }
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (!two_inputs()) {
            NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
            return check(bottoms[0], (uint64_t)scale_data_size, nullptr);
        }
        if (bottoms.size() != 2)
            return shape_mismatch("Scale with scale_data_size -233 takes the input and the scales, got " +
                                  std::to_string(bottoms.size()) + " inputs");
        NF_RETURN_IF_ERROR(check(bottoms[0], bottoms[1].total(), &bottoms[1]));
        tops.assign(1, bottoms[0]);
        return Status::ok();
    }

    // y = x * scale[k] (+ bias[k]) on every channel of m.
    void apply(Mat& m, const float* scale) const {
        const ChannelSlices cs = channel_slices(m.shape());
        // threads: channels
        parallel_for((int64_t)cs.count, parallel_grain((int64_t)cs.size), [&](int64_t q0, int64_t q1) {
            for (int64_t q = q0; q < q1; q++) {
                float* p = m.data + q * cs.size;
                const float s = scale[q];
                if (bias_term) {
                    const float b = bias_data[q];
                    for (size_t i = 0; i < cs.size; i++)
                        p[i] = p[i] * s + b;
                } else {
                    for (size_t i = 0; i < cs.size; i++)
                        p[i] *= s;
                }
            }
        });
    }

    Status forward_inplace(Mat& m, const Option&) const override {
        if (m.elempack != 1)
            return internal_error("Scale reference forward needs elempack 1");
        if (two_inputs())
            return internal_error("Scale with scale_data_size -233 needs its second input");
        NF_RETURN_IF_ERROR(check(m.shape(), (uint64_t)scale_data_size, nullptr));
        if (scale_data.size() != (size_t)scale_data_size)
            return internal_error("Scale: weights not loaded");
        apply(m, scale_data.data());
        return Status::ok();
    }
    using Layer::forward;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        if (!two_inputs())
            return Layer::forward(bottoms, tops, opt);
        if (bottoms.size() != 2 || tops.size() != 1)
            return internal_error("Scale two-input form called with wrong blob counts");
        const Mat& x = bottoms[0];
        const Mat& sb = bottoms[1];
        if (x.elempack != 1 || sb.elempack != 1)
            return internal_error("Scale reference forward needs elempack 1");
        const Shape sbs = sb.shape();
        NF_RETURN_IF_ERROR(check(x.shape(), sbs.total(), &sbs));
        Mat out;
        NF_RETURN_IF_ERROR(x.clone(out, opt.blob_allocator));
        apply(out, sb.data);
        tops[0] = out;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Scale)

}  // namespace nnfold
