// ModelHandle::picture_sample (src/api/model.h): one encoded PNG/JPEG picture -> a calibration
// sample for a model of one image input, through src/io/picture.h (decode, ncnn's bilinear resize,
// mean/norm). The sample is keyed and laid out as inputs() presents the input: a plain ncnn blob
// [c, h, w]; a mapped (ONNX) input in its original shape, [1, c, h, w] or, with layout "NHWC",
// [1, h, w, c] (dense, outermost first, as run() takes it).
#include <string>
#include <vector>

#include "api/model.h"
#include "core/strings.h"

namespace nnfold {

Status ModelHandle::picture_sample(const uint8_t* data, size_t size, const std::string& name,
                                   const PictureToTensor& opt, std::map<std::string, Mat>& sample) const {
    sample.clear();
    if (!loaded_)
        return invalid_argument("no model is loaded");
    std::vector<IoInfo> ins = inputs();
    if (ins.size() != 1)
        return invalid_argument("pictures calibrate a model of one input; this one has " + std::to_string(ins.size()) +
                                " (give .f32 tensors, one file per input)");
    const IoInfo& in = ins[0];
    // the input's c, h, w and whether it is presented channels-last
    std::vector<int64_t> d = in.dims;
    bool nhwc = in.mapped && in.layout == "NHWC";
    if (in.mapped && d.size() == 4 && d[0] == 1)
        d.erase(d.begin());  // the batch axis of 1
    auto unusable = [&](const std::string& why) {
        return invalid_argument("input " + quote(in.name) + " of shape " + dims_str(in.dims) + ": " + why);
    };
    if (d.size() != 3)
        return unusable(in.dims.empty() ? std::string("its shape is unknown (give --shape NAME=c,h,w)")
                                        : std::string("pictures need an image input of [c, h, w] (or [1, c, h, w], "
                                                      "[1, h, w, c]); give .f32 tensors instead"));
    for (int64_t x : d)
        if (x <= 0 || x > INT32_MAX)
            return unusable("its size is unknown or out of range (give --shape)");
    int c = (int)(nhwc ? d[2] : d[0]);
    int h = (int)(nhwc ? d[0] : d[1]);
    int w = (int)(nhwc ? d[1] : d[2]);
    if (c != 1 && c != 3)
        return invalid_argument(quote(name) + ": input " + quote(in.name) + " has " + std::to_string(c) +
                                " channels; pictures give 1 (gray) or 3 (RGB/BGR). Give .f32 tensors for this model");

    Picture pic;
    NF_RETURN_IF_ERROR(decode_picture(data, size, name, pic));
    Mat planar;
    NF_RETURN_IF_ERROR(picture_to_mat(pic, c, h, w, opt, name, planar));
    if (!nhwc) {
        sample[in.name] = planar;
        return Status::ok();
    }
    // channels last: [h, w, c] values (the batch of 1 adds nothing to a dense layout)
    Mat m;
    NF_RETURN_IF_ERROR(m.create(Shape::d3(c, w, h)));
    const size_t plane = (size_t)h * w;
    for (int q = 0; q < c; q++) {
        const float* p = planar.channel(q);
        for (size_t i = 0; i < plane; i++)
            m.data[i * c + q] = p[i];
    }
    sample[in.name] = m;
    return Status::ok();
}

}  // namespace nnfold
