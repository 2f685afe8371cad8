// Gemm against a triple loop with explicit transposes: blob and constant operands in every
// transA/transB combination, alpha/beta, every C broadcast form (blob and constant, including
// ncnn's rule that [N] wins over [M] when M == N), output_transpose, output_N1M and the 3D
// [rows,1,cols] operands, the vision_transformer form; weight specs and errors.
#include "layers/gemm.h"

#include <functional>

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// Row-major dense matrix helpers for the reference.
std::vector<float> transpose(const std::vector<float>& a, int rows, int cols) {
    std::vector<float> t(a.size());
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            t[(size_t)j * rows + i] = a[(size_t)i * cols + j];
    return t;
}

// y[M][N] = alpha * (A[M][K] B[K][N] + beta * C(i, j))
std::vector<float> gemm_ref(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K, float alpha,
                            float beta, const std::function<float(int, int)>& C) {
    std::vector<float> y((size_t)M * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            if (C)
                s += beta * (double)C(i, j);
            y[(size_t)i * N + j] = (float)(alpha * s);
        }
    return y;
}

}  // namespace

TEST(Gemm, BlobOperandsAllTransposes) {
    const int M = 5, N = 3, K = 7;
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++) {
            SCOPED_TRACE("transA " + std::to_string(ta) + " transB " + std::to_string(tb));
            ParamDict pd = params({{2, ta}, {3, tb}});
            pd.set_float(0, 0.5f);
            Built b = build("Gemm", pd);
            ASSERT_TRUE(b.st.is_ok()) << b.st.message();
            Mat A = rand_mat(ta ? Shape::d2(M, K) : Shape::d2(K, M), 10 + ta);
            Mat B = rand_mat(tb ? Shape::d2(K, N) : Shape::d2(N, K), 20 + tb);
            Mat y = run1(*b.layer, {A, B});
            EXPECT_EQ(y.shape(), Shape::d2(N, M));
            auto a = ta ? transpose(vec(A), K, M) : vec(A);
            auto bb = tb ? transpose(vec(B), N, K) : vec(B);
            expect_near(gemm_ref(a, bb, M, N, K, 0.5f, 1.f, nullptr), y);
        }
}

TEST(Gemm, BlobCBroadcastForms) {
    const int M = 4, N = 3, K = 5;
    Mat A = rand_mat(Shape::d2(K, M), 31), B = rand_mat(Shape::d2(N, K), 32);
    struct Case {
        Shape c;
        std::function<float(const Mat&, int, int)> at;
    };
    const Case cases[] = {
        {Shape::d1(1), [](const Mat& c, int, int) { return c.data[0]; }},
        {Shape::d1(M), [](const Mat& c, int i, int) { return c.data[i]; }},
        {Shape::d1(N), [](const Mat& c, int, int j) { return c.data[j]; }},
        {Shape::d2(1, M), [](const Mat& c, int i, int) { return c.data[i]; }},
        {Shape::d2(N, M), [](const Mat& c, int i, int j) { return c.data[(size_t)i * N + j]; }},
        {Shape::d2(N, 1), [](const Mat& c, int, int j) { return c.data[j]; }},
    };
    ParamDict pd;
    pd.set_float(0, 2.f);
    pd.set_float(1, -0.5f);
    Built b = build("Gemm", pd);
    ASSERT_TRUE(b.st.is_ok());
    uint32_t seed = 40;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.c.str());
        Mat C = rand_mat(c.c, ++seed);
        Mat y = run1(*b.layer, {A, B, C});
        expect_near(gemm_ref(vec(A), vec(B), M, N, K, 2.f, -0.5f, [&](int i, int j) { return c.at(C, i, j); }), y);
    }
}

