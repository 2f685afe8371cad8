// Quantize, Dequantize and Requantize (ncnn src/layer/quantize.cpp, dequantize.cpp,
// requantize.cpp) against values worked out by hand: ncnn's float2int8 (half away from zero,
// clamp to [-127, 127]), per-channel and shared scales and biases, Requantize's fused activation,
// the fma of ncnn's x86 build when a bias is present; a graph Quantize -> int8 Convolution (the
// codes taken as they are); bad params, scales and shapes as errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/parallel.h"

#include "layers/layer.h"
#include "test_util.h"

using namespace nnfold;

namespace {

std::unique_ptr<Layer> make(const std::string& type, const ParamDict& pd, const std::vector<std::vector<float>>& w,
                            Status* load_status = nullptr) {
    auto l = create_layer(type, false);
    EXPECT_TRUE(l != nullptr);
    Status st = l->load_param(pd);
    if (st.is_ok()) {
        std::vector<WeightArray> arrays;
        for (const auto& a : w)
            arrays.push_back(WeightArray::untagged(a));
        st = l->load_model(arrays);
    }
    if (load_status)
        *load_status = st;
    else
        EXPECT_TRUE(st.is_ok()) << st.message();
    return l;
}

std::vector<int> codes(const Mat& m) {
    EXPECT_TRUE(m.int8);
    std::vector<int> r(m.total());
    for (size_t i = 0; i < r.size(); i++)
        r[i] = m.int8_data()[i];
    return r;
}

}  // namespace

TEST(Quantize, SharedScaleRoundsHalfAwayFromZeroAndClamps) {
    ParamDict pd;  // scale_data_size defaults to 1
    auto l = make("Quantize", pd, {{2.f}});
    Mat in = test::make_mat({8}, {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, 100.f, -64.f, NAN});
    Mat out;
    ASSERT_TRUE(l->forward(in, out, Option()).is_ok());
    // 0.5 -> 1, 1.5 -> 2, -0.5 -> -1, -1.5 -> -2, 2.5 -> 3 (ties away from zero, not to even),
    // 200 -> 127, -128 -> -127, NaN -> 0
    EXPECT_EQ(codes(out), (std::vector<int>{1, 2, -1, -2, 3, 127, -127, 0}));
    EXPECT_EQ(out.shape(), Shape::d1(8));
    EXPECT_EQ(out.bytes(), 8u);  // one byte a value
}

TEST(Quantize, PerChannelAndPerRowScales) {
    ParamDict pd;
    pd.set_int(0, 2);
    auto l = make("Quantize", pd, {{10.f, 0.5f}});
    Mat out;
    ASSERT_TRUE(l->forward(test::make_mat({2, 1, 3}, {0.1f, 0.26f, -0.35f, 3.f, 5.f, -7.f}), out, Option()).is_ok());
    EXPECT_EQ(codes(out), (std::vector<int>{1, 3, -4, 2, 3, -4}));  // 1, 2.6, -3.5 | 1.5, 2.5, -3.5
    ASSERT_TRUE(l->forward(test::make_mat({2, 2}, {0.1f, 0.2f, 3.f, 1.f}), out, Option()).is_ok());
    EXPECT_EQ(codes(out), (std::vector<int>{1, 2, 2, 1}));  // rows of a 2D blob
    // a 1D input takes one scale (ncnn asserts it)
    EXPECT_EQ(l->forward(test::make_mat({2}, {1.f, 2.f}), out, Option()).code(), ErrorCode::ShapeMismatch);
    // a channel count that does not match
    EXPECT_EQ(l->forward(test::make_mat({3, 1, 1}, {1.f, 2.f, 3.f}), out, Option()).code(), ErrorCode::ShapeMismatch);
}

TEST(Dequantize, ScaleAndBiasPerChannelWithFma) {
    ParamDict pd;
    pd.set_int(0, 2);
    pd.set_int(1, 2);
    auto l = make("Dequantize", pd, {{0.5f, 0.001f}, {1.f, -2.f}});
    Mat out;
    ASSERT_TRUE(l->forward(test::make_mat({2, 1, 2}, {3.f, -4.f, 1000.f, 7.f}), out, Option()).is_ok());
    ASSERT_FALSE(out.int8);
    EXPECT_EQ(out.data[0], 2.5f);
    EXPECT_EQ(out.data[1], -1.f);
    EXPECT_EQ(out.data[2], std::fma(1000.f, 0.001f, -2.f));
    EXPECT_EQ(out.data[3], std::fma(7.f, 0.001f, -2.f));
    // no bias: a plain product
    ParamDict p2;
    auto l2 = make("Dequantize", p2, {{0.25f}});
    ASSERT_TRUE(l2->forward(test::make_mat({3}, {4.f, -8.f, 1.f}), out, Option()).is_ok());
    EXPECT_EQ(test::to_vector(out), (std::vector<float>{1.f, -2.f, 0.25f}));
}

