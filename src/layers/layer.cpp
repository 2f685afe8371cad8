#include "layers/layer.h"

namespace nnfold {

int32_t pfloat(float v) { return float_to_bits(v); }

Status Layer::load_param(const ParamDict&) { return Status::ok(); }

Status Layer::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    return Status::ok();
}

Status Layer::load_model(const std::vector<WeightArray>&) { return Status::ok(); }

Status Layer::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    return same_shape(bottoms, tops);
}

Status Layer::create_pipeline(const Option&) { return Status::ok(); }

Status Layer::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    if (!one_blob_only)
        return internal_error("layer type " + type + " does not implement forward");
    if (bottoms.size() != 1 || tops.size() != 1)
        return internal_error("one-blob layer called with several blobs");
    return forward(bottoms[0], tops[0], opt);
}

Status Layer::forward_inplace(std::vector<Mat>& blobs, const Option& opt) const {
    if (!one_blob_only || blobs.size() != 1)
        return internal_error("layer type " + type + " does not implement in-place forward");
    return forward_inplace(blobs[0], opt);
}

Status Layer::forward(const Mat& bottom, Mat& top, const Option& opt) const {
    if (support_inplace) {
        NF_RETURN_IF_ERROR(bottom.clone(top, opt.blob_allocator));
        return forward_inplace(top, opt);
    }
    return internal_error("layer type " + type + " does not implement forward");
}

Status Layer::forward_inplace(Mat&, const Option&) const {
    return internal_error("layer type " + type + " does not implement in-place forward");
}

Status Layer::same_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    if (bottoms.size() != 1)
        return shape_mismatch(type + " takes one input, got " + std::to_string(bottoms.size()));
    tops.assign(1, bottoms[0]);
    return Status::ok();
}

}  // namespace nnfold
