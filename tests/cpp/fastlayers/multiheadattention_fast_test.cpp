// MultiHeadAttention_fast against the reference MultiHeadAttention: self-attention (one input),
// cross-attention (q, k, v of other lengths and dims), 2D and per-head 3D masks, explicit scale,
// sequence lengths and head sizes around the GEMM tiles (1, 3, 4, 5, 17 tokens; head sizes 1, 3, 4,
// 16). Projections and products sum in the reference's order; the softmax's exp and lane-wise sum
// differ: within 1e-4 (docs/numbers.md).
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

ParamDict mha(int E, int H, int Q, int kdim, int vdim, int mask = 0) {
    return params({{0, E}, {1, H}, {2, E * Q}, {3, kdim}, {4, vdim}, {5, mask}});
}

}  // namespace

TEST(MultiHeadAttentionFast, SelfAttention) {
    uint32_t seed = 1;
    for (int H : {1, 3, 4})
        for (int dh : {1, 3, 4, 16})
            for (int S : {1, 3, 4, 5, 17}) {
                const int E = H * dh;
                SCOPED_TRACE("E " + std::to_string(E) + " H " + std::to_string(H) + " S " + std::to_string(S));
                compare("MultiHeadAttention", mha(E, H, E, E, E), {rand_mat(Shape::d2(E, S), seed++)}, 1e-4, seed);
            }
}

TEST(MultiHeadAttentionFast, CrossAttentionMasksAndScale) {
    uint32_t seed = 100;
    for (int mask : {0, 2, 3})
        for (int S : {1, 5, 17})
            for (int D : {1, 4, 13}) {
                const int E = 12, H = 3, Q = 7, kd = 5, vd = 9;
                SCOPED_TRACE("mask dims " + std::to_string(mask) + " S " + std::to_string(S) + " D " + std::to_string(D));
                std::vector<Mat> in = {rand_mat(Shape::d2(Q, S), seed), rand_mat(Shape::d2(kd, D), seed + 1),
                                       rand_mat(Shape::d2(vd, D), seed + 2)};
                if (mask == 2)
                    in.push_back(rand_mat(Shape::d2(D, S), seed + 3, -3.f, 0.f));
                if (mask == 3)
                    in.push_back(rand_mat(Shape::d3(D, S, H), seed + 3, -3.f, 0.f));
                ParamDict pd = mha(E, H, Q, kd, vd, mask ? 1 : 0);
                if (S == 5)
                    pd.set_float(6, 0.37f);
                compare("MultiHeadAttention", pd, in, 1e-4, seed);
                seed += 4;
            }
    // q and k = v (two inputs)
    compare("MultiHeadAttention", mha(8, 2, 8, 6, 6), {rand_mat(Shape::d2(8, 5), 500), rand_mat(Shape::d2(6, 7), 501)},
            1e-4, 502);
}

TEST(MultiHeadAttentionFast, BadShapesFailAsTheReference) {
    ParamDict pd = mha(8, 2, 8, 8, 8);
    auto w = weights_for("MultiHeadAttention", pd, 1);
    Built opt = build("MultiHeadAttention", pd, w, true);
    ASSERT_TRUE(opt.st.is_ok()) << opt.st.message();
    std::vector<Mat> out(1);
    Option o;
    Status st = opt.layer->forward({rand_mat(Shape::d2(7, 5), 1)}, out, o);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("qdim"), std::string::npos) << st.message();
}

TEST(MultiHeadAttentionFast, TransformerSized) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    // a scaled-down ViT block: 96-dim embedding, 6 heads of 16, 65 tokens
    compare("MultiHeadAttention", mha(96, 6, 96, 96, 96), {rand_mat(Shape::d2(96, 65), 900)}, 1e-4, 901);
}
