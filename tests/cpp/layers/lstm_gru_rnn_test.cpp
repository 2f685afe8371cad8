// LSTM, GRU and RNN (layers/rnn_common.h) against a direct double-precision evaluation of the
// recurrences on ncnn's weight layout: forward, reverse and bidirectional, with and without
// initial-state bottoms and state tops, LSTM's projection (hidden_size != num_output), a 1D input
// as one step; weight specs (counts, tagging, int8 scales) and the blob-count / shape errors.
#include <cmath>

#include "layers/rnn_common.h"
#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Output rows [T][dirs * N] and final states [state][dirs * width], from the weights in spec order.
struct RefOut {
    std::vector<float> y;
    std::vector<std::vector<float>> states;
};

RefOut reference(const std::string& type, int N, int Hs, int size, int direction, int T,
                 const std::vector<std::vector<float>>& w, const std::vector<float>& x,
                 const std::vector<std::vector<float>>& init) {
    const int dirs = direction == 2 ? 2 : 1;
    const int G = type == "LSTM" ? 4 : type == "GRU" ? 3 : 1;
    const int H = type == "LSTM" ? Hs : N;  // gate rows per block
    RefOut r;
    r.y.assign((size_t)T * dirs * N, 0.f);
    const int S = type == "LSTM" ? 2 : 1;
    r.states.resize((size_t)S);
    for (int d = 0; d < dirs; d++) {
        std::vector<double> h((size_t)N, 0.0), c((size_t)H, 0.0);
        if (!init.empty()) {
            for (int i = 0; i < N; i++)
                h[(size_t)i] = init[0][(size_t)d * N + i];
            if (S == 2)
                for (int i = 0; i < H; i++)
                    c[(size_t)i] = init[1][(size_t)d * H + i];
        }
        const float* wx = w[0].data() + (size_t)d * G * H * size;
        const float* b = w[1].data() + (size_t)d * (type == "GRU" ? 4 : G) * H;
        const float* wh = w[2].data() + (size_t)d * G * H * N;
        const bool rev = direction == 1 || d == 1;
        for (int s = 0; s < T; s++) {
            const int t = rev ? T - 1 - s : s;
            const float* xt = x.data() + (size_t)t * size;
            auto dot_x = [&](int row) {
                double a = 0;
                for (int i = 0; i < size; i++)
                    a += (double)wx[(size_t)row * size + i] * xt[i];
                return a;
            };
            auto dot_h = [&](int row) {
                double a = 0;
                for (int i = 0; i < N; i++)
                    a += (double)wh[(size_t)row * N + i] * h[(size_t)i];
                return a;
            };
            std::vector<double> nh((size_t)N);
            if (type == "LSTM") {
                std::vector<double> hc((size_t)H);
                for (int q = 0; q < H; q++) {
                    auto gate = [&](int g) { return b[g * H + q] + dot_x(g * H + q) + dot_h(g * H + q); };
                    const double I = sig(gate(0)), F = sig(gate(1)), O = sig(gate(2)), Gg = std::tanh(gate(3));
                    c[(size_t)q] = F * c[(size_t)q] + I * Gg;
                    hc[(size_t)q] = O * std::tanh(c[(size_t)q]);
                }
                for (int q = 0; q < N; q++) {
                    if (N == H) {
                        nh[(size_t)q] = hc[(size_t)q];
                        continue;
                    }
                    const float* hr = w[3].data() + (size_t)d * N * H + (size_t)q * H;
                    double a = 0;
                    for (int i = 0; i < H; i++)
                        a += hc[(size_t)i] * hr[i];
                    nh[(size_t)q] = a;
                }
            } else if (type == "GRU") {
                for (int q = 0; q < N; q++) {
                    const double R = sig(b[q] + dot_x(q) + dot_h(q));
                    const double U = sig(b[N + q] + dot_x(N + q) + dot_h(N + q));
                    const double n = std::tanh(b[2 * N + q] + dot_x(2 * N + q) + R * (b[3 * N + q] + dot_h(2 * N + q)));
                    nh[(size_t)q] = (1 - U) * n + U * h[(size_t)q];
                }
            } else {
                for (int q = 0; q < N; q++)
                    nh[(size_t)q] = std::tanh(b[q] + dot_x(q) + dot_h(q));
            }
            h = nh;
            for (int q = 0; q < N; q++)
                r.y[(size_t)t * dirs * N + (size_t)d * N + q] = (float)h[(size_t)q];
        }
        for (int q = 0; q < N; q++)
            r.states[0].push_back((float)h[(size_t)q]);
        if (S == 2)
            for (int q = 0; q < H; q++)
                r.states[1].push_back((float)c[(size_t)q]);
    }
    return r;
}

ParamDict rnn_params(const std::string& type, int N, int Hs, int size, int direction) {
    const int dirs = direction == 2 ? 2 : 1;
    const int rows = type == "LSTM" ? 4 * Hs : type == "GRU" ? 3 * N : N;
    ParamDict pd = params({{0, N}, {1, dirs * rows * size}, {2, direction}});
    if (type == "LSTM" && Hs != N)
        pd.set_int(3, Hs);
    return pd;
}

}  // namespace

