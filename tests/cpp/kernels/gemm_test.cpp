// GEMM kernels: the micro-kernel against its scalar twin (bit for bit, SIMD builds), and the
// blocked driver against a straightforward triple loop written here, on edge sizes: M, N, K of
// 1, 3, 4, 5, 8, 9, 17, 64 and sizes that cross the driver's K (512) and N blocks, every B source
// (strided, transposed, im2col, packed), bias per row / column, accumulate, alpha and the fused
// activations.
#include <algorithm>

#include "kernel_test_util.h"
#include "kernels/gemm.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

std::vector<ActParams> all_acts() {
    return {make_act(0, 0, 0), make_act(1, 0, 0), make_act(2, 0.1f, 0), make_act(3, -0.5f, 0.7f),
            make_act(4, 0, 0), make_act(5, 0, 0), make_act(6, 0.2f, 0.5f)};
}

// The triple loop: sum in increasing k from the bias (or C), then alpha, then the activation.
std::vector<float> naive(int M, int N, int K, const std::vector<float>& A, const std::vector<float>& B,
                         const float* bias, bool per_col, const std::vector<float>* c0, float alpha, bool scale,
                         const ActParams& act) {
    std::vector<float> C((size_t)M * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = c0 ? (*c0)[(size_t)i * N + j] : bias ? (per_col ? bias[j] : bias[i]) : 0.f;
            for (int k = 0; k < K; k++)
                s += A[(size_t)i * K + k] * B[(size_t)k * N + j];
            if (scale)
                s *= alpha;
            C[(size_t)i * N + j] = act_scalar(s, act);
        }
    return C;
}

struct GemmCase {
    int M, N, K;
};

void run_case(const GemmCase& g, GemmB::Kind kind, bool per_col, bool accumulate, const ActParams& act, uint32_t seed) {
    SCOPED_TRACE("M" + std::to_string(g.M) + " N" + std::to_string(g.N) + " K" + std::to_string(g.K) + " kind " +
                 std::to_string(kind) + " act " + std::to_string(act.type) + (accumulate ? " acc" : ""));
    auto A = rand_vec((size_t)g.M * g.K, seed);
    auto B = rand_vec((size_t)g.K * g.N, seed + 1);
    auto bias = rand_vec((size_t)std::max(g.M, g.N), seed + 2);
    auto C0 = rand_vec((size_t)g.M * g.N, seed + 3);
    std::vector<float> ap(packed_a_floats(g.M, g.K));
    f32_pack_a(g.M, g.K, A.data(), g.K, 1, ap.data());
    // B given transposed in memory exercises a strided (cs != 1) source
    std::vector<float> BT((size_t)g.K * g.N), bp;
    for (int k = 0; k < g.K; k++)
        for (int n = 0; n < g.N; n++)
            BT[(size_t)n * g.K + k] = B[(size_t)k * g.N + n];
    GemmB b;
    b.kind = kind;
    if (kind == GemmB::Strided) {
        b.data = (seed & 1) ? BT.data() : B.data();
        b.rs = (seed & 1) ? 1 : (size_t)g.N;
        b.cs = (seed & 1) ? (size_t)g.K : 1;
    } else if (kind == GemmB::Packed) {
        bp.resize(packed_b_floats(g.K, g.N));
        f32_pack_b(g.K, g.N, B.data(), g.N, 1, bp.data());
        b.data = bp.data();
    } else {
        // B as the im2col of a 1x1 convolution over K planes of 1 x N
        b.im2col.src = B.data();
        b.im2col.in_w = g.N;
        b.im2col.in_plane = (size_t)g.N;
        b.im2col.out_w = g.N;
    }
    GemmEpilogue ep;
    ep.bias = bias.data();
    ep.bias_per_column = per_col;
    ep.act = act;
    ep.scale = accumulate;
    ep.alpha = 0.75f;
    std::vector<float> ws(f32_gemm_workspace_floats(g.N, g.K, kind) + 1);
    // C with a row stride wider than N, guard values around
    const size_t ldc = (size_t)g.N + 3;
    std::vector<float> C(ldc * g.M + 8, 123.f);
    if (accumulate)
        for (int i = 0; i < g.M; i++)
            std::copy(C0.begin() + (size_t)i * g.N, C0.begin() + (size_t)(i + 1) * g.N, C.begin() + i * ldc);
    f32_gemm(g.M, g.N, g.K, ap.data(), b, C.data(), ldc, ep, accumulate, ws.data());
    auto want = naive(g.M, g.N, g.K, A, B, bias.data(), per_col, accumulate ? &C0 : nullptr, 0.75f, accumulate, act);
    std::vector<float> got((size_t)g.M * g.N);
    for (int i = 0; i < g.M; i++) {
        std::copy(C.begin() + i * ldc, C.begin() + i * ldc + g.N, got.begin() + (size_t)i * g.N);
        for (size_t j = g.N; j < ldc && i * ldc + j < C.size(); j++)
            ASSERT_EQ(C[i * ldc + j], 123.f) << "wrote outside the tile at row " << i;
    }
    // Same order of operations as the loop: exact, whatever the kernel flavour.
    expect_same_bits(want.data(), got.data(), got.size(), "gemm vs triple loop");
}

}  // namespace

