// MultiHeadAttention against attention written with plain matrices in double (projections,
// per-head scaled dot products, additive mask, softmax, output projection): self-attention as in
// vision_transformer, cross-attention with kdim/vdim, 2D and per-head masks, explicit scale; the
// computed default scale; weight specs; errors.
#include "layers/multiheadattention.h"

#include <cmath>

#include "io/ncnn_io.h"
#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

using Mx = std::vector<double>;  // row-major

// y[n][rows] = x[n][cols] * W^T + b, W [rows][cols]
Mx affine(const float* x, int n, int cols, const std::vector<float>& W, const std::vector<float>& b, int rows) {
    Mx y((size_t)n * rows);
    for (int i = 0; i < n; i++)
        for (int r = 0; r < rows; r++) {
            double s = b[r];
            for (int c = 0; c < cols; c++)
                s += (double)x[(size_t)i * cols + c] * W[(size_t)r * cols + c];
            y[(size_t)i * rows + r] = s;
        }
    return y;
}

std::vector<float> mha_ref(const Mat& q, const Mat& k, const Mat& v, const Mat* mask, int E, int H, float scale,
                           const std::vector<std::vector<float>>& w) {
    const int S = q.shape().h, D = k.shape().h, Q = q.shape().w, KD = k.shape().w, VD = v.shape().w, dh = E / H;
    Mx Qp = affine(q.data, S, Q, w[0], w[1], E);
    Mx Kp = affine(k.data, D, KD, w[2], w[3], E);
    Mx Vp = affine(v.data, D, VD, w[4], w[5], E);
    Mx O((size_t)S * E);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < S; i++) {
            std::vector<double> a(D);
            double mx = -1e300;
            for (int j = 0; j < D; j++) {
                double s = 0;
                for (int l = 0; l < dh; l++)
                    s += Qp[(size_t)i * E + h * dh + l] * scale * Kp[(size_t)j * E + h * dh + l];
                if (mask)
                    s += mask->data[(mask->dims == 3 ? (size_t)h * S * D : 0) + (size_t)i * D + j];
                a[j] = s;
                mx = std::max(mx, s);
            }
            double sum = 0;
            for (int j = 0; j < D; j++)
                sum += (a[j] = std::exp(a[j] - mx));
            for (int l = 0; l < dh; l++) {
                double s = 0;
                for (int j = 0; j < D; j++)
                    s += a[j] / sum * Vp[(size_t)j * E + h * dh + l];
                O[(size_t)i * E + h * dh + l] = s;
            }
        }
    std::vector<float> y;
    for (int i = 0; i < S; i++)
        for (int r = 0; r < Q; r++) {
            double s = w[7][r];
            for (int c = 0; c < E; c++)
                s += O[(size_t)i * E + c] * w[6][(size_t)r * E + c];
            y.push_back((float)s);
        }
    return y;
}

}  // namespace