TEST(Requantize, ScalesBiasActivationAndRounding) {
    ParamDict pd;
    pd.set_int(0, 1);
    pd.set_int(1, 2);
    pd.set_int(2, 1);
    pd.set_int(3, 2);  // leaky ReLU, slope 0.1
    pd.set_floats(4, {0.1f});
    auto l = make("Requantize", pd, {{0.5f}, {1.f, 4.f}, {0.25f}});
    Mat out;
    ASSERT_TRUE(l->forward(test::make_mat({2, 1, 2}, {3.f, -21.f, 500.f, -1.f}), out, Option()).is_ok());
    // channel 0 (scale_out 1): 3 * 0.5 + 0.25 = 1.75 -> 2; -21 * 0.5 + 0.25 = -10.25 -> -1.025 -> -1
    // channel 1 (scale_out 4): 250.25 * 4 -> 127; (-0.25 -> -0.025) * 4 = -0.1 -> 0
    EXPECT_EQ(codes(out), (std::vector<int>{2, -1, 127, 0}));
}

TEST(QuantizeLayers, BadParamsAndScalesAreErrors) {
    Status st;
    ParamDict pd;
    pd.set_int(0, 0);
    make("Quantize", pd, {}, &st);
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    ParamDict one;
    make("Quantize", one, {{NAN}}, &st);
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    EXPECT_NE(st.message().find("scale_data[0]"), std::string::npos) << st.message();
    make("Dequantize", one, {{INFINITY}}, &st);
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    make("Requantize", one, {{1.f}, {-INFINITY}}, &st);
    EXPECT_EQ(st.code(), ErrorCode::InvalidModel);
    EXPECT_NE(st.message().find("scale_out_data"), std::string::npos) << st.message();
    ParamDict act;
    act.set_int(3, 9);  // no such activation
    make("Requantize", act, {{1.f}, {1.f}}, &st);
    EXPECT_FALSE(st.is_ok());
}

// Quantize feeds an int8 Convolution, which takes the codes as they are (no second quantization:
// its bottom scale is not applied); a Dequantize after an int8 blob is refused by the runtime.
TEST(QuantizeLayers, QuantizeFeedsAnInt8Convolution) {
    const char* text = "7767517\n3 3\n"
                       "Input in 0 1 data 0=2 1=1 2=1\n"
                       "Quantize q 1 1 data x 0=1\n"
                       "Convolution c 1 1 x y 0=1 1=1 6=1 8=1\n";
    Graph g = test::graph_from_text(text, 3);
    for (auto& l : g.layers) {
        if (l.type == "Quantize")
            l.weights[0].set_values({10.f});
        if (l.type == "Convolution") {
            l.weights[0].set_values({0.5f});  // quantized at load with weight scale 254: code 127
            l.weights[1].set_values({254.f});
            l.weights[2].set_values({1000.f});  // bottom scale: unused for an int8 input
        }
    }
    Net net;
    Status st = net.load(g);
    ASSERT_TRUE(st.is_ok()) << st.message();
    std::map<std::string, Mat> in, out;
    in["data"] = test::make_mat({1, 1, 2}, {0.35f, -0.05f});
    st = net.run(in, {"y"}, out);
    ASSERT_TRUE(st.is_ok()) << st.message();
    // codes 4 and -1 (0.35 * 10 = 3.5 -> 4; -0.5 -> -1), times 127, times 1 / (1000 * 254)
    const float s = 1.f / (1000.f * 254.f);
    EXPECT_EQ(out["y"].data[0], std::fma(508.f, s, 0.f));
    EXPECT_EQ(out["y"].data[1], std::fma(-127.f, s, 0.f));

    const char* bad = "7767517\n3 3\n"
                      "Input in 0 1 data 0=2 1=1 2=1\n"
                      "Quantize q 1 1 data x 0=1\n"
                      "Dequantize d 1 1 x y 0=1\n";
    Graph g2 = test::graph_from_text(bad, 3);
    Net net2;
    ASSERT_TRUE(net2.load(g2).is_ok());
    st = net2.run(in, {"y"}, out);
    EXPECT_EQ(st.code(), ErrorCode::Unsupported);
    EXPECT_NE(st.message().find("Dequantize"), std::string::npos) << st.message();
}

