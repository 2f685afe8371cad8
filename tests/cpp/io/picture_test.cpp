// Pictures as calibration inputs (src/io/picture.h): PNG/JPEG decoding, ncnn's fixed-point
// bilinear resize (src/mat_pixel_resize.cpp resize_bilinear_c3, values worked out by hand below),
// channel order, gray conversion, mean/norm, .f32 tensors, and every bad input the CLI and the
// page can meet (not a picture, truncated, image bombs, wrong channel counts, wrong sizes).
// Test pictures are written here with stb_image_write.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "io/picture.h"
#include "test_util.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

using namespace nnfold;

namespace {

void append(void* ctx, void* data, int size) {
    auto* v = (std::vector<uint8_t>*)ctx;
    v->insert(v->end(), (uint8_t*)data, (uint8_t*)data + size);
}

std::vector<uint8_t> png(int w, int h, int c, const std::vector<uint8_t>& px) {
    std::vector<uint8_t> out;
    EXPECT_NE(stbi_write_png_to_func(append, &out, w, h, c, px.data(), w * c), 0);
    return out;
}

// JPEGs come from tests/data/pictures/ (written once by stb_image_write at quality 100: a flat
// 16x8 (200, 100, 50) picture and a 32x32 one of byte i = (i * 7919) >> 3), not encoded here:
// stb_image_write's JPEG encoder shifts negative values, which UBSan stops on.
std::vector<uint8_t> test_jpg(const char* name) {
    return test::read_bytes(test::source_dir() + "/tests/data/pictures/" + name);
}

Picture decode_ok(const std::vector<uint8_t>& bytes) {
    Picture p;
    Status st = decode_picture(bytes.data(), bytes.size(), "pic.png", p);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return p;
}

void put_be32(std::vector<uint8_t>& v, uint32_t x) {
    for (int s = 24; s >= 0; s -= 8)
        v.push_back((uint8_t)(x >> s));
}

uint32_t crc32(const uint8_t* d, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= d[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return c ^ 0xffffffffu;
}

// A 65-byte PNG declaring w x h RGB pixels (IHDR, one empty IDAT, IEND): an image bomb.
std::vector<uint8_t> png_header_only(uint32_t w, uint32_t h) {
    std::vector<uint8_t> v = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    auto chunk = [&](const char* type, const std::vector<uint8_t>& body) {
        put_be32(v, (uint32_t)body.size());
        size_t start = v.size();
        v.insert(v.end(), type, type + 4);
        v.insert(v.end(), body.begin(), body.end());
        put_be32(v, crc32(&v[start], v.size() - start));
    };
    std::vector<uint8_t> ihdr;
    put_be32(ihdr, w);
    put_be32(ihdr, h);
    ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB
    chunk("IHDR", ihdr);
    chunk("IDAT", {0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01});
    chunk("IEND", {});
    return v;
}

// Channel q of a planar Mat as a vector.
std::vector<float> plane(const Mat& m, int q) {
    const float* p = m.channel(q);
    return std::vector<float>(p, p + (size_t)m.w * m.h);
}

}  // namespace

TEST(Picture, DecodesPngExactlyInEveryChannelCount) {
    std::vector<uint8_t> rgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90};
    Picture p = decode_ok(png(3, 2, 3, rgb));
    EXPECT_EQ(p.width, 3);
    EXPECT_EQ(p.height, 2);
    EXPECT_EQ(p.channels, 3);
    EXPECT_EQ(p.pixels, rgb);
    for (int c : {1, 2, 4}) {
        std::vector<uint8_t> px(2 * 2 * c);
        for (size_t i = 0; i < px.size(); i++)
            px[i] = (uint8_t)(i * 17 + 3);
        Picture q = decode_ok(png(2, 2, c, px));
        EXPECT_EQ(q.channels, c);
        EXPECT_EQ(q.pixels, px);
    }
}