TEST(Recurrent, MatchesTheRecurrenceEveryDirectionAndStateForm) {
    uint32_t seed = 4100;
    for (const std::string type : {"LSTM", "GRU", "RNN"})
        for (int direction : {0, 1, 2})
            for (bool with_states : {false, true})
                for (int T : {1, 5}) {
                    const int N = 7, size = 5, Hs = N;
                    SCOPED_TRACE(type + " direction " + std::to_string(direction) + " states " +
                                 std::to_string(with_states) + " T " + std::to_string(T));
                    const int dirs = direction == 2 ? 2 : 1;
                    ParamDict pd = rnn_params(type, N, Hs, size, direction);
                    auto w = random_weights(type, pd, ++seed);
                    Built b = build(type, pd, w);
                    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
                    std::vector<Mat> in = {rand_mat(Shape::d2(size, T), ++seed)};
                    std::vector<std::vector<float>> init;
                    const int S = type == "LSTM" ? 2 : 1;
                    if (with_states)
                        for (int s = 0; s < S; s++) {
                            in.push_back(rand_mat(Shape::d2(N, dirs), ++seed));
                            init.push_back(vec(in.back()));
                        }
                    std::vector<Mat> out;
                    ASSERT_TRUE(run(*b.layer, in, out, 1 + (size_t)S).is_ok());
                    RefOut r = reference(type, N, Hs, size, direction, T, w, vec(in[0]), init);
                    EXPECT_EQ(out[0].shape(), Shape::d2(N * dirs, T));
                    expect_near(r.y, out[0]);
                    for (int s = 0; s < S; s++) {
                        EXPECT_EQ(out[(size_t)s + 1].shape(), Shape::d2(N, dirs));
                        expect_near(r.states[(size_t)s], out[(size_t)s + 1]);
                    }
                    // the state outputs change nothing in the sequence output
                    Mat only = run1(*b.layer, {in});
                    expect_near(r.y, only);
                }
}

TEST(Recurrent, LstmProjectionAndOneStepInput) {
    for (int direction : {0, 2}) {
        const int N = 3, Hs = 6, size = 4, T = 4, dirs = direction == 2 ? 2 : 1;
        ParamDict pd = rnn_params("LSTM", N, Hs, size, direction);
        auto w = random_weights("LSTM", pd, 77);
        ASSERT_EQ(w.size(), 4u);  // weight_hr_data present
        Built b = build("LSTM", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat x = rand_mat(Shape::d2(size, T), 78);
        std::vector<Mat> in = {x, rand_mat(Shape::d2(N, dirs), 79), rand_mat(Shape::d2(Hs, dirs), 80)};
        std::vector<Mat> out;
        ASSERT_TRUE(run(*b.layer, in, out, 3).is_ok());
        RefOut r = reference("LSTM", N, Hs, size, direction, T, w, vec(x), {vec(in[1]), vec(in[2])});
        expect_near(r.y, out[0]);
        expect_near(r.states[0], out[1]);
        EXPECT_EQ(out[2].shape(), Shape::d2(Hs, dirs));  // the cell keeps hidden_size values
        expect_near(r.states[1], out[2]);
    }
    // a 1D input is one step
    ParamDict pd = rnn_params("GRU", 4, 4, 3, 0);
    auto w = random_weights("GRU", pd, 5);
    Built b = build("GRU", pd, w);
    Mat x = rand_mat(Shape::d1(3), 6);
    Mat y = run1(*b.layer, {x});
    EXPECT_EQ(y.shape(), Shape::d2(4, 1));
    expect_near(reference("GRU", 4, 4, 3, 0, 1, w, vec(x), {}).y, y);
}

TEST(Recurrent, WeightSpecsAsNcnnLoadsThem) {
    struct Case {
        std::string type;
        int N, Hs, size, direction, int8;
        std::vector<std::pair<std::string, uint64_t>> arrays;
    };
    const Case cases[] = {
        {"LSTM", 3, 3, 5, 2, 0, {{"weight_xc_data", 2 * 12 * 5}, {"bias_c_data", 2 * 12}, {"weight_hc_data", 2 * 12 * 3}}},
        {"LSTM", 3, 4, 5, 0, 1, {{"weight_xc_data", 16 * 5}, {"bias_c_data", 16}, {"weight_hc_data", 16 * 3},
                                 {"weight_hr_data", 3 * 4}, {"weight_xc_data_int8_scales", 16},
                                 {"weight_hc_data_int8_scales", 16}}},
        {"GRU", 3, 3, 5, 1, 0, {{"weight_xc_data", 9 * 5}, {"bias_c_data", 12}, {"weight_hc_data", 9 * 3}}},
        {"RNN", 3, 3, 5, 2, 0, {{"weight_xc_data", 2 * 3 * 5}, {"bias_c_data", 2 * 3}, {"weight_hc_data", 2 * 9}}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.type);
        ParamDict pd = rnn_params(c.type, c.N, c.Hs, c.size, c.direction);
        pd.set_int(8, c.int8);
        auto l = create_layer(c.type, false);
        ASSERT_TRUE(l->load_param(pd).is_ok());
        std::vector<WeightSpec> specs;
        ASSERT_TRUE(l->weight_specs(specs).is_ok());
        ASSERT_EQ(specs.size(), c.arrays.size());
        for (size_t i = 0; i < specs.size(); i++) {
            EXPECT_EQ(specs[i].name, c.arrays[i].first);
            EXPECT_EQ(specs[i].count, c.arrays[i].second) << specs[i].name;
            // ncnn loads the weight and bias arrays with ModelBin type 0 (a tag), the scales raw
            EXPECT_EQ(specs[i].tagged, specs[i].name.find("int8") == std::string::npos) << specs[i].name;
        }
        if (c.int8) {
            Built b = build(c.type, pd);
            EXPECT_FALSE(b.st.is_ok());
            EXPECT_NE(b.st.message().find("int8_scale_term"), std::string::npos) << b.st.message();
        }
    }
}

TEST(Recurrent, RejectsBadParamsAndBlobs) {
    auto l = create_layer("LSTM", false);
    EXPECT_FALSE(l->load_param(params({{0, 4}, {1, 4 * 4 * 3}, {2, 3}})).is_ok());   // direction 3
    EXPECT_FALSE(l->load_param(params({{0, 4}, {1, 4 * 4 * 3 + 1}, {2, 0}})).is_ok());  // not a multiple
    EXPECT_FALSE(l->load_param(params({{0, 0}, {1, 12}})).is_ok());
    ParamDict pd = rnn_params("LSTM", 4, 4, 3, 2);
    Built b = build("LSTM", pd);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Shape> tops(1);
    EXPECT_FALSE(b->infer_shape({Shape::d2(5, 7)}, tops).is_ok());            // wrong input size
    EXPECT_FALSE(b->infer_shape({Shape::d3(3, 7, 2)}, tops).is_ok());         // 3D
    EXPECT_FALSE(b->infer_shape({Shape::d2(3, 7), Shape::d2(4, 2)}, tops).is_ok());  // 2 bottoms: all or none
    EXPECT_FALSE(b->infer_shape({Shape::d2(3, 7), Shape::d2(4, 1), Shape::d2(4, 2)}, tops).is_ok());  // 1 row, 2 dirs
    std::vector<Shape> two(2);
    Status st = b->infer_shape({Shape::d2(3, 7)}, two);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("final state"), std::string::npos) << st.message();
    std::vector<Shape> three(3);
    ASSERT_TRUE(b->infer_shape({Shape::d2(3, 7)}, three).is_ok());
    EXPECT_EQ(three[0], Shape::d2(8, 7));
    EXPECT_EQ(three[1], Shape::d2(4, 2));
    EXPECT_EQ(three[2], Shape::d2(4, 2));
}

