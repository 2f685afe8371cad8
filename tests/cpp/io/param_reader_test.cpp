// .param reading: ncnn's token and layout rules (docs/format.md).
#include <gtest/gtest.h>

#include "io/ncnn_io.h"
#include "test_util.h"

using namespace nnfold;

static Graph parse(const std::string& text, Warnings* warn = nullptr) {
    Graph g;
    Warnings w;
    Status st = read_param(text, g, w);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (warn)
        *warn = w;
    return g;
}

TEST(ParamReader, LayersBlobsAndParams) {
    Graph g = parse("7767517\n3 3\nInput data 0 1 data 0=8 1=6 2=3\n"
                    "Convolution conv 1 1 data c 0=4 1=3 11=1 4=1 5=1 6=36 9=2 -23310=1,1.5e-01\n"
                    "ReLU r 1 1 c out 0=0\n");
    ASSERT_EQ(g.layers.size(), 3u);
    ASSERT_EQ(g.blobs.size(), 3u);
    const LayerNode& conv = g.layers[1];
    EXPECT_EQ(conv.type, "Convolution");
    EXPECT_EQ(conv.name, "conv");
    EXPECT_EQ(conv.params.get_int(0, -1), 4);
    EXPECT_EQ(conv.params.get_int(11, -1), 1);
    EXPECT_EQ(conv.params.get_int(14, -7), -7);  // absent
    auto ap = conv.params.get_floats(10);
    ASSERT_EQ(ap.size(), 1u);
    EXPECT_FLOAT_EQ(ap[0], 0.15f);
    EXPECT_EQ(g.producer(g.find_blob("c")), 1);
    EXPECT_EQ(g.consumers(g.find_blob("c")), std::vector<int>{2});
    EXPECT_EQ(g.input_blobs(), std::vector<int>{0});
    EXPECT_EQ(g.output_blobs(), std::vector<int>{2});
}

TEST(ParamReader, IntTokenForFloatParamKeepsBitsAndWarns) {
    Warnings w;
    Graph g = parse("7767517\n3 3\nInput data 0 1 data\nReLU c 1 1 data a 0=0\nReLU d 1 1 a out 0=6\n", &w);
    // the file is accepted, with ncnn's bit-pattern semantics and a warning for the non-zero int
    EXPECT_EQ(g.layers[2].params.at(0).bits, 6);
    EXPECT_FALSE(g.layers[2].params.at(0).is_float);
    ASSERT_EQ(w.items.size(), 1u);
    EXPECT_NE(w.items[0].find("written as the integer 6, which ncnn reads as the float bit pattern 8.40779e-45"),
              std::string::npos)
        << w.items[0];
}

TEST(ParamReader, OldAndNewArraysStringsCrlfAndBlankLines) {
    Graph g = parse("7767517\r\n\r\n2 2\r\nInput data 0 1 data\r\n\r\n"
                    "Noop n 1 1 data out -23305=3,1,2.5,-3 7=4,5,6 3=\"a b\"   \r\n");
    const ParamDict& pd = g.layers[1].params;
    EXPECT_EQ(pd.get_ints(5).size(), 3u);
    EXPECT_EQ(pd.get_ints(5)[0], 1);
    EXPECT_FLOAT_EQ(pd.get_floats(5)[1], 2.5f);
    EXPECT_EQ(pd.get_ints(5)[2], -3);
    EXPECT_EQ(pd.get_ints(7), (std::vector<int>{4, 5, 6}));
    EXPECT_EQ(pd.get_string(3, ""), "a b");
}

// Array values are split at commas as std::getline splits them (the reader's former
// implementation): empty elements count, a trailing comma adds an empty element to an old-style
// array and is an error in a new-style one.
TEST(ParamReader, ArrayCommaEdgeCases) {
    auto status_of = [](const std::string& params) {
        Graph g;
        Warnings w;
        return read_param("7767517\n2 2\nInput data 0 1 data\nNoop n 1 1 data out " + params + "\n", g, w);
    };
    Graph g = parse("7767517\n2 2\nInput data 0 1 data\nNoop n 1 1 data out -23300=0 -23301=1,7 2=8,9\n");
    EXPECT_TRUE(g.layers[1].params.get_ints(0).empty());
    EXPECT_EQ(g.layers[1].params.get_ints(1), std::vector<int>{7});
    EXPECT_EQ(g.layers[1].params.get_ints(2), (std::vector<int>{8, 9}));
    Status st = status_of("-23300=2,1,");  // the trailing comma is an empty (bad) second element
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("element 1"), std::string::npos) << st.message();
    st = status_of("-23300=0,");  // one (empty) element after a declared length of 0
    EXPECT_NE(st.message().find("declares 0 values but has 1"), std::string::npos) << st.message();
    st = status_of("-23300=2,,1");
    EXPECT_NE(st.message().find("element 0"), std::string::npos) << st.message();
    st = status_of("-23300=");
    EXPECT_NE(st.message().find("has no length"), std::string::npos) << st.message();
    st = status_of("0=1,,2");
    EXPECT_NE(st.message().find("element 1"), std::string::npos) << st.message();
    st = status_of("0=1,2,");
    EXPECT_NE(st.message().find("ends with a comma"), std::string::npos) << st.message();
}