TEST(Gemm, SquareProductVectorCIsPerColumn) {
    // ncnn tests C.w == M, then C.w == N; with M == N the later rule wins: a [N] row for every row
    const int M = 3, N = 3, K = 2;
    Built b = build("Gemm", ParamDict());
    ASSERT_TRUE(b.st.is_ok());
    Mat A = mat_of(Shape::d2(K, M), {1, 0, 0, 1, 1, 1});
    Mat B = mat_of(Shape::d2(N, K), {1, 2, 3, 4, 5, 6});
    Mat C = mat_of(Shape::d1(3), {10, 20, 30});
    Mat y = run1(*b.layer, {A, B, C});
    // A B = [[1,2,3],[4,5,6],[5,7,9]]; + C per column
    expect_near({11, 22, 33, 14, 25, 36, 15, 27, 39}, y, 0, 0);
}

TEST(Gemm, ConstantOperandsAndLayouts) {
    const int M = 3, N = 4, K = 5;
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++)
            for (int ctype = -1; ctype <= 4; ctype++) {
                SCOPED_TRACE("transA " + std::to_string(ta) + " transB " + std::to_string(tb) + " C type " +
                             std::to_string(ctype));
                // constant A and C, B from a blob
                ParamDict pd = params({{2, ta}, {3, tb}, {4, 1}, {6, 1}, {7, M}, {8, N}, {9, K}, {10, ctype}});
                pd.set_float(1, 0.25f);
                auto w = random_weights("Gemm", pd, 60 + ctype);
                ASSERT_EQ(w.size(), ctype == -1 ? 1u : 2u);
                Built b = build("Gemm", pd, w);
                ASSERT_TRUE(b.st.is_ok()) << b.st.message();
                EXPECT_TRUE(b->one_blob_only);
                Mat B = rand_mat(tb ? Shape::d2(K, N) : Shape::d2(N, K), 70);
                Mat y = run1(*b.layer, {B});
                auto a = ta ? transpose(w[0], K, M) : w[0];
                auto bb = tb ? transpose(vec(B), N, K) : vec(B);
                std::function<float(int, int)> C;
                const std::vector<float> cd = ctype == -1 ? std::vector<float>() : w[1];
                switch (ctype) {
                case 0: C = [&](int, int) { return cd[0]; }; break;
                case 1: case 2: C = [&](int i, int) { return cd[i]; }; break;
                case 3: C = [&](int i, int j) { return cd[(size_t)i * N + j]; }; break;
                case 4: C = [&](int, int j) { return cd[j]; }; break;
                default: break;
                }
                expect_near(gemm_ref(a, bb, M, N, K, 1.f, 0.25f, C), y);
            }
}

TEST(Gemm, VisionTransformerForm) {
    // zoo: Gemm 3=1 5=1 6=1 8=N 9=K 10=4 on a [tokens, K] blob: y = x W^T + b
    const int T = 5, N = 6, K = 8;
    ParamDict pd = params({{3, 1}, {5, 1}, {6, 1}, {8, N}, {9, K}, {10, 4}});
    auto w = random_weights("Gemm", pd, 80);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[0].size(), (size_t)N * K);
    EXPECT_EQ(w[1].size(), (size_t)N);
    Built b = build("Gemm", pd, w);
    ASSERT_TRUE(b.st.is_ok());
    Mat x = rand_mat(Shape::d2(K, T), 81);
    Mat y = run1(*b.layer, {x});
    EXPECT_EQ(y.shape(), Shape::d2(N, T));
    expect_near(gemm_ref(vec(x), transpose(w[0], N, K), T, N, K, 1.f, 1.f, [&](int, int j) { return w[1][j]; }), y);
    // one row (the classifier after the cls-token Crop)
    Mat x1 = rand_mat(Shape::d2(K, 1), 82);
    Mat y1 = run1(*b.layer, {x1});
    EXPECT_EQ(y1.shape(), Shape::d2(N, 1));
}