TEST(Gemm, DriverMatchesTripleLoopOnEdgeSizes) {
    const int sizes[] = {1, 3, 4, 5, 8, 9, 17, 64};
    uint32_t seed = 1;
    for (int M : sizes)
        for (int N : sizes)
            for (int K : {1, 3, 17, 64})
                run_case({M, N, K}, GemmB::Strided, false, false, make_act(0, 0, 0), seed++);
}

TEST(Gemm, EveryBSourceBiasModeAndActivation) {
    uint32_t seed = 100;
    for (auto kind : {GemmB::Strided, GemmB::Im2colSource, GemmB::Packed})
        for (const auto& act : all_acts())
            for (bool per_col : {false, true})
                for (bool acc : {false, true})
                    run_case({7, 13, 9}, kind, per_col, acc, act, seed++);
}

TEST(Gemm, CrossesKAndNBlocks) {
    // K above the 512-row block (two K blocks: store and reload of partial sums), N above the
    // N block for that kc, M not a multiple of 4
    const bool small = test::sanitizer_build();
    std::vector<GemmCase> cases = {{5, 300, 600}, {9, 40, 1100}, {6, 1030, 70}};
    if (small)
        cases = {{5, 150, 600}, {6, 530, 130}};
    uint32_t seed = 500;
    for (auto& c : cases)
        for (auto kind : {GemmB::Strided, GemmB::Im2colSource, GemmB::Packed})
            run_case(c, kind, false, false, make_act(1, 0, 0), seed++);
    run_case({5, 300, 1100}, GemmB::Strided, true, true, make_act(4, 0, 0), seed++);
}

