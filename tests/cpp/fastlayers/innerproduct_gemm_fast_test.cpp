// InnerProduct_fast (GEMV, row-wise GEMM) and Gemm_fast (every transpose, constant operands in
// both roles, C broadcast forms, alpha/beta, output_transpose, output_N1M, 3D operands) against
// the reference layers. Both compute each output in the reference's order: exact except for the
// fast exp of sigmoid/mish.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

TEST(InnerProductFast, OneRowAndRowWise) {
    uint32_t seed = 1;
    for (int n : {1, 3, 4, 5, 17, 64, 300})
        for (int O : {1, 3, 4, 5, 17, 64})
            for (int act : {0, 2, 4, 5}) {
                ParamDict pd = params({{0, O}, {1, (int)(seed & 1)}, {2, O * n}, {9, act}});
                if (act == 2)
                    pd.set_floats(10, {0.1f});
                compare("InnerProduct", pd, {rand_mat(Shape::d1(n), seed)}, 1e-5, seed + 1);
                seed++;
            }
    // flattened 3D and 2D inputs, row-wise 2D
    ParamDict pd = params({{0, 10}, {1, 1}, {2, 10 * 3 * 4 * 5}, {9, 2}});
    pd.set_floats(10, {0.1f});
    compare("InnerProduct", pd, {rand_mat(Shape::d3(5, 4, 3), 7)}, 1e-5);
    for (int rows : {2, 3, 5, 9, 17})
        for (int n : {1, 5, 64}) {
            ParamDict p2 = params({{0, 13}, {1, 1}, {2, 13 * n}, {9, 6}});
            p2.set_floats(10, {0.2f, 0.5f});
            compare("InnerProduct", p2, {rand_mat(Shape::d2(n, rows), seed++)}, 1e-5);
        }
    ParamDict p3 = params({{0, 7}, {2, 7 * 12}});
    compare("InnerProduct", p3, {rand_mat(Shape::d2(12, 1), seed++)}, 1e-5);  // one row: flattened
}

TEST(InnerProductFast, LargeLayer) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    ParamDict pd = params({{0, 1000}, {1, 1}, {2, 1000 * 1280}});
    compare("InnerProduct", pd, {rand_mat(Shape::d1(1280), 3)}, 1e-5);
    ParamDict rows = params({{0, 384}, {1, 1}, {2, 384 * 384}});
    compare("InnerProduct", rows, {rand_mat(Shape::d2(384, 197), 4)}, 1e-5);
}

namespace {

Shape operand(int rows, int cols, bool three_d) { return three_d ? Shape::d3(cols, 1, rows) : Shape::d2(cols, rows); }

}  // namespace

TEST(GemmFast, BlobOperandsEveryLayout) {
    uint32_t seed = 100;
    for (int M : {1, 5, 17})
        for (int N : {1, 4, 9})
            for (int K : {1, 7, 33})
                for (int ta = 0; ta <= 1; ta++)
                    for (int tb = 0; tb <= 1; tb++)
                        for (int ot = 0; ot <= 1; ot++) {
                            SCOPED_TRACE("M" + std::to_string(M) + " N" + std::to_string(N) + " K" + std::to_string(K) +
                                         " tA" + std::to_string(ta) + " tB" + std::to_string(tb) + " oT" + std::to_string(ot));
                            ParamDict pd = params({{2, ta}, {3, tb}, {14, ot}, {11, (int)(seed % 3 == 0)}});
                            pd.set_float(0, 0.75f);
                            const bool a3 = seed % 2 == 0, b3 = seed % 5 == 0;
                            Mat A = rand_mat(ta ? operand(K, M, a3) : operand(M, K, a3), seed);
                            Mat B = rand_mat(tb ? operand(N, K, b3) : operand(K, N, b3), seed + 1);
                            compare("Gemm", pd, {A, B}, 0.0, seed);
                            seed++;
                        }
}

TEST(GemmFast, CBroadcastFormsAlphaBeta) {
    const int M = 6, N = 5, K = 9;
    uint32_t seed = 500;
    const Shape cs[] = {Shape::d1(1), Shape::d1(M), Shape::d1(N), Shape::d2(1, M), Shape::d2(N, M), Shape::d2(N, 1)};
    for (const Shape& c : cs)
        for (int ot = 0; ot <= 1; ot++) {
            SCOPED_TRACE("C " + c.str() + " oT" + std::to_string(ot));
            ParamDict pd = params({{2, 1}, {14, ot}});
            pd.set_float(0, 1.5f);
            pd.set_float(1, -0.5f);
            compare("Gemm", pd, {rand_mat(Shape::d2(M, K), seed), rand_mat(Shape::d2(N, K), seed + 1), rand_mat(c, seed + 2)},
                    0.0, seed);
            seed += 3;
        }
}

TEST(GemmFast, ConstantOperandsInBothRoles) {
    uint32_t seed = 700;
    const int M = 7, N = 10, K = 13;
    for (int ca = 0; ca <= 1; ca++)
        for (int cb = 0; cb <= 1; cb++)
            for (int ta = 0; ta <= 1; ta++)
                for (int tb = 0; tb <= 1; tb++)
                    for (int ot = 0; ot <= 1; ot++)
                        for (int ctype : {-2, 0, 1, 3, 4}) {  // -2: no constant C (C not given)
                            if (ca && cb && ctype == -2)
                                continue;  // no input at all
                            SCOPED_TRACE("cA" + std::to_string(ca) + " cB" + std::to_string(cb) + " tA" + std::to_string(ta) +
                                         " tB" + std::to_string(tb) + " oT" + std::to_string(ot) + " C" + std::to_string(ctype));
                            ParamDict pd = params({{2, ta}, {3, tb}, {4, ca}, {5, cb}, {7, M}, {8, N}, {9, K}, {14, ot}});
                            if (ctype != -2) {
                                pd.set_int(6, 1);
                                pd.set_int(10, ctype);
                            }
                            pd.set_float(0, 0.5f);
                            pd.set_float(1, 2.f);
                            std::vector<Mat> in;
                            if (!ca)
                                in.push_back(rand_mat(ta ? Shape::d2(M, K) : Shape::d2(K, M), seed));
                            if (!cb)
                                in.push_back(rand_mat(tb ? Shape::d2(K, N) : Shape::d2(N, K), seed + 1));
                            if (in.empty())
                                continue;  // both constant: nothing to feed (ncnn needs C then)
                            compare("Gemm", pd, in, 0.0, seed);
                            seed++;
                        }
}

TEST(GemmFast, VisionTransformerForm) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    // ViT's MLP: constant B [N][K] transposed, constant C per column, 197 rows
    ParamDict pd = params({{3, 1}, {5, 1}, {6, 1}, {8, 1536}, {9, 384}, {10, 4}});
    compare("Gemm", pd, {rand_mat(Shape::d2(384, 197), 1)}, 0.0);
}