TEST(Gemm, OutputTransposeAndN1M) {
    const int M = 3, N = 2, K = 4;
    Mat A = rand_mat(Shape::d2(K, M), 90), B = rand_mat(Shape::d2(N, K), 91);
    auto want = gemm_ref(vec(A), vec(B), M, N, K, 1.f, 1.f, nullptr);
    {
        Built b = build("Gemm", params({{14, 1}}));
        Mat y = run1(*b.layer, {A, B});
        EXPECT_EQ(y.shape(), Shape::d2(M, N));
        expect_near(transpose(want, M, N), y);
    }
    {
        Built b = build("Gemm", params({{11, 1}}));
        Mat y = run1(*b.layer, {A, B});
        EXPECT_EQ(y.shape(), Shape::d3(N, 1, M));
        expect_near(want, y);
    }
    {
        Built b = build("Gemm", params({{11, 1}, {14, 1}}));
        Mat y = run1(*b.layer, {A, B});
        EXPECT_EQ(y.shape(), Shape::d3(M, 1, N));
        expect_near(transpose(want, M, N), y);
    }
    {
        // 3D [M,1,K] operand (the N1M layout): one row per channel
        Built b = build("Gemm", ParamDict());
        Mat A3 = mat_of(Shape::d3(K, 1, M), vec(A));
        Mat y = run1(*b.layer, {A3, B});
        expect_near(want, y);
    }
}

TEST(Gemm, WeightSpecsAndErrors) {
    auto specs = [](ParamDict pd) {
        auto l = create_layer("Gemm", false);
        EXPECT_TRUE(l->load_param(pd).is_ok());
        std::vector<WeightSpec> s;
        EXPECT_TRUE(l->weight_specs(s).is_ok());
        return s;
    };
    auto s = specs(params({{4, 1}, {5, 1}, {6, 1}, {7, 3}, {8, 4}, {9, 5}, {10, 3}, {18, 1}}));
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s[0].name, "A_data");
    EXPECT_EQ(s[0].count, 15u);
    EXPECT_TRUE(s[0].tagged);
    EXPECT_EQ(s[1].name, "B_data");
    EXPECT_EQ(s[1].count, 20u);
    EXPECT_EQ(s[2].name, "C_data");
    EXPECT_EQ(s[2].count, 12u);
    EXPECT_TRUE(s[2].tagged);
    EXPECT_EQ(s[3].name, "A_data_int8_scales");
    EXPECT_EQ(s[3].count, 3u);
    EXPECT_FALSE(s[3].tagged);
    EXPECT_EQ(s[4].count, 1u);

    auto load = [](ParamDict pd) { return create_layer("Gemm", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{4, 1}, {9, 3}})), ErrorCode::InvalidModel, "constantM");
    LT_EXPECT_ERROR(load(params({{5, 1}, {8, 3}})), ErrorCode::InvalidModel, "constantN");
    LT_EXPECT_ERROR(load(params({{6, 1}, {10, 5}})), ErrorCode::InvalidModel, "constant_broadcast_type_C");

    Built b = build("Gemm", ParamDict());
    std::vector<Mat> out;
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(3, 2), 1), rand_mat(Shape::d2(2, 4), 1)}, out),
                    ErrorCode::ShapeMismatch, "inner");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(3, 2), 1)}, out), ErrorCode::ShapeMismatch, "inputs");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(3, 2), 1), rand_mat(Shape::d2(2, 3), 1), rand_mat(Shape::d1(5), 1)},
                        out),
                    ErrorCode::ShapeMismatch, "broadcast");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(3, 2, 2), 1), rand_mat(Shape::d2(2, 3), 1)}, out),
                    ErrorCode::ShapeMismatch, "[rows,1,cols]");
    Built cb = build("Gemm", params({{5, 1}, {6, 1}, {8, 2}, {9, 3}, {7, 4}, {10, 1}}));
    ASSERT_TRUE(cb.st.is_ok());
    LT_EXPECT_ERROR(run(*cb.layer, {rand_mat(Shape::d2(3, 5), 1)}, out), ErrorCode::ShapeMismatch, "M=4");
}
