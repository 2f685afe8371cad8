// LSTM_fast, GRU_fast, RNN_fast (src/layers/wasm/rnn_fast.cpp) against the reference layers on
// sizes around the GEMV's 4-row panels (hidden 1, 3, 4, 5, 17; inputs 1, 3, 8, 13), every
// direction, with and without states, LSTM with a projection. The gate products run through
// kernels::f32_gemv_packed (SIMD-128 or its scalar twin) and sum in the reference's order, so the
// outputs and final states agree to rounding (held to 1e-6 here, 1e-4 allowed by docs/numbers.md).
#include <typeinfo>

#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

// Both layers on the same inputs, every top compared; returns the largest error.
double compare_all(const std::string& type, const ParamDict& pd, const std::vector<Mat>& in, size_t ntops,
                   uint32_t seed) {
    auto w = weights_for(type, pd, seed);
    Built ref = build(type, pd, w, false), fast = build(type, pd, w, true);
    EXPECT_TRUE(ref.st.is_ok()) << ref.st.message();
    EXPECT_TRUE(fast.st.is_ok()) << fast.st.message();
    if (!ref.st || !fast.st)
        return INFINITY;
    const Layer& rl = *ref.layer;
    const Layer& fl = *fast.layer;
    EXPECT_NE(typeid(rl), typeid(fl)) << type << " has no optimized implementation";
    std::vector<Mat> a(ntops), b(ntops);
    Option opt;
    Status sa = rl.forward(in, a, opt), sb = fl.forward(in, b, opt);
    EXPECT_TRUE(sa.is_ok()) << sa.message();
    EXPECT_TRUE(sb.is_ok()) << sb.message();
    if (!sa || !sb)
        return INFINITY;
    double worst = 0;
    for (size_t k = 0; k < ntops; k++) {
        EXPECT_EQ(a[k].shape(), b[k].shape());
        double maxabs = 0;
        for (size_t i = 0; i < a[k].total_floats(); i++)
            maxabs = std::fmax(maxabs, std::fabs(a[k].data[i]));
        EXPECT_GT(maxabs, 0.0) << "top " << k << " is all zero";
        double e = test::rel_err(a[k], b[k]);
        EXPECT_LE(e, 1e-6) << type << " top " << k;
        worst = std::fmax(worst, e);
    }
    return worst;
}

}  // namespace

TEST(RecurrentFast, MatchesReferenceOnOddSizes) {
    uint32_t seed = 300;
    double worst = 0;
    for (const std::string type : {"LSTM", "GRU", "RNN"})
        for (int N : {1, 3, 4, 5, 17})
            for (int size : {1, 3, 8, 13})
                for (int direction : {0, 1, 2})
                    for (bool states : {false, true}) {
                        const int dirs = direction == 2 ? 2 : 1, T = 6, S = type == "LSTM" ? 2 : 1;
                        const int rows = type == "LSTM" ? 4 * N : type == "GRU" ? 3 * N : N;
                        SCOPED_TRACE(type + " N " + std::to_string(N) + " size " + std::to_string(size) + " dir " +
                                     std::to_string(direction) + " states " + std::to_string(states));
                        ParamDict pd = params({{0, N}, {1, dirs * rows * size}, {2, direction}});
                        std::vector<Mat> in = {rand_mat(Shape::d2(size, T), ++seed)};
                        if (states)
                            for (int s = 0; s < S; s++)
                                in.push_back(rand_mat(Shape::d2(N, dirs), ++seed));
                        worst = std::fmax(worst, compare_all(type, pd, in, states ? 1 + S : 1, ++seed));
                    }
    std::printf("recurrent fast vs reference: worst rel err %.3g\n", worst);
}

TEST(RecurrentFast, LstmProjection) {
    uint32_t seed = 900;
    for (int Hs : {1, 5, 9})
        for (int N : {1, 3, 4})
            for (int direction : {0, 2}) {
                if (N == Hs)
                    continue;
                const int dirs = direction == 2 ? 2 : 1, size = 7, T = 5;
                SCOPED_TRACE("hidden " + std::to_string(Hs) + " out " + std::to_string(N));
                ParamDict pd = params({{0, N}, {1, dirs * 4 * Hs * size}, {2, direction}, {3, Hs}});
                std::vector<Mat> in = {rand_mat(Shape::d2(size, T), ++seed), rand_mat(Shape::d2(N, dirs), ++seed),
                                       rand_mat(Shape::d2(Hs, dirs), ++seed)};
                compare_all("LSTM", pd, in, 3, ++seed);
            }
}
