// Pictures as model inputs (src/io/picture.h): PNG/JPEG decoding with stb_image, and the resize and
// normalization of ncnn's tools, reproduced bit for bit so that a calibration table made from the
// same decoded pixels matches ncnn2table's:
//   - ncnn2table (tools/quantize/ncnn2table.cpp, read_and_resize_image) reads every picture as
//     3-channel BGR (cv::imread(path, 1): gray replicated, alpha dropped), then
//     Mat::from_pixels_resize (src/mat_pixel.cpp) resizes those 3 channels with
//     resize_bilinear_c3 (src/mat_pixel_resize.cpp: 11-bit fixed-point coefficients, rows kept
//     as shorts, the `(b * s) >> 16` vertical step) and converts to the model's order (RGB, BGR or
//     gray with from_rgb2gray's 77/150/29 >> 8), then substract_mean_normalize (src/mat.cpp) adds
//     a Scale layer: v * norm + (-mean * norm).
// JPEG: stb_image's decoder is not libjpeg's (OpenCV's), so a JPEG may decode to pixels a step
// apart from what ncnn2table sees; PNG decodes exactly. stb's SIMD paths are off so that native and
// wasm builds decode the same pixels.
#include "io/picture.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/strings.h"

namespace nnfold {

namespace {

// stb_image's allocations go through these (STBI_MALLOC etc. below): every block carries its size
// in a header, and the live total of one decode is held under a budget set from the declared size,
// so a picture that declares a small size but expands beyond it (a zlib stream that never ends)
// fails inside stb instead of exhausting memory.
struct StbBudget {
    uint64_t live = 0;
    uint64_t limit = 0;  // 0: no decode in progress (nothing may allocate)
};
thread_local StbBudget g_stb_budget;

constexpr size_t kStbHeader = 16;  // keeps the block's alignment at 16 bytes

void* stb_budget_malloc(size_t n) {
    StbBudget& b = g_stb_budget;
    if (n > SIZE_MAX - kStbHeader || b.live + n > b.limit)
        return nullptr;  // stb reports "outofmem"
    unsigned char* p = (unsigned char*)malloc(n + kStbHeader);
    if (!p)
        return nullptr;
    memcpy(p, &n, sizeof n);
    b.live += n;
    return p + kStbHeader;
}

void stb_budget_free(void* q) {
    if (!q)
        return;
    unsigned char* p = (unsigned char*)q - kStbHeader;
    size_t n;
    memcpy(&n, p, sizeof n);
    g_stb_budget.live -= n;
    free(p);
}

void* stb_budget_realloc(void* q, size_t n) {
    if (!q)
        return stb_budget_malloc(n);
    unsigned char* p = (unsigned char*)q - kStbHeader;
    size_t old;
    memcpy(&old, p, sizeof old);
    StbBudget& b = g_stb_budget;
    if (n > SIZE_MAX - kStbHeader || (n > old && b.live + (n - old) > b.limit))
        return nullptr;  // stb frees the old block itself
    unsigned char* r = (unsigned char*)realloc(p, n + kStbHeader);
    if (!r)
        return nullptr;
    memcpy(r, &n, sizeof n);
    b.live = b.live - old + n;
    return r + kStbHeader;
}

}  // namespace

}  // namespace nnfold

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_NO_SIMD  // the same pixels natively (SSE2 would be used) and in wasm
#define STBI_MALLOC(n) nnfold::stb_budget_malloc(n)
#define STBI_REALLOC(p, n) nnfold::stb_budget_realloc(p, n)
#define STBI_FREE(p) nnfold::stb_budget_free(p)
// the limits are checked before stb runs (decode_picture); this is stb's own last line
#define STBI_MAX_DIMENSIONS (1 << 24)
#include <stb/stb_image.h>

