// ModelHandle::picture_sample: a PNG/JPEG as a calibration sample for the model's one image input,
// keyed and laid out as inputs() presents it (plain [c, h, w]; mapped NCHW; mapped NHWC), and the
// models pictures cannot feed (several inputs, 4 channels, unknown sizes).
#include <gtest/gtest.h>

#include "api/model.h"
#include "io/io_map.h"
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

// An 8x6 RGB PNG with distinct values.
std::vector<uint8_t> test_png(std::vector<uint8_t>* pixels = nullptr) {
    std::vector<uint8_t> px(8 * 6 * 3), out;
    for (size_t i = 0; i < px.size(); i++)
        px[i] = (uint8_t)(i * 29 + 7);
    EXPECT_NE(stbi_write_png_to_func(append, &out, 8, 6, 3, px.data(), 8 * 3), 0);
    if (pixels)
        *pixels = px;
    return out;
}

ModelHandle& load(ModelHandle& h, const std::string& param) {
    Status st = h.load_ncnn(param, nullptr, 0, false, LoadOptions());
    EXPECT_TRUE(st.is_ok()) << st.message();
    return h;
}

const char* kRgbModel =
    "7767517\n2 2\nInput data 0 1 data 0=4 1=3 2=3\nConvolution conv 1 1 data out 0=2 1=1 5=1 6=6\n";

}  // namespace

TEST(PictureSample, PlainInputIsPlanarCHW) {
    ModelHandle h;
    load(h, kRgbModel);
    auto bytes = test_png();
    PictureToTensor opt;
    opt.mean = {1, 2, 3};
    std::map<std::string, Mat> s;
    Status st = h.picture_sample(bytes.data(), bytes.size(), "cat.png", opt, s);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_EQ(s.size(), 1u);
    ASSERT_EQ(s.count("data"), 1u);
    EXPECT_EQ(s["data"].shape(), Shape::d3(4, 3, 3));
    // the same as decoding and converting by hand
    Picture pic;
    ASSERT_TRUE(decode_picture(bytes.data(), bytes.size(), "cat.png", pic).is_ok());
    Mat ref;
    ASSERT_TRUE(picture_to_mat(pic, 3, 3, 4, opt, "cat.png", ref).is_ok());
    EXPECT_EQ(test::to_vector(s["data"]), test::to_vector(ref));
    // and the model runs on it
    std::map<std::string, Mat> out;
    ASSERT_TRUE(h.run(s, {}, out).is_ok());
    EXPECT_EQ(out["out"].shape(), Shape::d3(4, 3, 2));
}

TEST(PictureSample, MappedInputsNchwAndNhwc) {
    for (bool nhwc : {false, true}) {
        SCOPED_TRACE(nhwc ? "NHWC" : "NCHW");
        ModelHandle h;
        load(h, kRgbModel);
        IoMap io;
        IoEntry e;
        e.name = "image";
        e.blob = "data";
        e.shape = nhwc ? std::vector<int64_t>{1, 3, 4, 3} : std::vector<int64_t>{1, 3, 3, 4};
        e.layout = nhwc ? "NHWC" : "";
        if (nhwc)
            e.perm = {0, 3, 1, 2};
        e.ncnn_shape = Shape::d3(4, 3, 3);
        io.inputs.push_back(e);
        Status st = h.set_io_map(io);
        ASSERT_TRUE(st.is_ok()) << st.message();
        auto bytes = test_png();
        std::map<std::string, Mat> s;
        st = h.picture_sample(bytes.data(), bytes.size(), "cat.png", PictureToTensor(), s);
        ASSERT_TRUE(st.is_ok()) << st.message();
        ASSERT_EQ(s.count("image"), 1u);
        const Mat& m = s["image"];
        ASSERT_EQ(m.total_floats(), 36u);
        // back into the ncnn blob through the io map: the planar picture
        Mat blob;
        ASSERT_TRUE(io_to_ncnn(e, m.data, m.total_floats(), blob).is_ok());
        Picture pic;
        ASSERT_TRUE(decode_picture(bytes.data(), bytes.size(), "cat.png", pic).is_ok());
        Mat ref;
        ASSERT_TRUE(picture_to_mat(pic, 3, 3, 4, PictureToTensor(), "cat.png", ref).is_ok());
        EXPECT_EQ(test::to_vector(blob), test::to_vector(ref));
        if (nhwc) {
            // channels last: value (y=0, x=1, c=2) is B of the resized pixel (0, 1)
            EXPECT_EQ(m.data[1 * 3 + 2], ref.channel(2)[1]);
        }
        std::map<std::string, Mat> out;
        ASSERT_TRUE(h.run(s, {}, out).is_ok());
    }
}

TEST(PictureSample, ModelsPicturesCannotFeed) {
    auto bytes = test_png();
    std::map<std::string, Mat> s;
    {
        ModelHandle h;
        load(h, "7767517\n2 2\nInput data 0 1 data 0=4 1=3 2=4\nConvolution conv 1 1 data out 0=2 1=1 5=1 6=8\n");
        Status st = h.picture_sample(bytes.data(), bytes.size(), "cat.png", PictureToTensor(), s);
        ASSERT_FALSE(st.is_ok());
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("'cat.png': input 'data' has 4 channels; pictures give 1 (gray) or 3"),
                  std::string::npos)
            << st.message();
        EXPECT_TRUE(s.empty());
    }
    {
        ModelHandle h;
        load(h, "7767517\n3 3\nInput a 0 1 a 0=4 1=3 2=3\nInput b 0 1 b 0=4 1=3 2=3\nBinaryOp add 2 1 a b out\n");
        Status st = h.picture_sample(bytes.data(), bytes.size(), "cat.png", PictureToTensor(), s);
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("one input; this one has 2"), std::string::npos) << st.message();
    }
    {
        ModelHandle h;  // no declared shape
        load(h, "7767517\n2 2\nInput data 0 1 data\nReLU relu 1 1 data out\n");
        Status st = h.picture_sample(bytes.data(), bytes.size(), "cat.png", PictureToTensor(), s);
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("give --shape"), std::string::npos) << st.message();
    }
    {
        ModelHandle h;  // a vector input
        load(h, "7767517\n2 2\nInput data 0 1 data 0=12\nReLU relu 1 1 data out\n");
        Status st = h.picture_sample(bytes.data(), bytes.size(), "cat.png", PictureToTensor(), s);
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("pictures need an image input"), std::string::npos) << st.message();
    }
    {
        ModelHandle h;  // a good model, a file that is not a picture
        load(h, kRgbModel);
        const char text[] = "hello";
        Status st = h.picture_sample((const uint8_t*)text, 5, "notes.png", PictureToTensor(), s);
        EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(st.message().find("'notes.png' is not a PNG or JPEG picture"), std::string::npos) << st.message();
    }
}