// Random params, blob counts and shapes: each combination is refused with an error value or runs
// with forward agreeing with infer_shape (the harness checks both ways); never a crash (the test
// the sanitizer build runs).
TEST(Recurrent, RandomParamsAndShapesNeverCrash) {
    Rng rng(2024);
    auto range = [&](int lo, int hi) { return lo + (int)(rng.next_u32() % (uint32_t)(hi - lo + 1)); };
    int ran = 0;
    for (int it = 0; it < 600; it++) {
        const std::string type = it % 3 == 0 ? "LSTM" : it % 3 == 1 ? "GRU" : "RNN";
        const int N = range(0, 5), Hs = range(1, 6), size = range(1, 5), direction = range(-1, 3);
        const int dirs = direction == 2 ? 2 : 1;
        const int rows = type == "LSTM" ? 4 * Hs : type == "GRU" ? 3 * N : N;
        ParamDict pd = params({{0, N}, {1, dirs * rows * size + (range(0, 9) == 0 ? 1 : 0)}, {2, direction}});
        if (type == "LSTM")
            pd.set_int(3, Hs);
        Built b = build(type, pd, {}, (uint32_t)it);
        if (!b.st)
            continue;
        const int S = type == "LSTM" ? 2 : 1;
        std::vector<Mat> in;
        const int w = range(0, 5) == 0 ? size + 1 : size;
        in.push_back(rand_mat(range(0, 4) == 0 ? Shape::d1(w) : Shape::d2(w, range(1, 7)), (uint32_t)it));
        const int nstates = range(0, 3) == 0 ? range(0, S + 1) : (range(0, 1) ? S : 0);
        for (int s = 0; s < nstates; s++) {
            const int width = s == 1 ? Hs : N;
            in.push_back(rand_mat(range(0, 5) == 0 ? Shape::d1(width * dirs + 1) : Shape::d2(width, dirs), (uint32_t)it + 1));
        }
        const size_t ntops = range(0, 3) == 0 ? (size_t)range(1, S + 2) : (range(0, 1) ? (size_t)S + 1 : 1);
        std::vector<Mat> out;
        if (run(*b.layer, in, out, ntops).is_ok())
            ran++;
    }
    EXPECT_GT(ran, 100);  // enough combinations got past the checks to exercise forward
}