// The fused residual Add (GemmEpilogue::residual): every C element is post_act(act(sum) + r), r
// the residual row's value, or +0.f on rows from residual_rows on. Post ReLU and none go through
// the micro-kernel's registers (GemmTile::residual), other post activations through the store and
// f32_add_act_inplace; edge tiles through the local tile. All give the loop's bits.
TEST(Gemm, FusedResidualMatchesStoreThenAdd) {
    uint32_t seed = 700;
    for (auto g : {GemmCase{24, 200, 24}, GemmCase{9, 13, 5}, GemmCase{8, 64, 96}, GemmCase{7, 1030, 70}})
        for (int rows : {INT32_MAX, 0, 3, 4, 5})
            for (const auto& post : {make_act(0, 0, 0), make_act(1, 0, 0), make_act(4, 0, 0)}) {
                SCOPED_TRACE("M" + std::to_string(g.M) + " N" + std::to_string(g.N) + " K" + std::to_string(g.K) +
                             " rows " + std::to_string(rows) + " post " + std::to_string(post.type));
                auto A = rand_vec((size_t)g.M * g.K, seed++);
                auto B = rand_vec((size_t)g.K * g.N, seed++);
                auto bias = rand_vec((size_t)g.M, seed++);
                // residual rows ldr apart (wider than N), values around the products' range
                const size_t ldr = (size_t)g.N + 5;
                auto R = rand_vec(ldr * g.M, seed++, -2.f, 2.f);
                std::vector<float> ap(packed_a_floats(g.M, g.K));
                f32_pack_a(g.M, g.K, A.data(), g.K, 1, ap.data());
                GemmB b;
                b.data = B.data();
                b.rs = (size_t)g.N;
                GemmEpilogue ep;
                ep.bias = bias.data();
                ep.act = make_act(2, 0.1f, 0);
                ep.residual = R.data();
                ep.ldr = ldr;
                ep.residual_rows = rows;
                ep.post_act = post;
                std::vector<float> ws(f32_gemm_workspace_floats(g.N, g.K, b.kind));
                std::vector<float> C((size_t)g.M * g.N);
                f32_gemm(g.M, g.N, g.K, ap.data(), b, C.data(), (size_t)g.N, ep, false, ws.data());
                auto want = naive(g.M, g.N, g.K, A, B, bias.data(), false, nullptr, 1.f, false, ep.act);
                for (int i = 0; i < g.M; i++)
                    for (int j = 0; j < g.N; j++) {
                        float& w = want[(size_t)i * g.N + j];
                        w = act_scalar(w + (i < rows ? R[(size_t)i * ldr + j] : 0.f), post);
                    }
                expect_same_bits(want.data(), C.data(), C.size(), "fused residual vs store then add");
            }
}

// B rows a multiple of 4 KB apart are packed row by row (pack_b_strided): full panels, a last
// partial panel (N not a multiple of NR, rows wider than N) and two K blocks.
TEST(Gemm, StridedRowsFourKilobytesApart) {
    uint32_t seed = 900;
    for (auto g : {GemmCase{6, 1001, 20}, GemmCase{5, 1024, 600}, GemmCase{4, 3, 7}}) {
        SCOPED_TRACE("M" + std::to_string(g.M) + " N" + std::to_string(g.N) + " K" + std::to_string(g.K));
        const size_t rs = 1024 * (size_t)((g.N + 1023) / 1024);
        auto A = rand_vec((size_t)g.M * g.K, seed++);
        auto Bw = rand_vec(rs * g.K, seed++);  // K rows of rs floats, the first N used
        std::vector<float> B((size_t)g.K * g.N);
        for (int k = 0; k < g.K; k++)
            std::copy(Bw.begin() + k * rs, Bw.begin() + k * rs + g.N, B.begin() + (size_t)k * g.N);
        auto bias = rand_vec((size_t)g.M, seed++);
        std::vector<float> ap(packed_a_floats(g.M, g.K));
        f32_pack_a(g.M, g.K, A.data(), g.K, 1, ap.data());
        GemmB b;
        b.data = Bw.data();
        b.rs = rs;
        GemmEpilogue ep;
        ep.bias = bias.data();
        std::vector<float> ws(f32_gemm_workspace_floats(g.N, g.K, b.kind));
        std::vector<float> C((size_t)g.M * g.N);
        f32_gemm(g.M, g.N, g.K, ap.data(), b, C.data(), (size_t)g.N, ep, false, ws.data());
        auto want = naive(g.M, g.N, g.K, A, B, bias.data(), false, nullptr, 1.f, false, make_act(0, 0, 0));
        expect_same_bits(want.data(), C.data(), C.size(), "B rows 4 KB apart");
    }
}