TEST(Picture, DecodesJpegCloseToItsPixels) {
    // a flat color survives JPEG at quality 100 within a step or two
    std::vector<uint8_t> px(16 * 8 * 3);
    for (size_t i = 0; i < px.size(); i += 3) {
        px[i] = 200;
        px[i + 1] = 100;
        px[i + 2] = 50;
    }
    Picture p = decode_ok(test_jpg("flat_16x8.jpg"));
    ASSERT_EQ(p.width, 16);
    ASSERT_EQ(p.height, 8);
    ASSERT_EQ(p.channels, 3);
    for (size_t i = 0; i < p.pixels.size(); i++)
        EXPECT_NEAR(p.pixels[i], px[i], 3) << i;
}

TEST(Picture, RefusesWhatIsNotAPicture) {
    const char* html = "<!DOCTYPE html><html></html>";
    Picture p;
    Status st = decode_picture((const uint8_t*)html, strlen(html), "page.png", p);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("'page.png' is not a PNG or JPEG picture (it starts with '<!DOCTYP')"), std::string::npos)
        << st.message();
    st = decode_picture(nullptr, 0, "empty.jpg", p);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("'empty.jpg' is empty"), std::string::npos) << st.message();
    // binary bytes are shown escaped
    const uint8_t gif[] = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0};
    st = decode_picture(gif, sizeof gif, "x.gif", p);
    EXPECT_NE(st.message().find("starts with 'GIF89a\\x01\\x00'"), std::string::npos) << st.message();
}

TEST(Picture, RefusesTruncatedFiles) {
    std::vector<uint8_t> px(32 * 32 * 3);
    for (size_t i = 0; i < px.size(); i++)
        px[i] = (uint8_t)(i * 7919 >> 3);
    for (bool is_png : {true, false}) {
        auto full = is_png ? png(32, 32, 3, px) : test_jpg("noise_32x32.jpg");
        ASSERT_TRUE(decode_ok(full).width == 32);
        // cut anywhere after the signature: every prefix is refused with invalid_argument
        for (size_t cut : {(size_t)12, (size_t)30, full.size() / 2, full.size() - 20, full.size() - 3}) {
            SCOPED_TRACE((is_png ? "png cut at " : "jpeg cut at ") + std::to_string(cut));
            Picture p;
            Status st = decode_picture(full.data(), cut, "cut", p);
            ASSERT_FALSE(st.is_ok());
            EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.message();
            EXPECT_NE(st.message().find(is_png ? "truncated or corrupt PNG" : "truncated"), std::string::npos)
                << st.message();
            EXPECT_TRUE(p.pixels.empty());
        }
    }
}

TEST(Picture, RefusesImageBombsBeforeDecoding) {
    auto bomb = png_header_only(100000, 100000);
    EXPECT_LE(bomb.size(), 65u);
    Picture p;
    Status st = decode_picture(bomb.data(), bomb.size(), "bomb.png", p);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit);
    EXPECT_NE(st.message().find("'bomb.png': the PNG declares 100000 x 100000 pixels, over the limit"),
              std::string::npos)
        << st.message();
    // a JPEG whose frame header (SOF0) declares 65000 x 65000 pixels, in 23 bytes
    const uint8_t jbomb[] = {0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xfd, 0xe8, 0xfd, 0xe8, 0x03, 0x01,
                             0x11, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9};
    st = decode_picture(jbomb, sizeof jbomb, "bomb.jpg", p);
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit);
    EXPECT_NE(st.message().find("'bomb.jpg': the JPEG declares 65000 x 65000 pixels"), std::string::npos)
        << st.message();
    // a size within the limits but too large for the caller's own limits
    PictureLimits small;
    small.max_pixels = 1000;
    st = decode_picture(bomb.data(), bomb.size(), "b.png", p, small);
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit);
    auto wide = png_header_only(40000, 2);  // 80,000 pixels but one side over 1 << 15
    st = decode_picture(wide.data(), wide.size(), "wide.png", p);
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit) << st.message();
    // a header within the limits whose data is missing: corrupt, not a crash
    auto empty = png_header_only(64, 64);
    st = decode_picture(empty.data(), empty.size(), "e.png", p);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.message();
}

