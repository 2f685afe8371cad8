// MatMul: every pair of input dims (1D-4D) with and without transB, batch broadcasting, against a
// numpy.matmul reference written here (1D operands promoted and their axis dropped, batch axes
// right-aligned and broadcast; a scalar result is [1] in ncnn); errors.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

using V = std::vector<int>;

// numpy.matmul(A, B') with B' = B^T over its last two axes when transB (2D+ B only).
std::vector<float> numpy_matmul(const Mat& A, const Mat& B, int transB, V& out_shape) {
    V a = A.shape().to_list(), b = B.shape().to_list();
    const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
    V ap = a_vec ? V{1, a[0]} : a;
    V bp = b_vec ? V{b[0], 1} : b;
    const bool tb = transB && !b_vec;
    const int M = ap[ap.size() - 2], K = ap.back();
    const int N = tb ? bp[bp.size() - 2] : bp.back();
    V abatch(ap.begin(), ap.end() - 2), bbatch(bp.begin(), bp.end() - 2);
    const size_t nb = std::max(abatch.size(), bbatch.size());
    while (abatch.size() < nb)
        abatch.insert(abatch.begin(), 1);
    while (bbatch.size() < nb)
        bbatch.insert(bbatch.begin(), 1);
    V batch(nb);
    for (size_t k = 0; k < nb; k++)
        batch[k] = std::max(abatch[k], bbatch[k]);
    out_shape = batch;
    if (!a_vec)
        out_shape.push_back(M);
    if (!b_vec)
        out_shape.push_back(N);
    if (out_shape.empty())
        out_shape = {1};
    std::vector<float> out;
    V full = batch;
    full.push_back(M);
    full.push_back(N);
    for_each_coord(full, [&](const V& c) {
        size_t ai = 0, bi = 0;
        for (size_t k = 0; k < nb; k++) {
            ai = ai * abatch[k] + (abatch[k] == 1 ? 0 : c[k]);
            bi = bi * bbatch[k] + (bbatch[k] == 1 ? 0 : c[k]);
        }
        const int m = c[nb], n = c[nb + 1];
        double s = 0;
        for (int k = 0; k < K; k++) {
            const float av = A.data[(ai * M + m) * K + k];
            const float bv = tb ? B.data[(bi * N + n) * K + k] : B.data[(bi * K + k) * N + n];
            s += (double)av * bv;
        }
        out.push_back((float)s);
    });
    return out;
}

// Shapes (outermost first) for A and B given their dims, with M=3, K=5, N=4 and batch c=2, d=3.
V shape_of(int dims, bool is_a, bool transB) {
    const int M = 3, K = 5, N = 4;
    V mat = is_a ? V{M, K} : (transB ? V{N, K} : V{K, N});
    switch (dims) {
    case 1: return {K};
    case 2: return mat;
    case 3: return {2, mat[0], mat[1]};
    default: return {2, 3, mat[0], mat[1]};
    }
}

}  // namespace

TEST(MatMul, EveryDimsPairAgainstNumpy) {
    uint32_t seed = 1;
    for (int transB = 0; transB < 2; transB++)
        for (int ad = 1; ad <= 4; ad++)
            for (int bd = 1; bd <= 4; bd++) {
                if (ad == 4 && bd == 3)
                    continue;  // a 3D B inside 4D broadcasts its c as d: covered below
                if (ad == 3 && bd == 4)
                    continue;
                SCOPED_TRACE("A " + std::to_string(ad) + "D, B " + std::to_string(bd) + "D, transB " +
                             std::to_string(transB));
                Mat A = rand_mat(Shape::from_list(shape_of(ad, true, transB)), seed++);
                Mat B = rand_mat(Shape::from_list(shape_of(bd, false, transB)), seed++);
                Built l = build("MatMul", params({{0, transB}}));
                ASSERT_TRUE(l.st.is_ok());
                Mat out = run1(*l.layer, {A, B});
                V want_shape;
                std::vector<float> want = numpy_matmul(A, B, transB, want_shape);
                EXPECT_EQ(out.shape().to_list(), want_shape);
                expect_near(want, out, 1e-5f, 1e-5f);
            }
}

TEST(MatMul, BatchBroadcast) {
    const std::vector<std::pair<V, V>> cases = {
        {{1, 3, 5}, {4, 5, 2}},        // A's batch 1 broadcast
        {{4, 3, 5}, {1, 5, 2}},        // B's batch 1 broadcast
        {{3, 5}, {4, 5, 2}},           // 2D A for every batch
        {{2, 1, 3, 5}, {1, 4, 5, 2}},  // c from A, d from B
        {{4, 3, 5}, {2, 4, 5, 2}},     // 3D inside 4D: its c is the d axis (numpy's right alignment)
        {{2, 4, 3, 5}, {4, 5, 2}},
        {{2, 1, 3, 5}, {5, 2}},
        {{1}, {2, 3, 1, 2}},           // 1 x 1 matrices
    };
    uint32_t seed = 100;
    for (auto& cs : cases) {
        Mat A = rand_mat(Shape::from_list(cs.first), seed++);
        Mat B = rand_mat(Shape::from_list(cs.second), seed++);
        Built l = build("MatMul", ParamDict());
        Mat out = run1(*l.layer, {A, B});
        V want_shape;
        std::vector<float> want = numpy_matmul(A, B, 0, want_shape);
        EXPECT_EQ(out.shape().to_list(), want_shape) << A.shape().str() << " x " << B.shape().str();
        expect_near(want, out, 1e-5f, 1e-5f);
    }
}

TEST(MatMul, ByHand) {
    // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]; with transB B is read as [[5,7],[6,8]]
    Mat A = mat_of(Shape::d2(2, 2), {1, 2, 3, 4}), B = mat_of(Shape::d2(2, 2), {5, 6, 7, 8});
    expect_near({19, 22, 43, 50}, run1(*build("MatMul", ParamDict()).layer, {A, B}), 0, 0);
    expect_near({17, 23, 39, 53}, run1(*build("MatMul", params({{0, 1}})).layer, {A, B}), 0, 0);
    // dot product
    Mat u = mat_of(Shape::d1(3), {1, 2, 3}), v = mat_of(Shape::d1(3), {4, 5, 6});
    Mat d = run1(*build("MatMul", ParamDict()).layer, {u, v});
    EXPECT_EQ(d.shape(), Shape::d1(1));
    expect_near({32}, d, 0, 0);
}

TEST(MatMul, Errors) {
    std::vector<Mat> out;
    Built l = build("MatMul", ParamDict());
    LT_EXPECT_ERROR(run(*l.layer, {rand_mat(Shape::d2(5, 3), 1), rand_mat(Shape::d2(4, 4), 2)}, out),
                    ErrorCode::ShapeMismatch, "inner extents differ");
    LT_EXPECT_ERROR(run(*l.layer, {rand_mat(Shape::d3(5, 3, 2), 1), rand_mat(Shape::d3(4, 5, 3), 2)}, out),
                    ErrorCode::ShapeMismatch, "do not broadcast");
    LT_EXPECT_ERROR(run(*l.layer, {rand_mat(Shape::d1(3), 1), rand_mat(Shape::d1(4), 2)}, out), ErrorCode::ShapeMismatch,
                    "inner extents differ");
    LT_EXPECT_ERROR(run(*l.layer, {rand_mat(Shape::d1(3), 1)}, out), ErrorCode::ShapeMismatch, "two inputs");
    LT_EXPECT_ERROR(create_layer("MatMul", false)->load_param(params({{0, 2}})), ErrorCode::InvalidModel, "transB");
}