TEST(ParamReader, ShapeHintsFourAndFivePerBlob) {
    Graph g = parse("7767517\n3 3\nInput data 0 1 data -23330=4,3,8,6,3\n"
                    "Noop n 1 1 data a -23330=5,4,8,6,2,3\nNoop m 1 1 a b -23330=4,1,10,1,1\n");
    EXPECT_EQ(g.blobs[0].shape, Shape::d3(8, 6, 3));
    EXPECT_EQ(g.blobs[1].shape, Shape::d4(8, 6, 2, 3));
    EXPECT_EQ(g.blobs[2].shape, Shape::d1(10));
    EXPECT_FALSE(g.layers[0].params.has(30));  // moved onto the blobs
}

TEST(ParamReader, BlobWithTwoConsumersGetsSplitAndWarning) {
    Warnings w;
    Graph g = parse("7767517\n4 4\nInput data 0 1 data\nReLU a 1 1 data x\nReLU b 1 1 x y\nReLU c 1 1 x z\n", &w);
    ASSERT_EQ(g.layers.size(), 5u);
    EXPECT_EQ(g.layers[2].type, "Split");
    EXPECT_EQ(g.layers[2].name, "splitncnn_0");
    EXPECT_EQ(g.blobs[g.layers[3].bottoms[0]].name, "x_splitncnn_0");
    EXPECT_EQ(g.blobs[g.layers[4].bottoms[0]].name, "x_splitncnn_1");
    ASSERT_EQ(w.items.size(), 1u);
    EXPECT_NE(w.items[0].find("blob 'x' is consumed by 2 layers ('b', 'c')"), std::string::npos) << w.items[0];
    EXPECT_TRUE(g.validate().is_ok());
}

TEST(ParamReader, SplitNamesAvoidExistingNames) {
    Graph g = parse("7767517\n4 4\nInput splitncnn_0 0 1 data\nReLU a 1 1 data x_splitncnn_0\n"
                    "ReLU b 1 1 x_splitncnn_0 y\nReLU c 1 1 x_splitncnn_0 z\n");
    EXPECT_TRUE(g.validate().is_ok());
    EXPECT_EQ(g.layers[2].name, "splitncnn_1");
    EXPECT_EQ(g.blobs[g.layers[2].tops[0]].name, "x_splitncnn_0_splitncnn_0");
}

TEST(ParamReader, RealZooFilesParse) {
    NNFOLD_REQUIRE_ZOO();
    for (auto& path : test::zoo_params()) {
        Graph g;
        Warnings w;
        Status st = read_param(test::read_text(path), g, w, path);
        if (!st.is_ok() && st.code() == ErrorCode::Unsupported)
            continue;  // layer types not implemented yet are reported, all at once
        EXPECT_TRUE(st.is_ok()) << path << ": " << st.message();
    }
}

// ncnn's leniencies (docs/format.md): Net::load_param reads a stream of tokens, exactly the
// declared number of layers, and sizes its blob list from the header.
TEST(ParamReader, ReadsOnlyTheDeclaredLayersAndWarns) {
    // ncnn's benchmark nanodet_m.param: an output-marker line lies beyond the declared count
    Warnings w;
    Graph g = parse("7767517\n2 3\nInput data 0 1 data 0=4 1=4 2=2\nReLU r 1 1 data out\n"
                    "Noop Output 1 1 out output\n",
                    &w);
    ASSERT_EQ(g.layers.size(), 2u);
    EXPECT_EQ(g.output_blobs(), std::vector<int>{g.find_blob("out")});
    ASSERT_EQ(w.items.size(), 2u);
    EXPECT_NE(w.items[0].find(":5: the header declares 2 layers; what follows them (6 tokens from here on) is ignored"),
              std::string::npos)
        << w.items[0];
    EXPECT_NE(w.items[1].find("declares 3 blobs but the layers name only 2 (accepted, as ncnn does)"), std::string::npos)
        << w.items[1];
}

TEST(ParamReader, LineBreaksDoNotMatter) {
    Warnings w;
    Graph g = parse("7767517 3\n3\nInput data 0 1\ndata 0=4 1=4\n2=2 ReLU r 1 1 data a ReLU\nr2 1 1 a out 0=1.0e-01\n",
                    &w);
    ASSERT_EQ(g.layers.size(), 3u);
    EXPECT_TRUE(w.items.empty());
    EXPECT_EQ(g.layers[0].params.get_int(2, 0), 2);
    EXPECT_EQ(g.layers[2].name, "r2");
    EXPECT_FLOAT_EQ(g.layers[2].params.get_float(0, 0.f), 0.1f);
    EXPECT_EQ(g.output_blobs(), std::vector<int>{g.find_blob("out")});
}

TEST(ParamReader, NoopWithMoreBottomsThanTopsMarksOutputs) {
    // yolo-fastestv2.param ends with `Noop output 2 1 794 796 output`: both heads are consumed,
    // so the model has one output, `output`, which ncnn's forward_layer makes the first bottom.
    Graph g = parse("7767517\n4 4\nInput data 0 1 data 0=4 1=4 2=2\nReLU a 1 1 data a\nSigmoid b 1 1 data b\n"
                    "Noop output 2 1 a b output\n");
    EXPECT_EQ(g.output_blobs(), std::vector<int>{g.find_blob("output")});
}