TEST(Picture, ResizesAsNcnnFromPixelsResize) {
    // 2x2 gray -> 3x3. ncnn's coefficients (11 bits): x and y both get (2048, 0), (1024, 1024),
    // (0, 2048) at source 0, 0, 0; rows hold pixel * coef >> 4; a value is
    // (((b0 * row0) >> 16) + ((b1 * row1) >> 16) + 2) >> 2. Center: rows 6400 and 29120 ->
    // (100 + 455 + 2) >> 2 = 139.
    Picture p = decode_ok(png(2, 2, 1, {0, 100, 200, 255}));
    Mat m;
    ASSERT_TRUE(picture_to_mat(p, 1, 3, 3, PictureToTensor(), "p", m).is_ok());
    EXPECT_EQ(m.shape(), Shape::d3(3, 3, 1));
    EXPECT_EQ(plane(m, 0), (std::vector<float>{0, 50, 100, 100, 139, 178, 200, 228, 255}));

    // 3x3 -> 2x2: weights (1536, 512) and (512, 1536) on both axes. Top left: rows
    // (7 * 1536 + 13 * 512) >> 4 = 1088 and (1 * 1536 + 90 * 512) >> 4 = 2976, then
    // ((1536 * 1088) >> 16) + ((512 * 2976) >> 16) = 25 + 23, (48 + 2) >> 2 = 12
    p = decode_ok(png(3, 3, 1, {7, 13, 250, 1, 90, 33, 201, 5, 77}));
    ASSERT_TRUE(picture_to_mat(p, 1, 2, 2, PictureToTensor(), "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{12, 155, 120, 56}));

    // 5x4 -> 3x7 (thirds across, sevenths down; 2048 * 2/3 = 1365.33 -> 1365 and 683)
    std::vector<uint8_t> px;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++)
            px.push_back((uint8_t)((x * 37 + y * 91) % 256));
    p = decode_ok(png(5, 4, 1, px));
    ASSERT_TRUE(picture_to_mat(p, 1, 7, 3, PictureToTensor(), "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{12, 74, 136, 45, 106, 168, 97, 158, 220, 149, 83, 144, 182, 6, 68, 88,
                                               59, 120, 29, 91, 153}));

    // a source one pixel wide (ncnn reads index -1 with weight 0): the column is stretched
    p = decode_ok(png(1, 2, 1, {9, 200}));
    ASSERT_TRUE(picture_to_mat(p, 1, 3, 3, PictureToTensor(), "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{9, 9, 9, 105, 105, 105, 200, 200, 200}));

    // the same size: no resize (from_pixels), pixels as they are
    p = decode_ok(png(2, 1, 1, {3, 250}));
    ASSERT_TRUE(picture_to_mat(p, 1, 1, 2, PictureToTensor(), "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{3, 250}));
}

TEST(Picture, ChannelOrderGrayAndNormalization) {
    // two pixels: (R, G, B) = (10, 20, 30) and (200, 100, 0), plus alpha (dropped, not blended)
    Picture p = decode_ok(png(2, 1, 4, {10, 20, 30, 0, 200, 100, 0, 255}));
    Mat m;
    PictureToTensor opt;
    ASSERT_TRUE(picture_to_mat(p, 3, 1, 2, opt, "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{10, 200}));
    EXPECT_EQ(plane(m, 1), (std::vector<float>{20, 100}));
    EXPECT_EQ(plane(m, 2), (std::vector<float>{30, 0}));
    opt.rgb = false;  // BGR
    ASSERT_TRUE(picture_to_mat(p, 3, 1, 2, opt, "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{30, 0}));
    EXPECT_EQ(plane(m, 2), (std::vector<float>{10, 200}));
    // gray: ncnn's from_rgb2gray, (77 R + 150 G + 29 B) >> 8: (770 + 3000 + 870) >> 8 = 18,
    // (15400 + 15000) >> 8 = 118
    ASSERT_TRUE(picture_to_mat(p, 1, 1, 2, PictureToTensor(), "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{18, 118}));
    // a gray picture for an RGB model: replicated
    Picture g = decode_ok(png(1, 1, 1, {77}));
    ASSERT_TRUE(picture_to_mat(g, 3, 1, 1, PictureToTensor(), "g", m).is_ok());
    for (int q = 0; q < 3; q++)
        EXPECT_EQ(plane(m, q), (std::vector<float>{77}));
    // mean/norm as substract_mean_normalize: v * norm + (-mean * norm)
    opt = PictureToTensor();
    opt.mean = {104.f, 117.f, 123.f};
    opt.norm = {0.017f, 0.5f, 2.f};
    ASSERT_TRUE(picture_to_mat(p, 3, 1, 2, opt, "p", m).is_ok());
    EXPECT_EQ(plane(m, 0), (std::vector<float>{10.f * 0.017f + -(104.f * 0.017f), 200.f * 0.017f + -(104.f * 0.017f)}));
    EXPECT_EQ(plane(m, 1), (std::vector<float>{20.f * 0.5f - 58.5f, 100.f * 0.5f - 58.5f}));
    EXPECT_EQ(plane(m, 2), (std::vector<float>{30.f * 2.f - 246.f, -246.f}));
    // one value for every channel
    opt.mean = {127.5f};
    opt.norm = {1 / 127.5f};
    ASSERT_TRUE(picture_to_mat(p, 3, 1, 2, opt, "p", m).is_ok());
    EXPECT_FLOAT_EQ(m.channel(0)[1], 200.f * (1 / 127.5f) - 1.f);
}

TEST(Picture, RefusesInputsPicturesCannotGive) {
    Picture p = decode_ok(png(2, 2, 3, std::vector<uint8_t>(12, 9)));
    Mat m;
    for (int c : {2, 4, 16}) {
        Status st = picture_to_mat(p, c, 2, 2, PictureToTensor(), "cat.png", m);
        ASSERT_FALSE(st.is_ok());
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("'cat.png': the model input has " + std::to_string(c) + " channels"),
                  std::string::npos)
            << st.message();
        EXPECT_NE(st.message().find(".f32"), std::string::npos) << st.message();
    }
    PictureToTensor opt;
    opt.mean = {1, 2};
    Status st = picture_to_mat(p, 3, 2, 2, opt, "cat.png", m);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("2 mean values for a model input of 3 channel(s)"), std::string::npos)
        << st.message();
    opt.mean = {NAN};
    st = picture_to_mat(p, 3, 2, 2, opt, "cat.png", m);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("a mean value is not a finite number"), std::string::npos) << st.message();
    EXPECT_EQ(picture_to_mat(p, 3, 0, 2, PictureToTensor(), "cat.png", m).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(picture_to_mat(p, 3, 100000, 100000, PictureToTensor(), "cat.png", m).code(), ErrorCode::ResourceLimit);
}

TEST(Picture, F32Tensors) {
    std::vector<float> v = {1.5f, -2.f, 3.25f, 0.f, 7.f, 8.f};
    Mat m;
    ASSERT_TRUE(f32_to_mat((const uint8_t*)v.data(), v.size() * 4, Shape::d3(3, 1, 2), "s.f32", m).is_ok());
    EXPECT_EQ(m.shape(), Shape::d3(3, 1, 2));
    EXPECT_EQ(std::vector<float>(m.data, m.data + 6), v);
    Status st = f32_to_mat((const uint8_t*)v.data(), 20, Shape::d3(3, 1, 2), "s.f32", m);
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(st.message().find("'s.f32': 20 bytes, but a float32 tensor of shape [2,1,3] needs 24 bytes"),
              std::string::npos)
        << st.message();
    st = f32_to_mat((const uint8_t*)v.data(), 24, Shape(), "s.f32", m);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
}