// The three layers on blobs large enough for the SIMD kernels' 16-value steps, their 4-value steps
// and tails (slices of 37 values: pieces that start and end inside a slice), per-channel and
// shared arrays, against the formulas written out here, bit for bit, at 3, 2 and 1 threads with the chunk floor at 1 (every split must give the same bits).
TEST(QuantizeLayers, LargeBlobsEveryThreadCount) {
    const int C = 5, W = 37;
    std::vector<float> x((size_t)C * W), sums((size_t)C * W);
    uint32_t r = 12345;
    auto rnd = [&r]() {
        r = r * 1664525u + 1013904223u;
        return (float)(r >> 8) / (float)(1u << 24);
    };
    for (size_t i = 0; i < x.size(); i++) {
        x[i] = (rnd() - 0.5f) * 3.f;
        sums[i] = std::round((rnd() - 0.5f) * 40000.f);
    }
    x[3] = 0.49999997f / 40.f;  // the edges of float2int8 after the scale
    x[4] = 2.5f / 40.f;
    x[5] = NAN;
    const std::vector<float> qs = {40.f, 0.7f, 100.f, 3.f, 55.5f}, ds = {1e-3f, 2e-4f, 5e-5f, 3e-3f, 7e-4f},
                             db = {0.5f, -1.f, 0.25f, 0.f, 3.f}, so = {9.f, 20.f, 0.5f, 30.f, 11.f};
    auto f2i8 = [](float v) {
        const float rr = std::round(v);
        return std::isnan(rr) ? 0 : (int)std::max(-127.f, std::min(127.f, rr));
    };
    std::vector<int> want_q, want_r, want_r1;
    std::vector<float> want_d;
    for (int c = 0; c < C; c++)
        for (int i = 0; i < W; i++) {
            const size_t k = (size_t)c * W + i;
            want_q.push_back(f2i8(x[k] * qs[c]));
            want_d.push_back(std::fma(sums[k], ds[c], db[c]));
            const float v = std::fma(sums[k], ds[c], db[c]);
            want_r.push_back(f2i8((v < -0.5f ? -0.5f : (v > 6.f ? 6.f : v)) * so[c]));  // clip [-0.5, 6]
            const float v1 = sums[k] * ds[0];
            want_r1.push_back(f2i8((v1 < 0.f ? 0.f : v1) * so[0]));  // shared scales, no bias, relu
        }
    ParamDict pq, pd, pr, pr1;
    pq.set_int(0, C);
    pd.set_int(0, C);
    pd.set_int(1, C);
    pr.set_int(0, C);
    pr.set_int(1, C);
    pr.set_int(2, C);
    pr.set_int(3, 3);
    pr.set_floats(4, {-0.5f, 6.f});
    pr1.set_int(3, 1);
    auto q = make("Quantize", pq, {qs});
    auto d = make("Dequantize", pd, {ds, db});
    auto rq = make("Requantize", pr, {ds, so, db});
    auto rq1 = make("Requantize", pr1, {{ds[0]}, {so[0]}});
    set_min_chunk_cost(1);
    // the pool is made once at its largest size (3), then used at fewer; a build without threads
    // runs the one-thread case only
    const std::vector<int> counts = build_has_threads() ? std::vector<int>{3, 2, 1} : std::vector<int>{1};
    const uint64_t jobs_before = parallel_jobs_run();
    for (int threads : counts) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        ASSERT_TRUE(set_num_threads(threads).is_ok());
        Mat out;
        ASSERT_TRUE(q->forward(test::make_mat({C, 1, W}, x), out, Option()).is_ok());
        EXPECT_EQ(codes(out), want_q);
        ASSERT_TRUE(d->forward(test::make_mat({C, 1, W}, sums), out, Option()).is_ok());
        const std::vector<float> got = test::to_vector(out);
        ASSERT_EQ(got.size(), want_d.size());
        EXPECT_EQ(0, std::memcmp(got.data(), want_d.data(), got.size() * 4));
        ASSERT_TRUE(rq->forward(test::make_mat({C, 1, W}, sums), out, Option()).is_ok());
        EXPECT_EQ(codes(out), want_r);
        ASSERT_TRUE(rq1->forward(test::make_mat({C * W}, sums), out, Option()).is_ok());
        EXPECT_EQ(codes(out), want_r1);
    }
    if (build_has_threads()) {
        EXPECT_GT(parallel_jobs_run(), jobs_before);  // the layers did split
    }
    set_min_chunk_cost(0);
    shutdown_threads();
}