TEST(MultiHeadAttention, SelfAttentionAsVisionTransformer) {
    // zoo: MultiHeadAttention 3 1 x x x out 0=768 1=12 2=589824 (scaled down: E 12, 3 heads, 5 tokens)
    const int E = 12, H = 3, S = 5;
    ParamDict pd = params({{0, E}, {1, H}, {2, E * E}});
    auto w = random_weights("MultiHeadAttention", pd, 11);
    Built b = build("MultiHeadAttention", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat x = rand_mat(Shape::d2(E, S), 12);
    // the zoo passes the same blob three times (after a Split); one input works the same
    Mat y3 = run1(*b.layer, {x, x, x});
    Mat y1 = run1(*b.layer, {x});
    EXPECT_EQ(y3.shape(), Shape::d2(E, S));
    auto want = mha_ref(x, x, x, nullptr, E, H, 1.f / std::sqrt(4.f), w);
    expect_near(want, y3, 1e-4f, 1e-5f);
    expect_near(want, y1, 1e-4f, 1e-5f);
}

TEST(MultiHeadAttention, CrossAttentionMasksAndScale) {
    const int E = 8, H = 2, S = 3, D = 5, Q = 6, KD = 7, VD = 4;
    for (int mask_dims = 0; mask_dims <= 3; mask_dims++) {
        if (mask_dims == 1)
            continue;
        SCOPED_TRACE("mask dims " + std::to_string(mask_dims));
        ParamDict pd = params({{0, E}, {1, H}, {2, E * Q}, {3, KD}, {4, VD}, {5, mask_dims ? 1 : 0}});
        pd.set_float(6, 0.3f);
        auto w = random_weights("MultiHeadAttention", pd, 20 + mask_dims);
        Built b = build("MultiHeadAttention", pd, w);
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        Mat q = rand_mat(Shape::d2(Q, S), 30), k = rand_mat(Shape::d2(KD, D), 31), v = rand_mat(Shape::d2(VD, D), 32);
        Mat m = mask_dims == 3 ? rand_mat(Shape::d3(D, S, H), 33, -2.f, 2.f) : rand_mat(Shape::d2(D, S), 33, -2.f, 2.f);
        std::vector<Mat> in{q, k, v};
        if (mask_dims)
            in.push_back(m);
        Mat y = run1(*b.layer, in);
        EXPECT_EQ(y.shape(), Shape::d2(Q, S));
        expect_near(mha_ref(q, k, v, mask_dims ? &m : nullptr, E, H, 0.3f, w), y, 1e-4f, 1e-5f);
    }
    // two inputs: q and a shared k = v
    ParamDict pd = params({{0, E}, {1, H}, {2, E * Q}, {3, KD}, {4, KD}});
    auto w = random_weights("MultiHeadAttention", pd, 40);
    Built b = build("MultiHeadAttention", pd, w);
    Mat q = rand_mat(Shape::d2(Q, S), 41), kv = rand_mat(Shape::d2(KD, D), 42);
    expect_near(mha_ref(q, kv, kv, nullptr, E, H, 1.f / std::sqrt(4.f), w), run1(*b.layer, {q, kv}), 1e-4f, 1e-5f);
}

TEST(MultiHeadAttention, DefaultScaleAndExplicitScale) {
    // ncnn: 1 / sqrtf(embed_dim / num_heads); heads that do not divide embed_dim are refused
    auto l = create_layer("MultiHeadAttention", false);
    LT_EXPECT_ERROR(l->load_param(params({{0, 10}, {1, 4}, {2, 100}})), ErrorCode::InvalidModel, "divide");
    ASSERT_TRUE(l->load_param(params({{0, 12}, {1, 3}, {2, 144}})).is_ok());
    EXPECT_FLOAT_EQ(static_cast<MultiHeadAttention*>(l.get())->scale, 0.5f);
    // the canonical writer keeps an explicit scale even when it equals a plausible default
    Graph g;
    Warnings warn;
    ASSERT_TRUE(read_param("7767517\n2 2\nInput in 0 1 x\nMultiHeadAttention mha 1 1 x y 0=12 1=3 2=144 6=5.0e-01\n", g,
                           warn)
                    .is_ok());
    std::string text;
    ASSERT_TRUE(write_param(g, text, warn).is_ok());
    EXPECT_NE(text.find(" 6="), std::string::npos) << text;
}

TEST(MultiHeadAttention, WeightSpecsAndErrors) {
    auto l = create_layer("MultiHeadAttention", false);
    ASSERT_TRUE(l->load_param(params({{0, 8}, {1, 2}, {2, 48}, {3, 5}, {4, 7}, {18, 1}})).is_ok());
    std::vector<WeightSpec> s;
    ASSERT_TRUE(l->weight_specs(s).is_ok());
    ASSERT_EQ(s.size(), 12u);
    const char* names[] = {"q_weight_data", "q_bias_data", "k_weight_data", "k_bias_data", "v_weight_data",
                           "v_bias_data", "out_weight_data", "out_bias_data"};
    const uint64_t counts[] = {48, 8, 40, 8, 56, 8, 48, 6};
    for (int i = 0; i < 8; i++) {
        EXPECT_EQ(s[i].name, names[i]);
        EXPECT_EQ(s[i].count, counts[i]);
        EXPECT_EQ(s[i].tagged, i % 2 == 0);
    }
    EXPECT_EQ(s[11].count, 1u);
    EXPECT_EQ(build("MultiHeadAttention", params({{0, 8}, {1, 2}, {2, 64}, {18, 1}})).st.code(), ErrorCode::Unsupported);

    auto load = [](ParamDict pd) { return create_layer("MultiHeadAttention", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 0}})), ErrorCode::InvalidModel, "embed_dim");
    LT_EXPECT_ERROR(load(params({{0, 8}, {1, 3}, {2, 64}})), ErrorCode::InvalidModel, "num_heads");
    LT_EXPECT_ERROR(load(params({{0, 8}, {1, 2}, {2, 60}})), ErrorCode::InvalidModel, "weight_data_size");

    Built b = build("MultiHeadAttention", params({{0, 8}, {1, 2}, {2, 64}, {5, 1}}));
    ASSERT_TRUE(b.st.is_ok());
    std::vector<Mat> out;
    Mat x = rand_mat(Shape::d2(8, 3), 1);
    LT_EXPECT_ERROR(run(*b.layer, {x, rand_mat(Shape::d2(4, 3), 1)}, out), ErrorCode::ShapeMismatch, "attn_mask");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(7, 3), 1), rand_mat(Shape::d2(3, 3), 1)}, out),
                    ErrorCode::ShapeMismatch, "qdim");
    LT_EXPECT_ERROR(run(*b.layer, {x}, out), ErrorCode::ShapeMismatch, "inputs");
    Built c = build("MultiHeadAttention", params({{0, 8}, {1, 2}, {2, 64}}));
    LT_EXPECT_ERROR(run(*c.layer, {x, rand_mat(Shape::d2(8, 4), 1), rand_mat(Shape::d2(8, 5), 1)}, out),
                    ErrorCode::ShapeMismatch, "same number of rows");
    LT_EXPECT_ERROR(run(*c.layer, {rand_mat(Shape::d3(8, 3, 2), 1)}, out), ErrorCode::ShapeMismatch, "2D");
    EXPECT_EQ(build("MultiHeadAttention", params({{0, 8}, {1, 2}, {2, 64}, {7, 1}})).st.code(), ErrorCode::Unsupported);
}