namespace nnfold {

namespace {

bool starts_with(const uint8_t* d, size_t n, const char* sig, size_t len) { return n >= len && memcmp(d, sig, len) == 0; }

// What a file that is not a PNG/JPEG looks like, for the message: its first bytes, printable ones
// as they are.
std::string first_bytes(const uint8_t* d, size_t n) {
    std::string s;
    for (size_t i = 0; i < n && i < 8; i++) {
        char c = (char)d[i];
        if (d[i] >= 0x20 && d[i] < 0x7f) {
            s += c;
        } else {
            static const char hex[] = "0123456789abcdef";
            s += "\\x";
            s += hex[d[i] >> 4];
            s += hex[d[i] & 15];
        }
    }
    return s;
}

// stb_image decodes a JPEG cut short as if the missing data were there (gray or smeared rows), so
// the end is checked here: the last scan (SOS, FF DA) must be followed by the end-of-image marker
// (FF D9). Entropy-coded data cannot hold FF D9 (an FF byte there is stuffed as FF 00), and an EXIF
// thumbnail's scan comes before the main one.
bool jpeg_complete(const uint8_t* d, size_t n) {
    size_t last_sos = SIZE_MAX;
    for (size_t i = 0; i + 1 < n; i++)
        if (d[i] == 0xff && d[i + 1] == 0xda)
            last_sos = i;
    if (last_sos == SIZE_MAX)
        return false;
    for (size_t i = last_sos + 2; i + 1 < n; i++)
        if (d[i] == 0xff && d[i + 1] == 0xd9)
            return true;
    return false;
}

// A PNG's chunks up to IEND (length, type, data, CRC each), walked without reading the data: the
// file must hold them all. stb_image stops at IEND and ignores a missing CRC after it; a file cut
// inside IDAT is caught by stb's inflate as well.
bool png_complete(const uint8_t* d, size_t n) {
    size_t at = 8;
    while (at + 8 <= n) {
        uint32_t len = ((uint32_t)d[at] << 24) | ((uint32_t)d[at + 1] << 16) | ((uint32_t)d[at + 2] << 8) | d[at + 3];
        if (len > n - at - 8 || n - at - 8 - len < 4)
            return false;
        if (memcmp(d + at + 4, "IEND", 4) == 0)
            return true;
        at += 12 + (size_t)len;
    }
    return false;
}

// The width and height a PNG's IHDR declares (the first chunk, by the format), or false.
bool png_declared_size(const uint8_t* d, size_t n, uint64_t& w, uint64_t& h) {
    if (n < 24 || memcmp(d + 12, "IHDR", 4) != 0)
        return false;
    auto be32 = [&](size_t i) {
        return ((uint32_t)d[i] << 24) | ((uint32_t)d[i + 1] << 16) | ((uint32_t)d[i + 2] << 8) | d[i + 3];
    };
    w = be32(16);
    h = be32(20);
    return true;
}

// SATURATE_CAST_SHORT of src/mat_pixel_resize.cpp: rounds half away from zero in float, then clamps.
short saturate_short(float x) {
    int v = (int)(x + (x >= 0.f ? 0.5f : -0.5f));
    return (short)std::min(std::max(v, SHRT_MIN), SHRT_MAX);
}

// One axis of ncnn's bilinear resize (resize_bilinear_c3's xofs/ialpha and yofs/ibeta loops):
// source index and two 11-bit coefficients per destination index.
void resize_coeffs(int src, int dst, std::vector<int>& ofs, std::vector<short>& coef) {
    const int kScale = 1 << 11;  // INTER_RESIZE_COEF_SCALE
    double scale = (double)src / dst;
    ofs.resize(dst);
    coef.resize(2 * (size_t)dst);
    for (int d = 0; d < dst; d++) {
        float f = (float)((d + 0.5) * scale - 0.5);
        int s = (int)std::floor(f);
        f -= s;
        if (s < 0) {
            s = 0;
            f = 0.f;
        }
        if (s >= src - 1) {
            s = src - 2;  // -1 for a source of one pixel: ncnn then reads index -1 with weight 0
            f = 1.f;
        }
        ofs[d] = s;
        float a0 = (1.f - f) * kScale;
        float a1 = f * kScale;
        coef[2 * d] = saturate_short(a0);
        coef[2 * d + 1] = saturate_short(a1);
    }
}

// resize_bilinear_c3 (src/mat_pixel_resize.cpp), interleaved 3-channel bytes. The horizontal step
// keeps rows as shorts (pixel * coef >> 4), the vertical one is vresize_one's scalar formula. ncnn
// reuses rows between output rows that share a source row; the values do not depend on that. A
// source side of 1 pixel makes ncnn read index -1 with weight 0: here index 0, the same value.
void resize_bilinear_c3(const uint8_t* src, int srcw, int srch, uint8_t* dst, int w, int h) {
    std::vector<int> xofs, yofs;
    std::vector<short> alpha, beta;
    resize_coeffs(srcw, w, xofs, alpha);
    resize_coeffs(srch, h, yofs, beta);
    std::vector<short> rows0((size_t)w * 3), rows1((size_t)w * 3);
    auto hresize = [&](int sy, short* rows) {
        sy = std::min(std::max(sy, 0), srch - 1);
        const uint8_t* S = src + (size_t)sy * srcw * 3;
        for (int dx = 0; dx < w; dx++) {
            int x0 = std::max(xofs[dx], 0), x1 = std::min(xofs[dx] + 1, srcw - 1);
            short a0 = alpha[2 * dx], a1 = alpha[2 * dx + 1];
            for (int k = 0; k < 3; k++)
                rows[dx * 3 + k] = (short)((S[x0 * 3 + k] * a0 + S[x1 * 3 + k] * a1) >> 4);
        }
    };
    for (int dy = 0; dy < h; dy++) {
        int sy = yofs[dy];
        hresize(sy, rows0.data());
        hresize(sy + 1, rows1.data());
        short b0 = beta[2 * dy], b1 = beta[2 * dy + 1];
        uint8_t* D = dst + (size_t)dy * w * 3;
        for (int i = 0; i < w * 3; i++)
            D[i] = (uint8_t)(((short)((b0 * rows0[i]) >> 16) + (short)((b1 * rows1[i]) >> 16) + 2) >> 2);
    }
}

Status per_channel(const std::vector<float>& v, int c, float def, const char* what, const std::string& name,
                   std::vector<float>& out) {
    out.assign(c, def);
    if (v.empty())
        return Status::ok();
    for (float x : v)
        if (!std::isfinite(x))
            return invalid_argument(quote(name) + ": a " + what + " value is not a finite number");
    if (v.size() == 1) {
        out.assign(c, v[0]);
        return Status::ok();
    }
    if ((int)v.size() != c)
        return invalid_argument(quote(name) + ": " + std::to_string(v.size()) + " " + what +
                                " values for a model input of " + std::to_string(c) + " channel(s) (give 1 or " +
                                std::to_string(c) + ")");
    out = v;
    return Status::ok();
}

}  // namespace

Status decode_picture(const uint8_t* data, size_t size, const std::string& name, Picture& out,
                      const PictureLimits& limits) {
    out = Picture();
    const std::string who = quote(name);
    if (size == 0)
        return invalid_argument(who + " is empty (expected a PNG or JPEG picture)");
    bool png = starts_with(data, size, "\x89PNG\r\n\x1a\n", 8);
    bool jpeg = starts_with(data, size, "\xff\xd8\xff", 3);
    if (!png && !jpeg)
        return invalid_argument(who + " is not a PNG or JPEG picture (it starts with '" + first_bytes(data, size) +
                                "')");
    const char* kind = png ? "PNG" : "JPEG";
    if (size > (size_t)INT_MAX)
        return resource_limit(who + ": a " + kind + " file over 2 GB is not read");
    auto over_limits = [&](uint64_t w, uint64_t h) {
        return w > (uint64_t)limits.max_side || h > (uint64_t)limits.max_side || w * h > limits.max_pixels;
    };
    auto bomb = [&](uint64_t w, uint64_t h) {
        return resource_limit(who + ": the " + kind + " declares " + std::to_string(w) + " x " + std::to_string(h) +
                              " pixels, over the limit of " + std::to_string(limits.max_pixels) + " pixels and " +
                              std::to_string(limits.max_side) + " per side; not decoded");
    };
    // PNG: the declared size straight from IHDR (stb's header reader calls any size over its own
    // maximum an "unknown image type"); then the whole chunk list must be there
    uint64_t pw = 0, ph = 0;
    if (png && png_declared_size(data, size, pw, ph) && over_limits(pw, ph))
        return bomb(pw, ph);
    if (png && !png_complete(data, size))
        return invalid_argument(who + ": truncated or corrupt PNG (its chunks end before IEND)");
    int w = 0, h = 0, comp = 0;
    // the header alone: a picture declaring an enormous size is refused before anything is allocated
    g_stb_budget = StbBudget{0, 1 << 20};
    int info = stbi_info_from_memory(data, (int)size, &w, &h, &comp);
    g_stb_budget = StbBudget{};
    if (!info)
        return invalid_argument(who + ": truncated or corrupt " + kind + " (" + stbi_failure_reason() + ")");
    uint64_t pixels = (uint64_t)w * (uint64_t)h;
    if (w <= 0 || h <= 0 || comp < 1 || comp > 4)
        return invalid_argument(who + ": the " + kind + " header declares " + std::to_string(w) + " x " +
                                std::to_string(h) + " pixels of " + std::to_string(comp) + " channel(s)");
    if (over_limits((uint64_t)w, (uint64_t)h))
        return bomb((uint64_t)w, (uint64_t)h);
    if (jpeg && !jpeg_complete(data, size))
        return invalid_argument(who + ": truncated JPEG (no end-of-image marker after its last scan)");
    // stb's own peak for a picture of this size (PNG: the inflated rows at up to 16 bits and 4
    // channels, the filtered image, the 16 -> 8 bit copy; progressive JPEG: 16-bit coefficients per
    // component plus the planes and the result), with room for its small tables
    g_stb_budget = StbBudget{0, pixels * 24 + ((uint64_t)4 << 20)};
    int dw = 0, dh = 0, dc = 0;
    unsigned char* px = stbi_load_from_memory(data, (int)size, &dw, &dh, &dc, 0);
    if (!px) {
        g_stb_budget = StbBudget{};
        std::string why = stbi_failure_reason();
        if (why == "outofmem")
            return resource_limit(who + ": decoding the " + kind + " needs more memory than its declared " +
                                  std::to_string(w) + " x " + std::to_string(h) + " pixels allow (corrupt data)");
        return invalid_argument(who + ": truncated or corrupt " + kind + " (" + why + ")");
    }
    if (dw != w || dh != h || dc < 1 || dc > 4) {
        stbi_image_free(px);
        g_stb_budget = StbBudget{};
        return invalid_argument(who + ": the " + kind + " decodes to another size than its header declares");
    }
    try {
        out.pixels.assign(px, px + (size_t)dw * dh * dc);
    } catch (...) {
        stbi_image_free(px);
        g_stb_budget = StbBudget{};
        throw;
    }
    stbi_image_free(px);
    g_stb_budget = StbBudget{};
    out.width = dw;
    out.height = dh;
    out.channels = dc;
    return Status::ok();
}

Status picture_to_mat(const Picture& pic, int c, int h, int w, const PictureToTensor& opt, const std::string& name,
                      Mat& out) {
    const std::string who = quote(name);
    if (c != 1 && c != 3)
        return invalid_argument(who + ": the model input has " + std::to_string(c) +
                                " channels; pictures give 1 (gray) or 3 (RGB/BGR). Use .f32 tensors for this model");
    if (h <= 0 || w <= 0)
        return invalid_argument(who + ": the model input has no known height and width (give --shape)");
    if ((uint64_t)h * (uint64_t)w > ((uint64_t)1 << 28))
        return resource_limit(who + ": a model input of " + std::to_string(w) + " x " + std::to_string(h) +
                              " pixels is too large for pictures");
    if (pic.width <= 0 || pic.height <= 0 || pic.channels < 1 || pic.channels > 4 ||
        pic.pixels.size() != (size_t)pic.width * pic.height * pic.channels)
        return invalid_argument(who + ": not a decoded picture");
    std::vector<float> mean, norm;
    NF_RETURN_IF_ERROR(per_channel(opt.mean, c, 0.f, "mean", name, mean));
    NF_RETURN_IF_ERROR(per_channel(opt.norm, c, 1.f, "norm", name, norm));

    // as cv::imread(path, 1): 3 channels (gray replicated, alpha dropped, not blended)
    const int pc = pic.channels;
    std::vector<uint8_t> rgb((size_t)pic.width * pic.height * 3);
    for (size_t i = 0, n = (size_t)pic.width * pic.height; i < n; i++) {
        const uint8_t* p = &pic.pixels[i * pc];
        if (pc <= 2) {
            rgb[i * 3] = rgb[i * 3 + 1] = rgb[i * 3 + 2] = p[0];
        } else {
            rgb[i * 3] = p[0];
            rgb[i * 3 + 1] = p[1];
            rgb[i * 3 + 2] = p[2];
        }
    }
    // Mat::from_pixels_resize: no resize when the size already fits
    std::vector<uint8_t> resized;
    const uint8_t* src = rgb.data();
    if (pic.width != w || pic.height != h) {
        resized.resize((size_t)w * h * 3);
        resize_bilinear_c3(rgb.data(), pic.width, pic.height, resized.data(), w, h);
        src = resized.data();
    }
    NF_RETURN_IF_ERROR(out.create(Shape::d3(w, h, c)));
    const size_t n = (size_t)w * h;
    for (int q = 0; q < c; q++) {
        // substract_mean_normalize's Scale layer with bias: v * norm + (-mean * norm)
        const float s = norm[q], b = -mean[q] * norm[q];
        float* o = out.channel(q);
        for (size_t i = 0; i < n; i++) {
            const uint8_t* p = src + i * 3;  // R, G, B
            float v;
            if (c == 1)
                v = (float)((p[0] * 77 + p[1] * 150 + p[2] * 29) >> 8);  // from_rgb2gray
            else
                v = (float)p[opt.rgb ? q : 2 - q];
            o[i] = v * s + b;
        }
    }
    return Status::ok();
}

Status f32_to_mat(const uint8_t* data, size_t size, const Shape& shape, const std::string& name, Mat& out) {
    const std::string who = quote(name);
    if (!shape.known() || !shape.valid())
        return invalid_argument(who + ": the model input has no known shape (give --shape)");
    uint64_t expected = shape.total() * 4;
    if ((uint64_t)size != expected)
        return invalid_argument(who + ": " + std::to_string(size) + " bytes, but a float32 tensor of shape " +
                                shape.str() + " needs " + std::to_string(expected) + " bytes");
    NF_RETURN_IF_ERROR(out.create(shape));
    // .f32 files are little-endian, as every target nnfold builds for
    if (size)
        memcpy(out.data, data, size);
    return Status::ok();
}

}  // namespace nnfold