TEST(Gemm, KZeroGivesBiasThroughTheEpilogue) {
    run_case({5, 9, 0}, GemmB::Strided, false, false, make_act(1, 0, 0), 7);
    run_case({5, 9, 0}, GemmB::Packed, true, true, make_act(0, 0, 0), 8);
}

namespace {
// The im2col-packed GEMM of a kw x kh window (stride s, dilation d) over C planes of W x H against
// the convolution sum written out.
void check_im2col(int C, int W, int H, int kw, int kh, int s, int d, int O) {
    SCOPED_TRACE(std::to_string(kw) + "x" + std::to_string(kh) + " s" + std::to_string(s) + " d" + std::to_string(d) +
                 " on " + std::to_string(W) + "x" + std::to_string(H));
    const int ow = (W - (d * (kw - 1) + 1)) / s + 1, oh = (H - (d * (kh - 1) + 1)) / s + 1;
    auto in = rand_vec((size_t)C * W * H, 3);
    auto wt = rand_vec((size_t)O * C * kw * kh, 4);
    const int K = C * kw * kh, N = ow * oh;
    std::vector<float> ap(packed_a_floats(O, K));
    f32_pack_a(O, K, wt.data(), K, 1, ap.data());
    GemmB b;
    b.kind = GemmB::Im2colSource;
    b.im2col = {in.data(), W, (size_t)W * H, kw, kh, d, d, s, s, ow};
    std::vector<float> ws(f32_gemm_workspace_floats(N, K, b.kind));
    std::vector<float> out((size_t)O * N);
    GemmEpilogue ep;
    f32_gemm(O, N, K, ap.data(), b, out.data(), N, ep, false, ws.data());
    std::vector<float> want((size_t)O * N);
    for (int o = 0; o < O; o++)
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                float sum = 0.f;
                for (int q = 0; q < C; q++)
                    for (int i = 0; i < kh; i++)
                        for (int j = 0; j < kw; j++)
                            sum += in[((size_t)q * H + y * s + i * d) * W + x * s + j * d] * wt[(((size_t)o * C + q) * kh + i) * kw + j];
                want[(size_t)o * N + y * ow + x] = sum;
            }
    expect_same_bits(want.data(), out.data(), out.size(), "im2col gemm");
}
}  // namespace

TEST(Gemm, Im2colMatchesDirectGather) {
    // 3x3 stride 2 dilation 2 over 11 x 9 (4 outputs a row: every panel spans rows)
    check_im2col(3, 11, 9, 3, 3, 2, 2, 5);
    // 5x5 stride 2 over 37 x 9 (17 outputs a row: panels inside one row, the stride-2 row copy,
    // and panels across rows), stride 1 (the contiguous copy) and stride 3
    check_im2col(3, 37, 9, 5, 5, 2, 1, 6);
    check_im2col(2, 20, 7, 3, 3, 1, 1, 5);
    check_im2col(2, 40, 7, 3, 3, 3, 1, 5);
}

TEST(Gemm, GemvMatchesLoop) {
    uint32_t seed = 900;
    for (int M : {1, 3, 4, 5, 17, 64})
        for (int K : {1, 3, 4, 7, 100})
            for (const auto& act : all_acts()) {
                auto A = rand_vec((size_t)M * K, seed++);
                auto x = rand_vec((size_t)K, seed++);
                auto bias = rand_vec((size_t)M, seed++);
                std::vector<float> ap(packed_a_floats(M, K));
                f32_pack_a(M, K, A.data(), K, 1, ap.data());
                std::vector<float> y((size_t)M + 1, 77.f), want((size_t)M);
                f32_gemv_packed(M, K, ap.data(), x.data(), (seed & 1) ? bias.data() : nullptr, act, y.data());
                for (int i = 0; i < M; i++) {
                    float s = (seed & 1) ? bias[i] : 0.f;
                    for (int k = 0; k < K; k++)
                        s += A[(size_t)i * K + k] * x[k];
                    want[i] = act_scalar(s, act);
                }
                expect_same_bits(want.data(), y.data(), (size_t)M, "gemv M" + std::to_string(M) + " K" + std::to_string(K));
                EXPECT_EQ(y[M], 77.f);
            }
}

