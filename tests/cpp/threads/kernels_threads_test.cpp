// The parallel kernel drivers on odd sizes: f32_gemm in 1..5 parts (every B kind, bias per row and
// per column, accumulate, activation, K above one K block) equals the one-part product bit for bit,
// and so do f32_gemv_packed_parallel and the block-aligned elementwise helpers at 1..4 threads.
// Depends on kernels and core only (also built alone under ThreadSanitizer, see the report).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "kernels/elementwise_parallel.h"
#include "kernels/gemm.h"

using namespace nnfold;
using namespace nnfold::kernels;

namespace {

struct Guard {
    Guard() { set_min_chunk_cost(1); }
    ~Guard() {
        set_min_chunk_cost(0);
        shutdown_threads();
    }
};

// Deterministic values in [-1, 1) (a small LCG: no dependency on the runtime's PRNG).
std::vector<float> values(size_t n, uint32_t seed) {
    std::vector<float> v(n);
    uint32_t s = seed * 2654435761u + 1;
    for (auto& x : v) {
        s = s * 1664525u + 1013904223u;
        x = (float)(s >> 8) / 8388608.f - 1.f;
    }
    return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

struct GemmCase {
    int M, N, K;
    GemmB::Kind kind;
    bool bias_per_column, accumulate;
    int act;
};

std::vector<float> run_gemm(const GemmCase& c, int parts) {
    const auto a = values((size_t)c.M * c.K, 1);
    std::vector<float> ap(packed_a_floats(c.M, c.K));
    f32_pack_a(c.M, c.K, a.data(), (size_t)c.K, 1, ap.data());
    const auto bias = values((size_t)std::max(c.M, c.N), 3);
    std::vector<float> c_out = values((size_t)c.M * c.N, 4);  // accumulate starts from these
    GemmB b;
    b.kind = c.kind;
    std::vector<float> src, packed;
    if (c.kind == GemmB::Strided) {
        src = values((size_t)c.K * c.N, 2);
        b.data = src.data();
        b.rs = (size_t)c.N;
        b.cs = 1;
    } else if (c.kind == GemmB::Packed) {
        src = values((size_t)c.K * c.N, 2);
        packed.resize(packed_b_floats(c.K, c.N));
        f32_pack_b(c.K, c.N, src.data(), (size_t)c.N, 1, packed.data());
        b.data = packed.data();
    } else {
        // 3x3 stride 1 im2col over K / 9 planes of (out_w + 2) x (rows + 2); N = out_w * rows
        const int out_w = 7, rows = c.N / out_w, planes = c.K / 9;
        src = values((size_t)planes * (out_w + 2) * (rows + 2), 2);
        b.im2col.src = src.data();
        b.im2col.in_w = out_w + 2;
        b.im2col.in_plane = (size_t)(out_w + 2) * (rows + 2);
        b.im2col.kernel_w = b.im2col.kernel_h = 3;
        b.im2col.out_w = out_w;
    }
    GemmEpilogue ep;
    ep.bias = bias.data();
    ep.bias_per_column = c.bias_per_column;
    ep.act = make_act(c.act, 0.1f, 0.f);
    std::vector<float> ws(std::max<size_t>(f32_gemm_workspace_floats(c.N, c.K, c.kind, parts), 1));
    f32_gemm(c.M, c.N, c.K, ap.data(), b, c_out.data(), (size_t)c.N, ep, c.accumulate, ws.data(), parts);
    return c_out;
}

}  // namespace

TEST(KernelsThreads, GemmPartsGiveTheSameBits) {
    Guard guard;
    if (build_has_threads()) {
        ASSERT_TRUE(set_num_threads(4).is_ok());
    }
    const GemmCase cases[] = {
        {5, 23, 7, GemmB::Strided, false, false, 1},    {13, 9, 600, GemmB::Strided, true, false, 2},
        {3, 41, 17, GemmB::Packed, false, true, 0},     {17, 3, 5, GemmB::Packed, true, false, 4},
        {9, 7 * 5, 9 * 3, GemmB::Im2colSource, false, false, 5},
        {21, 7 * 9, 9 * 70, GemmB::Im2colSource, false, true, 6},  // K = 630: two K blocks
        {1, 1, 1, GemmB::Strided, false, false, 0},     {4, 8, 3, GemmB::Strided, false, false, 0},
        // 7 column panels (a 7x7 map) under many rows: split by rows at 2 parts, a grid at 4
        {64, 49, 40, GemmB::Strided, false, false, 1},  {61, 49, 40, GemmB::Packed, false, true, 0},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + " kind " +
                     std::to_string((int)c.kind));
        const auto ref = run_gemm(c, 1);
        for (int parts = 2; parts <= 5; parts++)
            EXPECT_TRUE(same_bits(ref, run_gemm(c, parts))) << parts << " parts";
    }
}

