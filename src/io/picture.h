// Pictures as model inputs (quantization's calibration set, issue 14): PNG/JPEG decoded in C++ with
// stb_image (Debian libstb-dev, header-only) so the CLI, the npm package and the page turn the same
// file into the same tensor, then resized bilinearly to the input's size and normalized as ncnn's
// tools do (Mat::from_pixels_resize + substract_mean_normalize: value = (pixel - mean) * norm).
// Also raw `.f32` tensors. Every failure is a Status naming the file; nothing here allocates before
// the declared size has been checked against the limits (an "image bomb" declares huge dimensions
// in a few bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mat.h"
#include "core/status.h"

namespace nnfold {

struct PictureLimits {
    uint64_t max_pixels = 1ull << 26;  // declared width * height above this: resource_limit, not decoded
    int max_side = 1 << 15;            // either side above this: resource_limit
};

// A decoded picture: 8-bit samples, interleaved, `channels` per pixel (1 gray, 2 gray+alpha, 3 RGB,
// 4 RGBA) as the file stores them.
struct Picture {
    int width = 0, height = 0, channels = 0;
    std::vector<uint8_t> pixels;  // height * width * channels bytes, rows top to bottom
};

// Decodes PNG or JPEG bytes. `name` is used in messages. Not a PNG/JPEG, truncated or corrupt:
// invalid_argument naming the file and what is wrong; declared size over the limits: resource_limit
// (checked from the header, before decoding).
Status decode_picture(const uint8_t* data, size_t size, const std::string& name, Picture& out,
                      const PictureLimits& limits = {});

struct PictureToTensor {
    std::vector<float> mean;  // per channel of the model input (empty: 0); 1 value = all channels
    std::vector<float> norm;  // per channel (empty: 1); 1 value = all channels
    bool rgb = true;          // channel order the model expects (false: BGR, as OpenCV-trained ncnn models)
};

// Resizes `pic` bilinearly to w x h and converts it to a planar fp32 Mat of c channels, c being 1
// or 3 (gray -> RGB replicates, RGB -> gray averages as ncnn's PIXEL_RGB2GRAY does, alpha dropped);
// a model input of another channel count cannot take pictures: invalid_argument naming the file,
// the input's channel count and suggesting .f32 tensors.
Status picture_to_mat(const Picture& pic, int c, int h, int w, const PictureToTensor& opt, const std::string& name,
                      Mat& out);

// A raw little-endian float32 tensor file (`.f32`): its byte size must be exactly 4 * c*h*w of
// `shape` (invalid_argument naming the file, the expected and the found size otherwise).
Status f32_to_mat(const uint8_t* data, size_t size, const Shape& shape, const std::string& name, Mat& out);

}  // namespace nnfold