#if NNFOLD_SIMD
TEST(Gemm, MicroKernelSimdMatchesScalarTwin) {
    uint32_t seed = 2000;
    for (size_t kc : {0, 1, 2, 7, 64})
        for (unsigned flags : {0u, 1u, 2u, 3u})
            for (int bias_mode = 0; bias_mode < 3; bias_mode++)
                for (const auto& act : all_acts()) {
                    auto a = rand_vec(kc * 4 + 1, seed++);
                    auto b = rand_vec(kc * 8 + 1, seed++);
                    auto bias = rand_vec(8, seed++);
                    auto c0 = rand_vec(4 * 10, seed++, -3.f, 3.f);
                    GemmEpilogue ep;
                    ep.act = act;
                    ep.scale = (seed & 2) != 0;
                    ep.alpha = 1.5f;
                    GemmTile t;
                    t.flags = flags;
                    t.ep = &ep;
                    if (bias_mode == 1)
                        t.row_bias = bias.data();
                    if (bias_mode == 2)
                        t.col_bias = bias.data();
                    std::vector<float> cs = c0, cv = c0;
                    f32_gemm_4x8__scalar(kc, a.data(), b.data(), cs.data(), 10, t);
                    f32_gemm_4x8__wasmsimd(kc, a.data(), b.data(), cv.data(), 10, t);
                    expect_same_bits(cs.data(), cv.data(), cs.size(), "4x8 kc " + std::to_string(kc));
                }
}

TEST(Gemm, MicroKernelResidualSimdMatchesScalarTwin) {
    uint32_t seed = 2500;
    for (size_t kc : {0, 1, 7, 24})
        for (int rows = 0; rows <= 4; rows++)
            for (bool relu : {false, true}) {
                auto a = rand_vec(kc * 4 + 1, seed++);
                auto b = rand_vec(kc * 8 + 1, seed++);
                auto bias = rand_vec(4, seed++);
                auto r = rand_vec(4 * 11, seed++, -3.f, 3.f);
                GemmEpilogue ep;
                ep.act = make_act(3, -0.5f, 0.7f);
                GemmTile t;
                t.flags = kGemmFinal;
                t.ep = &ep;
                t.row_bias = bias.data();
                t.residual = r.data();
                t.ldr = 11;
                t.residual_rows = rows;
                t.relu_after = relu;
                std::vector<float> cs(4 * 10), cv(4 * 10);
                f32_gemm_4x8__scalar(kc, a.data(), b.data(), cs.data(), 10, t);
                f32_gemm_4x8__wasmsimd(kc, a.data(), b.data(), cv.data(), 10, t);
                expect_same_bits(cs.data(), cv.data(), cs.size(), "4x8 residual kc " + std::to_string(kc));
            }
}

TEST(Gemm, GemvSimdMatchesScalarTwin) {
    uint32_t seed = 3000;
    for (int M : {1, 4, 6, 33})
        for (int K : {0, 1, 5, 64}) {
            auto A = rand_vec((size_t)M * K + 1, seed++);
            auto x = rand_vec((size_t)K + 1, seed++);
            auto bias = rand_vec((size_t)M, seed++);
            std::vector<float> ap(packed_a_floats(M, K) + 1);
            f32_pack_a(M, K, A.data(), K, 1, ap.data());
            std::vector<float> ys(M), yv(M);
            f32_gemv_packed__scalar(M, K, ap.data(), x.data(), bias.data(), make_act(5, 0, 0), ys.data());
            f32_gemv_packed__wasmsimd(M, K, ap.data(), x.data(), bias.data(), make_act(5, 0, 0), yv.data());
            expect_same_bits(ys.data(), yv.data(), (size_t)M, "gemv");
        }
}
#endif