TEST(KernelsThreads, GemmPartsFollowTheThreadCount) {
    Guard guard;
    EXPECT_EQ(f32_gemm_parts(64, 64, 64), 1);  // no pool: always one part
    if (!build_has_threads())
        return;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    EXPECT_EQ(f32_gemm_parts(64, 64, 64), 3);
    set_min_chunk_cost(0);
    EXPECT_EQ(f32_gemm_parts(4, 8, 3), 1);  // one tile of 96 multiply-adds: not worth a thread
}

TEST(KernelsThreads, GemvAndElementwiseSameBitsAtAnyCount) {
    Guard guard;
    const int M = 37, K = 53;
    const auto a = values((size_t)M * K, 5), x = values(K, 6), bias = values(M, 7);
    std::vector<float> ap(packed_a_floats(M, K));
    f32_pack_a(M, K, a.data(), (size_t)K, 1, ap.data());
    const size_t n = 64 * 5 + 37;  // blocks and a tail
    const auto u = values(n, 8), v = values(n, 9);
    struct Out {
        std::vector<float> gemv, act, swish, gelu, bin, bin_scalar, axpby;
    };
    auto run = [&]() {
        Out o;
        o.gemv.resize(M);
        f32_gemv_packed_parallel(M, K, ap.data(), x.data(), bias.data(), make_act(4, 0.f, 0.f), o.gemv.data());
        o.act = u;
        f32_act_inplace_parallel(o.act.data(), n, make_act(5, 0.f, 0.f));
        o.swish = u;
        f32_swish_inplace_parallel(o.swish.data(), n);
        o.gelu = u;
        f32_gelu_inplace_parallel(o.gelu.data(), n, false);
        o.bin.resize(n);
        f32_binary_parallel(BinaryKind::Div, u.data(), 1, v.data(), 1, o.bin.data(), n);
        o.bin_scalar.resize(n);
        const float s = 0.75f;
        f32_binary_parallel(BinaryKind::Sub, &s, 0, v.data(), 1, o.bin_scalar.data(), n);
        o.axpby.resize(n);
        f32_axpby_parallel(u.data(), 0.5f, v.data(), -2.f, o.axpby.data(), n);
        return o;
    };
    const Out ref = run();
    if (!build_has_threads())
        return;
    ASSERT_TRUE(set_num_threads(4).is_ok());
    const uint64_t jobs = parallel_jobs_run();
    for (int t : {2, 3, 4}) {
        ASSERT_TRUE(set_num_threads(t).is_ok());
        const Out o = run();
        EXPECT_TRUE(same_bits(ref.gemv, o.gemv)) << t;
        EXPECT_TRUE(same_bits(ref.act, o.act)) << t;
        EXPECT_TRUE(same_bits(ref.swish, o.swish)) << t;
        EXPECT_TRUE(same_bits(ref.gelu, o.gelu)) << t;
        EXPECT_TRUE(same_bits(ref.bin, o.bin)) << t;
        EXPECT_TRUE(same_bits(ref.bin_scalar, o.bin_scalar)) << t;
        EXPECT_TRUE(same_bits(ref.axpby, o.axpby)) << t;
    }
    EXPECT_GE(parallel_jobs_run() - jobs, 3u * 7u) << "every helper split its work";
}
