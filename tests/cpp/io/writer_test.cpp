// Writing .param/.bin: canonical form, fixed point, exact floats, storage bytes preserved.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "analysis/analysis.h"
#include "io/float_token.h"
#include "io/ncnn_io.h"
#include "runtime/random.h"
#include "test_util.h"

using namespace nnfold;

static std::string write_text(const Graph& g) {
    std::string out;
    Warnings w;
    Status st = write_param(g, out, w);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return out;
}

static Graph parse(const std::string& text) {
    Graph g;
    Warnings w;
    Status st = read_param(text, g, w);
    EXPECT_TRUE(st.is_ok()) << st.message() << "\n" << text;
    return g;
}

TEST(ParamWriter, CanonicalOrderDefaultsOmittedFloatsExact) {
    // params out of order, defaults spelled out (11=kernel_w, 2=1, 13=stride_w, 14..16=pad_left),
    // an int token for a float param
    Graph g = parse("7767517\n2 2\nInput data 0 1 data 2=3 1=6 0=8\n"
                    "Convolution conv 1 1 data out 6=108 11=3 1=3 2=1 0=4 13=1 14=1 4=1 15=1 16=1 18=0 5=0 "
                    "9=2 -23310=1,0.000123000005\n");
    std::string text = write_text(g);
    EXPECT_NE(text.find("Convolution              conv                     1 1 data out 0=4 1=3 4=1 6=108 9=2 -23310=1,"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Input                    data                     0 1 data 0=8 1=6 2=3\n"), std::string::npos)
        << text;
    // the float written reads back to the same bits with ncnn's parser
    Graph g2 = parse(text);
    EXPECT_EQ(g2.layers[1].params.at(10).array[0], g.layers[1].params.at(10).array[0]);
}

TEST(ParamWriter, NonFiniteFloatWrittenAsBitPattern) {
    Graph g = parse("7767517\n2 2\nInput data 0 1 data\nReLU r 1 1 data out 0=1.5\n");
    g.layers[1].params.set_float(0, std::nanf(""));
    std::string text = write_text(g);
    Graph g2 = parse(text);
    EXPECT_TRUE(std::isnan(g2.layers[1].params.get_float(0, 0.f))) << text;
    EXPECT_EQ(g2.layers[1].params.at(0).bits, g.layers[1].params.at(0).bits);
}

TEST(ParamWriter, UnknownParamsKeptAsWritten) {
    Graph g = parse("7767517\n2 2\nInput data 0 1 data\nNoop n 1 1 data out 7=1.5 3=4 -23305=2,1,2.5e+00 9=\"s\"\n");
    std::string text = write_text(g);
    EXPECT_NE(text.find("3=4 -23305=2,1,2.5e+00 7=1.5e+00 9=\"s\""), std::string::npos) << text;
}

TEST(ParamWriter, ShapeHintsFromInference) {
    Graph g = parse("7767517\n2 2\nInput data 0 1 data 0=8 1=6 2=3\n"
                    "Convolution conv 1 1 data out 0=4 1=3 6=108\n");
    ASSERT_TRUE(annotate_shapes(g, {}).is_ok());
    std::string text = write_text(g);
    EXPECT_NE(text.find("data out -23330=4,3,6,4,4 0=4"), std::string::npos) << text;
    // unknown shapes: no hints
    Graph h = parse("7767517\n2 2\nInput data 0 1 data\nReLU r 1 1 data out\n");
    ASSERT_TRUE(annotate_shapes(h, {}).is_ok());
    EXPECT_EQ(write_text(h).find("-23330"), std::string::npos);
}

TEST(ParamWriter, ReadWriteReadWriteIsAFixedPoint) {
    std::string src = "7767517\n4 5\nInput data 0 1 data -23330=4,3,8,8,3 0=8 1=8 2=3\n"
                      "Convolution conv1 1 1 data conv1 0=4 1=3 4=1 5=1 6=108 9=3 -23310=2,0.0,6.0\n"
                      "Split sp 1 2 conv1 a b\nReLU relu 1 1 a r 0=0.1\n";
    Graph g1 = parse(src);
    std::string t1 = write_text(g1);
    Graph g2 = parse(t1);
    std::string t2 = write_text(g2);
    EXPECT_EQ(t1, t2);
}

TEST(BinIO, StorageBytesSurviveRoundTrip) {
    const char* param = "7767517\n2 2\nInput data 0 1 data 0=4 1=4 2=2\nConvolution conv 1 1 data out 0=3 1=3 5=1 6=54\n";
    std::vector<float> vals(54);
    for (int i = 0; i < 54; i++)
        vals[i] = 0.01f * (float)(i - 27);
    std::vector<std::vector<uint8_t>> bins;
    // fp16 (54 halves = 108 bytes, already aligned), int8 (54 -> pad to 56), codebook, scaled fp32
    {
        std::vector<uint8_t> b;
        uint32_t tag = kTagF16;
        b.insert(b.end(), (uint8_t*)&tag, (uint8_t*)&tag + 4);
        for (float v : vals) {
            uint16_t h = float_to_half(v);
            b.insert(b.end(), (uint8_t*)&h, (uint8_t*)&h + 2);
        }
        bins.push_back(b);
    }
    {
        std::vector<uint8_t> b;
        uint32_t tag = kTagInt8;
        b.insert(b.end(), (uint8_t*)&tag, (uint8_t*)&tag + 4);
        for (int i = 0; i < 54; i++)
            b.push_back((uint8_t)(i * 3 - 80));
        b.push_back(0);
        b.push_back(0);
        bins.push_back(b);
    }
    {
        std::vector<uint8_t> b;
        uint32_t tag = 0x00000101;  // any other non-zero tag: codebook
        b.insert(b.end(), (uint8_t*)&tag, (uint8_t*)&tag + 4);
        for (int i = 0; i < 256; i++) {
            float f = i * 0.5f;
            b.insert(b.end(), (uint8_t*)&f, (uint8_t*)&f + 4);
        }
        for (int i = 0; i < 54; i++)
            b.push_back((uint8_t)(255 - i));
        b.push_back(0);
        b.push_back(0);
        bins.push_back(b);
    }
    {
        std::vector<uint8_t> b;
        uint32_t tag = kTagF32Scaled;
        b.insert(b.end(), (uint8_t*)&tag, (uint8_t*)&tag + 4);
        b.insert(b.end(), (uint8_t*)vals.data(), (uint8_t*)(vals.data() + 54));
        bins.push_back(b);
    }
    float bias[3] = {0.5f, -0.25f, 2.f};
    for (size_t k = 0; k < bins.size(); k++) {
        SCOPED_TRACE(k);
        std::vector<uint8_t> bin = bins[k];
        bin.insert(bin.end(), (uint8_t*)bias, (uint8_t*)bias + 12);
        Graph g = parse(param);
        Warnings w;
        ASSERT_TRUE(read_bin(bin.data(), bin.size(), g, w).is_ok());
        std::vector<uint8_t> out;
        ASSERT_TRUE(write_bin(g, out, BinWriteOptions(), w).is_ok());
        EXPECT_EQ(out, bin);
        EXPECT_EQ(bin_size(g), bin.size());
    }
    // decoded values
    Graph g = parse(param);
    Warnings w;
    std::vector<uint8_t> bin = bins[2];
    bin.insert(bin.end(), (uint8_t*)bias, (uint8_t*)bias + 12);
    ASSERT_TRUE(read_bin(bin.data(), bin.size(), g, w).is_ok());
    EXPECT_EQ(g.layers[1].weights[0].storage, WeightStorage::Codebook);
    EXPECT_FLOAT_EQ(g.layers[1].weights[0].data[0], 127.5f);  // index 255 -> 255 * 0.5
    EXPECT_FLOAT_EQ(g.layers[1].weights[1].data[2], 2.f);
}

TEST(BinIO, Fp16StorageAndOutOfRangeFallback) {
    Graph g = parse("7767517\n2 2\nInput data 0 1 data 0=4 1=4 2=2\nConvolution conv 1 1 data out 0=3 1=3 5=1 6=54\n");
    ASSERT_TRUE(randomize_weights(g, 7).is_ok());
    Warnings w;
    std::vector<uint8_t> out;
    BinWriteOptions fp16;
    fp16.fp16 = true;
    ASSERT_TRUE(write_bin(g, out, fp16, w).is_ok());
    // tag + 54 halves (108 bytes) + 3 raw fp32 bias values
    EXPECT_EQ(out.size(), 4u + 108u + 12u);
    uint32_t tag;
    std::memcpy(&tag, out.data(), 4);
    EXPECT_EQ(tag, kTagF16);
    EXPECT_TRUE(w.items.empty());
    // a value outside fp16's range keeps the array fp32, with a warning naming the layer
    g.layers[1].weights[0].data[5] = 1e6f;
    out.clear();
    ASSERT_TRUE(write_bin(g, out, fp16, w).is_ok());
    EXPECT_EQ(out.size(), 4u + 216u + 12u);
    ASSERT_EQ(w.items.size(), 1u);
    EXPECT_NE(w.items[0].find("layer 'conv' (Convolution) weight_data has values outside fp16 range"), std::string::npos);
}

TEST(BinIO, HalfConversionIsExactAndRoundsToNearestEven) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        if (std::isnan(f))
            continue;
        ASSERT_EQ(float_to_half(f), (uint16_t)h) << h;
    }
    EXPECT_EQ(float_to_half(1.f), 0x3c00);
    EXPECT_EQ(float_to_half(65504.f), 0x7bff);
    EXPECT_EQ(float_to_half(65520.f), 0x7c00);  // rounds to inf
    EXPECT_FALSE(fits_half(65520.f));
    EXPECT_TRUE(fits_half(65519.f));
    EXPECT_EQ(float_to_half(1.f + 1.f / 2048), 0x3c00);  // tie -> even
    EXPECT_EQ(float_to_half(1.f + 3.f / 2048), 0x3c02);  // tie -> even (up)
    EXPECT_EQ(float_to_half(5.96046448e-08f), 0x0001);   // smallest subnormal
}

TEST(Random, KnownSequenceForSeed) {
    // mulberry32 reference values (independently computed for seed 0 and 42)
    Rng a(0);
    EXPECT_EQ(a.next_u32(), 1144304738u);
    EXPECT_EQ(a.next_u32(), 1416247u);
    Rng b(42);
    EXPECT_EQ(b.next_u32(), 2581720956u);
}
