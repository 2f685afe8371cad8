// int8 kernels (kernels/int8.h) against loops written here (int32 sums of the unpacked operands,
// then the store's arithmetic with std::fma and std::round), bit for bit, and in SIMD builds the
// SIMD kernels against their scalar twins: sizes equal to the tile, multiples, smaller, larger,
// odd K; dequantize and requantize stores with and without the fused bias, activations 0..3.
#include <algorithm>
#include <cfloat>
#include <climits>

#include "kernel_test_util.h"
#include "kernels/int8.h"
#include "kernels/int8_dw.h"
#include "kernels/int8_quant.h"
#if NNFOLD_SIMD
#include "kernels/wasm/int8_simd.h"
#endif

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

std::vector<int8_t> rand_codes(size_t n, uint32_t seed, int lo = -127, int hi = 127) {
    Rng rng(seed);
    std::vector<int8_t> v(n);
    for (auto& x : v)
        x = (int8_t)std::lround(rng.uniform((float)lo - 0.49f, (float)hi + 0.49f));
    return v;
}

// The store's arithmetic as written in int8.h, for the expected values.
float ref_value(int32_t sum, float scale, float bias, bool fused, const ActParams& act) {
    const float v = fused ? std::fma((float)sum, scale, bias) : (float)sum * scale + bias;
    return act_scalar(v, act);
}

int8_t ref_code(float v) {
    const float r = std::round(v);
    if (std::isnan(r))
        return 0;
    return (int8_t)std::max(-127.f, std::min(127.f, r));
}

struct OutCase {
    bool requant, fused, has_bias;
    int act;
};
const OutCase kOutCases[] = {{false, false, true, 0}, {false, true, true, 1}, {true, true, true, 1},
                             {true, false, false, 2}, {true, true, true, 3}, {false, true, false, 2}};

ActParams act_of(int type) {
    return make_act(type, type == 2 ? 0.1f : type == 3 ? -0.5f : 0.f, type == 3 ? 0.75f : 0.f);
}

using GemmFn = void (*)(int, int, int, const int16_t*, const int8_t*, const Int8Out&);

void check_gemm(int M, int N, int K, const OutCase& oc, uint32_t seed, float top = 0.9f) {
    SCOPED_TRACE("gemm M" + std::to_string(M) + " N" + std::to_string(N) + " K" + std::to_string(K) +
                 (oc.requant ? " requant" : " dequant") + (oc.fused ? " fused" : "") + " act" + std::to_string(oc.act) +
                 " top " + std::to_string(top));
    auto a = rand_codes((size_t)M * K, seed);
    auto bm = rand_codes((size_t)K * N, seed + 1);  // B[k][n]
    if (!a.empty())
        a[0] = -127;
    std::vector<int16_t> pa(i8_packed_a_count(M, K));
    i8_pack_a(M, K, a.data(), pa.data());
    std::vector<size_t> kofs(K);
    for (int k = 0; k < K; k++)
        kofs[k] = (size_t)k * N;
    Int8BSource src;
    src.src = bm.data();
    src.kofs = kofs.data();
    src.out_w = N;
    src.row_step = 0;
    src.col_step = 1;
    std::vector<int8_t> pb(i8_packed_b_bytes(K, N));
    i8_pack_b(K, N, src, pb.data());
    auto scale = rand_vec(M, seed + 2, 1e-4f, 0.05f);
    auto bias = rand_vec(M, seed + 3, -2.f, 2.f);
    Int8Out o;
    o.scale_in = scale.data();
    o.bias = oc.has_bias ? bias.data() : nullptr;
    o.fused_bias = oc.fused;
    o.act = act_of(oc.act);
    o.top_scale = top;
    o.ld = (size_t)N;
    std::vector<float> wantf((size_t)M * N);
    std::vector<int8_t> wantq((size_t)M * N);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int32_t s = 0;
            for (int k = 0; k < K; k++)
                s += (int32_t)a[(size_t)m * K + k] * bm[(size_t)k * N + n];
            const float v = ref_value(s, scale[m], oc.has_bias ? bias[m] : 0.f, oc.fused, o.act);
            wantf[(size_t)m * N + n] = v;
            wantq[(size_t)m * N + n] = ref_code(v * top);
        }
    GemmFn fns[] = {i8_gemm__scalar, i8_gemm, NF_KERNEL_SIMD_OR_NULL(i8_gemm)};
    for (GemmFn fn : fns) {
        if (!fn)
            continue;
        std::vector<float> gotf((size_t)M * N, -1234.f);
        std::vector<int8_t> gotq((size_t)M * N, 99);
        Int8Out oo = o;
        if (oc.requant)
            oo.q = gotq.data();
        else
            oo.f = gotf.data();
        fn(M, N, K, pa.data(), pb.data(), oo);
        if (oc.requant)
            EXPECT_EQ(std::vector<int>(wantq.begin(), wantq.end()), std::vector<int>(gotq.begin(), gotq.end()));
        else
            expect_same_bits(wantf.data(), gotf.data(), wantf.size(), "gemm");
    }
}

TEST(Int8Kernels, GemmSizes) {
    uint32_t seed = 1;
    // N % 8 in 1..4 takes the SIMD tile's low-half path (a last block of at most 4 columns)
    for (int M : {1, 3, 4, 5, 8, 17})
        for (int N : {1, 4, 7, 8, 9, 12, 13, 16, 33})
            for (int K : {1, 2, 3, 17, 64})
                check_gemm(M, N, K, kOutCases[seed % 6], seed++);
}

// Codes far beyond [-127, 127] before the clamp (top 1e4, no bias: |sum * scale * top| up to
// about 5e8): the direct store's rounding by the magic constant holds only below 2^22, so such
// rows must take the other forms (direct_for's bound on |S| max_abs + |B|); without that bound the
// codes of large negative values come out wrong.
TEST(Int8Kernels, GemmCodesFarBeyondTheRange) {
    for (int act : {0, 1, 3})
        check_gemm(8, 21, 64, {true, true, false, act}, 90 + act, 1e4f);
}

TEST(Int8Kernels, GemmLargeSumsEveryStore) {
    // K large enough that sums exceed 2^24 (the float conversion rounds): 1100 * 127 * 127
    for (const OutCase& oc : kOutCases)
        check_gemm(5, 11, 1100, oc, 77);
}

// A B built by im2col from a padded plane set (stride 2, dilation): the packing reads the right taps.
TEST(Int8Kernels, PackBIm2col) {
    const int C = 3, pw = 9, ph = 8, k = 3, s = 2, dil = 1;
    const int out_w = (pw - k) / s + 1, out_h = (ph - k) / s + 1, N = out_w * out_h, K = C * k * k;
    auto src = rand_codes((size_t)C * pw * ph, 5);
    std::vector<size_t> kofs(K);
    for (int c = 0; c < C; c++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++)
                kofs[(size_t)(c * k + i) * k + j] = (size_t)c * pw * ph + (size_t)i * dil * pw + j * dil;
    Int8BSource b;
    b.src = src.data();
    b.kofs = kofs.data();
    b.out_w = out_w;
    b.row_step = (size_t)s * pw;
    b.col_step = s;
    std::vector<int8_t> pb(i8_packed_b_bytes(K, N));
    i8_pack_b(K, N, b, pb.data());
    const int Kp2 = (K + 1) / 2;
    for (int n = 0; n < (N + 7) / 8 * 8; n++)
        for (int kk = 0; kk < Kp2 * 2; kk++) {
            const int8_t got = pb[((size_t)(n / 8) * Kp2 + kk / 2) * 16 + (n % 8) * 2 + (kk & 1)];
            int8_t want = 0;
            if (n < N && kk < K) {
                const int c = kk / 9, i = kk % 9 / 3, j = kk % 3, y = n / out_w, x = n % out_w;
                want = src[(size_t)c * pw * ph + (size_t)(y * s + i) * pw + x * s + j];
            }
            ASSERT_EQ(want, got) << "n " << n << " k " << kk;
        }
}

// Both twins of i8_pack_b against the definition, on tiles of columns (col0) of an im2col source
// at strides 1 and 2 with odd sizes and odd K, 3x3 and 1x1 windows: runs of 8 pixels inside one
// output row (the SIMD twin's 64-bit loads at stride 1; at stride 2 its 16-byte loads from the
// byte before each tap, except the planes' first block, which it gathers), blocks that cross rows
// or run past N (gathered). The planes are allocated exactly, so the ASan build sees a read
// before or past them (out_w 8: the last block ends on the planes' last byte).
TEST(Int8Kernels, PackBTilesBothTwins) {
    using Fn = void (*)(int, int, const Int8BSource&, int8_t*);
    for (int k : {3, 1})
        for (int s : {1, 2})
            for (int C : {1, 2, 3})
                for (int out_w : {5, 8, 13, 19}) {
                    const int out_h = 4, pw = (out_w - 1) * s + k, ph = (out_h - 1) * s + k;
                    const int N = out_w * out_h, K = C * k * k;
                    // exactly the planes: ASan sees any read past them
                    auto src = rand_codes((size_t)C * pw * ph, 31 + s * 100 + C * 10 + out_w);
                    std::vector<size_t> kofs(K);
                    for (int c = 0; c < C; c++)
                        for (int t = 0; t < k * k; t++)
                            kofs[(size_t)c * k * k + t] = (size_t)c * pw * ph + (size_t)(t / k) * pw + t % k;
                    Int8BSource b;
                    b.src = src.data();
                    b.kofs = kofs.data();
                    b.out_w = out_w;
                    b.row_step = (size_t)s * pw;
                    b.col_step = (size_t)s;
                    const int Kp2 = (K + 1) / 2;
                    for (int col0 : {0, 3, 8, N - 9}) {
                        if (col0 < 0)
                            continue;
                        for (int nt : {1, 8, 9, N - col0}) {
                            if (nt < 1 || col0 + nt > N)
                                continue;
                            SCOPED_TRACE("k" + std::to_string(k) + " s" + std::to_string(s) + " C" + std::to_string(C) +
                                         " out_w " + std::to_string(out_w) + " col0 " + std::to_string(col0) + " n " +
                                         std::to_string(nt));
                            b.col0 = col0;
                            Fn fns[] = {i8_pack_b__scalar, i8_pack_b, NF_KERNEL_SIMD_OR_NULL(i8_pack_b)};
                            for (Fn fn : fns) {
                                if (!fn)
                                    continue;
                                std::vector<int8_t> pb(i8_packed_b_bytes(K, nt), 99);
                                fn(K, nt, b, pb.data());
                                for (int n = 0; n < (nt + 7) / 8 * 8; n++)
                                    for (int kk = 0; kk < Kp2 * 2; kk++) {
                                        int8_t want = 0;
                                        if (n < nt && kk < K) {
                                            const int c = col0 + n, y = c / out_w, x = c % out_w;
                                            want = src[kofs[kk] + (size_t)y * s * pw + (size_t)x * s];
                                        }
                                        const size_t at =
                                            ((size_t)(n / 8) * Kp2 + kk / 2) * 16 + (n % 8) * 2 + (kk & 1);
                                        ASSERT_EQ(want, pb[at]) << "n " << n << " k " << kk;
                                    }
                            }
                        }
                    }
                }
}

// A layer runs the GEMM on tiles: rows [m0, m0 + mt) (a multiple of 4 in) and columns [n0, n0 +
// nt) of the whole product, through offset A blocks, B packed from col0 and shifted outputs.
// Every tile split gives the same bytes as one call.
TEST(Int8Kernels, GemmTilesGiveTheWholeProduct) {
    const int M = 13, N = 37, K = 19;
    auto a = rand_codes((size_t)M * K, 41), bm = rand_codes((size_t)K * N, 42);
    std::vector<int16_t> pa(i8_packed_a_count(M, K));
    i8_pack_a(M, K, a.data(), pa.data());
    std::vector<size_t> kofs(K);
    for (int k = 0; k < K; k++)
        kofs[k] = (size_t)k * N;
    Int8BSource src;
    src.src = bm.data();
    src.kofs = kofs.data();
    src.out_w = N;
    auto scale = rand_vec(M, 43, 1e-4f, 0.05f);
    auto bias = rand_vec(M, 44, -2.f, 2.f);
    auto run = [&](int mstep, int nstep) {
        std::vector<int8_t> out((size_t)M * N, 99);
        for (int m0 = 0; m0 < M; m0 += mstep)
            for (int n0 = 0; n0 < N; n0 += nstep) {
                const int mt = std::min(mstep, M - m0), nt = std::min(nstep, N - n0);
                Int8BSource b = src;
                b.col0 = n0;
                std::vector<int8_t> pb(i8_packed_b_bytes(K, nt));
                i8_pack_b(K, nt, b, pb.data());
                Int8Out o;
                o.scale_in = scale.data() + m0;
                o.bias = bias.data() + m0;
                o.fused_bias = true;
                o.act = act_of(1);
                o.top_scale = 0.9f;
                o.ld = (size_t)N;
                o.q = out.data() + (size_t)m0 * N + n0;
                i8_gemm(mt, nt, K, pa.data() + (size_t)(m0 / 4) * ((K + 1) / 2) * 8, pb.data(), o);
            }
        return out;
    };
    const auto whole = run(M, N);
    for (auto [ms, ns] : {std::pair{4, 8}, {8, 16}, {12, 24}, {4, 40}, {16, 8}})
        EXPECT_EQ(whole, run(ms, ns)) << "tiles of " << ms << " rows x " << ns << " columns";
}

using DwFn = void (*)(const Int8DwPlane&, const Int8Out&);

// act: the activation (default act_of(oc.act)); top: the requantize scale.
void check_dw(int k, int stride, int dil, int out_w, int out_h, const OutCase& oc, uint32_t seed,
              const ActParams* act = nullptr, float top = 1.7f) {
    SCOPED_TRACE("dw k" + std::to_string(k) + " s" + std::to_string(stride) + " d" + std::to_string(dil) + " out " +
                 std::to_string(out_h) + "x" + std::to_string(out_w) + (oc.requant ? " requant" : "") +
                 (oc.fused ? " fused" : "") + " act" + std::to_string(act ? act->type : oc.act));
    const int pw = (out_w - 1) * stride + (k - 1) * dil + 1, ph = (out_h - 1) * stride + (k - 1) * dil + 1;
    const int C = 2;
    // exactly the planes plus the documented slack: ASan sees any read past it
    auto src = rand_codes((size_t)C * pw * ph + i8_dwconv_slack(stride), seed);
    auto kern = rand_codes((size_t)C * k * k, seed + 1);
    std::vector<int> ofs;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            ofs.push_back(i * dil * pw + j * dil);
    auto scale = rand_vec(C, seed + 2, 1e-3f, 0.02f);
    auto bias = rand_vec(C, seed + 3, -1.f, 1.f);
    Int8Out o;
    o.scale_in = scale.data();
    o.bias = oc.has_bias ? bias.data() : nullptr;
    o.fused_bias = oc.fused;
    o.act = act ? *act : act_of(oc.act);
    o.top_scale = top;
    o.ld = (size_t)out_w * out_h;
    const size_t total = (size_t)C * out_w * out_h;
    std::vector<float> wantf(total);
    std::vector<int8_t> wantq(total);
    for (int c = 0; c < C; c++)
        for (int y = 0; y < out_h; y++)
            for (int x = 0; x < out_w; x++) {
                int32_t s = 0;
                for (int t = 0; t < k * k; t++)
                    s += (int32_t)kern[(size_t)c * k * k + t] *
                         src[(size_t)c * pw * ph + (size_t)y * stride * pw + x * stride + ofs[t]];
                const float v = ref_value(s, scale[c], oc.has_bias ? bias[c] : 0.f, oc.fused, o.act);
                wantf[(size_t)c * o.ld + y * out_w + x] = v;
                wantq[(size_t)c * o.ld + y * out_w + x] = ref_code(v * o.top_scale);
            }
    DwFn fns[] = {i8_dwconv__scalar, i8_dwconv, NF_KERNEL_SIMD_OR_NULL(i8_dwconv)};
    for (DwFn fn : fns) {
        if (!fn)
            continue;
        std::vector<float> gotf(total, -1234.f);
        std::vector<int8_t> gotq(total, 99);
        std::vector<int32_t> rows(i8_dwconv_sum_ints(out_w, out_h));  // exactly: ASan sees any access past it
        Int8Out oo = o;
        if (oc.requant)
            oo.q = gotq.data();
        else
            oo.f = gotf.data();
        for (int c = 0; c < C; c++) {
            Int8DwPlane p;
            p.src = src.data() + (size_t)c * pw * ph;
            p.kernel = kern.data() + (size_t)c * k * k;
            p.ofs = ofs.data();
            p.maxk = k * k;
            p.padded_w = pw;
            p.out_w = out_w;
            p.out_h = out_h;
            p.stride_w = p.stride_h = stride;
            p.channel = c;
            p.rowsums = rows.data();
            fn(p, oo);
        }
        if (oc.requant)
            EXPECT_EQ(std::vector<int>(wantq.begin(), wantq.end()), std::vector<int>(gotq.begin(), gotq.end()));
        else
            expect_same_bits(wantf.data(), gotf.data(), total, "dwconv");
    }
}

TEST(Int8Kernels, DepthwiseShapes) {
    uint32_t seed = 3;
    for (int k : {1, 3, 5})
        for (int stride : {1, 2, 3})
            for (int out_w : {1, 7, 8, 9, 13}) {
                const uint32_t s = seed++;
                check_dw(k, stride, stride == 1 && k == 3 ? 2 : 1, out_w, 3, kOutCases[s % 6], s);
            }
    // 3x3 dilation 1 at strides 1 and 2 (the SIMD kernel's two-rows-per-step path): odd and even
    // row counts (a last single row), widths around the 8-pixel block
    for (int stride : {1, 2})
        for (int out_w : {1, 5, 8, 9, 16, 17, 30})
            for (int out_h : {1, 2, 5}) {
                const uint32_t s = seed++;
                check_dw(3, stride, 1, out_w, out_h, kOutCases[s % 6], s);
            }
}

// The 3x3 kernels' store (o.fused_bias false, as every depthwise layer asks, with a clip
// activation: one pass of 16 sums per step over chunks of rows): small maps stored in one pass,
// wide rows in chunks of two and six rows with an odd last one, activations none, relu, a clip
// below and above 0, relu6 (the codes' non-negative path), codes and floats out, and a top scale
// that leaves most codes unclamped.
TEST(Int8Kernels, DepthwiseStoreChunks) {
    uint32_t seed = 500;
    const ActParams acts[] = {make_act(0, 0.f, 0.f), make_act(1, 0.f, 0.f), make_act(3, -0.5f, 0.75f),
                              make_act(3, 0.f, 6.f)};
    for (int stride : {1, 2})
        for (auto [out_w, out_h] : {std::pair{7, 7}, {14, 14}, {17, 5}, {300, 13}, {1000, 5}})
            for (const ActParams& a : acts)
                for (bool requant : {true, false}) {
                    const uint32_t s = seed++;
                    check_dw(3, stride, 1, out_w, out_h, OutCase{requant, false, s % 2 == 0, a.type}, s, &a, 0.05f);
                }
    // the codes' non-negative path with its clip moved past the top scale: clip [2, 3] times 60
    // (lower bound 120, upper bound 180 clamped to 127: codes 120..127), and clip [2.5, 3]
    // (lower bound 150, above 127: every code 127); relu with a top scale that clamps many codes
    const ActParams clips[] = {make_act(3, 2.f, 3.f), make_act(3, 2.5f, 3.f), make_act(1, 0.f, 0.f)};
    for (int stride : {1, 2})
        for (const ActParams& a : clips) {
            const uint32_t s = seed++;
            check_dw(3, stride, 1, 19, 6, OutCase{true, false, true, a.type}, s, &a, 60.f);
        }
}

// i8_pad_plane: rows of every width around the 8- and 16-byte steps, borders of 0 to 3 on each
// side (pads 1: one column each side and two rows below, the SIMD kernel's 3x3 pad-1 path; pads
// 4: one border all round, the same path with a row above; pads 5: one column each side and no row
// below, which that path must not take), into a buffer of exactly the padded plane (ASan sees any
// write past it), against the plane built byte by byte here.
TEST(Int8Kernels, PadPlane) {
    using Fn = void (*)(const int8_t*, const Int8PadPlane&, int8_t*);
    Fn fns[] = {i8_pad_plane__scalar, i8_pad_plane, NF_KERNEL_SIMD_OR_NULL(i8_pad_plane)};
    uint32_t seed = 50;
    for (int w : {1, 5, 7, 8, 9, 15, 16, 17, 31, 33, 56})
        for (int pads : {0, 1, 2, 3, 4, 5})
            for (int h : {1, 3}) {
                Int8PadPlane g;
                g.w = w;
                g.h = h;
                g.left = pads < 4 ? pads % 2 : 1;
                g.top = pads < 4 ? pads / 2 : pads == 4 ? 1 : 0;
                g.padded_w = w + g.left + (pads < 4 ? pads : 1);  // right border: pads, or 1
                g.padded_h = h + g.top + (pads < 4 ? (pads + 1) % 3 : pads == 4 ? 1 : 0);
                g.pad = (int8_t)(pads == 2 ? -5 : 0);
                const auto src = rand_codes((size_t)w * h, seed++);
                std::vector<int8_t> want((size_t)g.padded_w * g.padded_h, g.pad);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        want[(size_t)(y + g.top) * g.padded_w + g.left + x] = src[(size_t)y * w + x];
                for (Fn fn : fns) {
                    if (!fn)
                        continue;
                    std::vector<int8_t> got(want.size(), 99);
                    fn(src.data(), g, got.data());
                    EXPECT_EQ(want, got) << "w " << w << " h " << h << " pads " << pads;
                }
            }
}

// Row-major and interleaved weights (i8_interleave_rows): the same sums, every twin; whole and
// partial chunks of 16 columns, and row counts with and without a last partial block of 4. The
// interleaved bytes are a permutation of the rows' (every code moved, none lost), and a layer's
// parts start at multiples of 4 rows, so a part's kernel call sees whole blocks.
TEST(Int8Kernels, DotRows) {
    using Fn = void (*)(const int8_t*, int, const int8_t*, int, bool, int32_t*);
    for (int n : {1, 15, 16, 17, 100, 1100})
        for (int outch : {1, 3, 4, 6, 8, 13}) {
            auto x = rand_codes((size_t)n, n + outch);
            auto w = rand_codes((size_t)n * outch, n * 7 + outch);
            std::vector<int32_t> want(outch);
            for (int p = 0; p < outch; p++)
                for (int i = 0; i < n; i++)
                    want[p] += (int32_t)x[i] * w[(size_t)p * n + i];
            auto wi = w;
            i8_interleave_rows(wi.data(), n, outch);
            auto sorted = [](std::vector<int8_t> v) {
                std::sort(v.begin(), v.end());
                return v;
            };
            EXPECT_EQ(sorted(w), sorted(wi)) << "n " << n << " outch " << outch;
            if (outch >= 4 && n > 16)  // (up to 16 columns the two layouts coincide)
                EXPECT_NE(w, wi) << "n " << n << " outch " << outch;
            Fn fns[] = {i8_dot_rows__scalar, i8_dot_rows, NF_KERNEL_SIMD_OR_NULL(i8_dot_rows)};
            for (Fn fn : fns) {
                if (!fn)
                    continue;
                for (bool il : {false, true}) {
                    std::vector<int32_t> got(outch, -1);
                    fn(x.data(), n, (il ? wi : w).data(), outch, il, got.data());
                    EXPECT_EQ(want, got) << "n " << n << " outch " << outch << " interleaved " << il;
                }
                if (outch >= 8) {  // from the second block on, as a layer's part calls it
                    std::vector<int32_t> got(outch - 4, -1);
                    fn(x.data(), n, wi.data() + (size_t)4 * n, outch - 4, true, got.data());
                    EXPECT_EQ(std::vector<int32_t>(want.begin() + 4, want.end()), got) << "n " << n << " outch " << outch;
                }
            }
        }
}

// One sum per output, each with its own scale and bias (InnerProduct's store): every twin gives the
// reference's bits, for both bias forms, a missing bias, activations 0..3 (the SIMD lanes) and 4
// (the twin), odd lengths, and sums past 2^24 (where (float)sum rounds).
TEST(Int8Kernels, DequantEach) {
    using Fn = void (*)(const int32_t*, int, const float*, const float*, bool, const ActParams&, float*);
    uint32_t seed = 7;
    auto next = [&]() { return seed = seed * 1664525u + 1013904223u; };
    for (int n : {1, 3, 4, 5, 8, 13, 1000}) {
        std::vector<int32_t> sums(n);
        std::vector<float> scale(n), bias(n);
        for (int i = 0; i < n; i++) {
            const uint32_t r = next();
            sums[i] = i % 7 == 3 ? (int32_t)r : (int32_t)(r >> 12) - (1 << 19);  // some beyond 2^24
            scale[i] = std::ldexp((float)(next() >> 8) / 16777216.f + 0.5f, (int)(next() % 40) - 30);
            bias[i] = i % 5 == 0 ? 0.f : ((float)(next() >> 8) / 8388608.f - 1.f) * 8.f;
        }
        for (int type : {0, 1, 2, 3, 4})
            for (int form = 0; form < 3; form++) {  // bias unfused, bias fused, no bias
                const ActParams act = make_act(type, type == 3 ? -0.5f : 0.1f, 6.f);
                const bool fused = form == 1;
                const float* b = form == 2 ? nullptr : bias.data();
                std::vector<float> want(n);
                for (int i = 0; i < n; i++) {
                    const float bi = b ? b[i] : 0.f;
                    want[i] = act_scalar(fused ? std::fma((float)sums[i], scale[i], bi) : (float)sums[i] * scale[i] + bi, act);
                }
                Fn fns[] = {i8_dequant_each__scalar, i8_dequant_each, NF_KERNEL_SIMD_OR_NULL(i8_dequant_each)};
                for (Fn fn : fns) {
                    if (!fn)
                        continue;
                    std::vector<float> got(n, -1.f);
                    fn(sums.data(), n, scale.data(), b, fused, act, got.data());
                    EXPECT_EQ(0, std::memcmp(want.data(), got.data(), sizeof(float) * n))
                        << "n " << n << " act " << type << " form " << form;
                }
            }
    }
}

// float2int8: half away from zero (not wasm's ties-to-even f32x4.nearest), clamp, NaN -> 0.
TEST(Int8Kernels, QuantizeRounding) {
    std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, -0.49999997f, 126.5f, 127.49f, 127.5f,
                            -127.5f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 0.f, -0.f, 3.25f, -3.75f, 8388609.f,
                            // around the int32 range (the SIMD twin rounds in the integer domain)
                            2147483648.f, -2147483648.f, 3e9f, -3e9f, -128.f, -128.5f, 128.f, -126.5f};
    const std::vector<int> want = {1,   2,    3,   -1,   -2,  -3,   0,   0,    127, 127, 127, -127, 127, -127, 127,
                                   -127, 0,   0,   0,    3,   -4,   127, 127,  -127, 127, -127, -127, -127, 127, -127};
    for (size_t i = 0; i < x.size(); i++)
        EXPECT_EQ(want[i], (int)float2int8(x[i])) << x[i];
    // lengths around the 16-lane body
    for (size_t n : {x.size(), (size_t)16, (size_t)33}) {
        std::vector<float> src(n);
        for (size_t i = 0; i < n; i++)
            src[i] = x[i % x.size()];
        using Fn = void (*)(const float*, size_t, float, int8_t*);
        Fn fns[] = {i8_quantize__scalar, i8_quantize, NF_KERNEL_SIMD_OR_NULL(i8_quantize)};
        for (Fn fn : fns) {
            if (!fn)
                continue;
            std::vector<int8_t> got(n, 99);
            fn(src.data(), n, 1.f, got.data());
            for (size_t i = 0; i < n; i++)
                EXPECT_EQ(want[i % x.size()], (int)got[i]) << "n " << n << " i " << i;
        }
    }
}

// float2int8 by the SIMD twin's trunc(v + copysign(0.49999997, v)): every float within 3 ulps of
// each integer and each half-integer from -130 to 130, through i8_quantize (scale 1) in lengths
// that end in the 16-, 4- and 1-value steps.
TEST(Int8Kernels, QuantizeNearHalves) {
    std::vector<float> x;
    for (int n = -260; n <= 260; n++) {
        float c = (float)n * 0.5f;
        for (int k = 0; k < 3; k++)
            c = std::nextafter(c, -INFINITY);
        for (int k = 0; k < 7; k++, c = std::nextafter(c, INFINITY))
            x.push_back(c);
    }
    for (float v : {1e-45f, -1e-45f, 1.17549435e-38f, 0.25f, 0.2500001f, 0.7499999f, 0.75f})
        x.push_back(v);
    using Fn = void (*)(const float*, size_t, float, int8_t*);
    Fn fns[] = {i8_quantize__scalar, i8_quantize, NF_KERNEL_SIMD_OR_NULL(i8_quantize)};
    for (size_t n : {x.size(), x.size() - 1, x.size() - 2, x.size() - 5})
        for (Fn fn : fns) {
            if (!fn)
                continue;
            std::vector<int8_t> got(n, 99);
            fn(x.data(), n, 1.f, got.data());
            for (size_t i = 0; i < n; i++)
                ASSERT_EQ((int)float2int8(x[i]), (int)got[i]) << x[i] << " n " << n;
        }
}

// i8_dequantize and i8_requantize against the formulas (fma with a bias, a product without;
// activations 0..3, clip with crossed bounds too; float2int8), lengths around the 16- and 4-value steps, plus the fma halfway
// case (see FusedStoreHalfway) in every lane position.
TEST(Int8Kernels, DequantizeRequantize) {
    for (size_t n : {(size_t)0, (size_t)1, (size_t)3, (size_t)4, (size_t)7, (size_t)16, (size_t)19, (size_t)37}) {
        std::vector<float> src(n);
        for (size_t i = 0; i < n; i++)
            src[i] = (float)(((int)(i * 7919) % 20001) - 10000);
        if (n > 5)
            src[5] = 24929.f;  // * 673 + 2^-30: the halfway case
        for (int variant = 0; variant < 10; variant++) {
            SCOPED_TRACE("n " + std::to_string(n) + " variant " + std::to_string(variant));
            const bool has_bias = variant & 1;
            const float scale = variant == 1 ? 673.f : 3.7e-3f, bias = variant == 1 ? 0x1p-30f : -0.3f;
            // variants 8, 9: a clip whose bounds are crossed (min 0.5 > max -0.5): act_scalar's order
            const ActParams act = variant < 8 ? act_of(variant / 2) : make_act(3, 0.5f, -0.5f);
            const float so = 17.f;
            using DFn = void (*)(const float*, size_t, float, const float*, float*);
            using RFn = void (*)(const float*, size_t, float, const float*, const ActParams&, float, int8_t*);
            DFn dfns[] = {i8_dequantize__scalar, i8_dequantize, NF_KERNEL_SIMD_OR_NULL(i8_dequantize)};
            RFn rfns[] = {i8_requantize__scalar, i8_requantize, NF_KERNEL_SIMD_OR_NULL(i8_requantize)};
            std::vector<float> wantd(n);
            std::vector<int> wantr(n);
            for (size_t i = 0; i < n; i++) {
                wantd[i] = has_bias ? std::fma(src[i], scale, bias) : src[i] * scale;
                wantr[i] = ref_code(act_scalar(wantd[i], act) * so);
            }
            for (int f = 0; f < 3; f++) {
                if (dfns[f]) {
                    std::vector<float> got(n, -1234.f);
                    dfns[f](src.data(), n, scale, has_bias ? &bias : nullptr, got.data());
                    expect_same_bits(wantd.data(), got.data(), n, "dequantize");
                }
                if (rfns[f]) {
                    std::vector<int8_t> got(n, 99);
                    rfns[f](src.data(), n, scale, has_bias ? &bias : nullptr, act, so, got.data());
                    EXPECT_EQ(wantr, std::vector<int>(got.begin(), got.end()));
                }
            }
        }
    }
}

// The fused store on a value whose f64 sum lands exactly halfway between two floats, where a
// double rounding differs from fma's single rounding: 24929 * 673 = 2^24 + 1 (exact in f64, and
// halfway between the floats 2^24 and 2^24 + 2); plus a bias of 2^-30 the exact value lies just
// above the midpoint (fma: 2^24 + 2), but f64 rounds it onto the midpoint, and then float rounds
// the tie to even (2^24). The SIMD store must detect that lane and take std::fma.
TEST(Int8Kernels, FusedStoreHalfway) {
    const int32_t sums[8] = {24929, -24929, 3, -5, 1 << 22, 7, 1000001, 24929};
    const float scale[1] = {673.f};
    const float bias[1] = {0x1p-30f};
    ASSERT_EQ(16777218.f, std::fma(24929.f, 673.f, 0x1p-30f));
    using Fn = void (*)(const Int8Out&, int, size_t, const int32_t*, size_t);
    Fn fns[] = {i8_store__scalar, i8_store, NF_KERNEL_SIMD_OR_NULL(i8_store)};
    for (Fn fn : fns) {
        if (!fn)
            continue;
        float got[8];
        Int8Out o;
        o.scale_in = scale;
        o.bias = bias;
        o.fused_bias = true;
        o.f = got;
        o.ld = 8;
        fn(o, 0, 0, sums, 8);
        for (int i = 0; i < 8; i++)
            EXPECT_EQ(std::fma((float)sums[i], scale[0], bias[0]), got[i]) << i;
    }
}

// i8_store given a bound on its sums (Int8Out::sum_bound, as the Winograd layer sets it) takes the
// exact f64 form where fma_exact_f64 admits the row: every twin gives std::fma's bits (and float2int8
// of them for codes out) on sums up to +-the bound, for bounds below 2^24, at 2^24, and above it (where
// the store must keep the checked emulation: (float)sum rounds there), and for the halfway row of
// FusedStoreHalfway with its sum inside the bound.
TEST(Int8Kernels, StoreWithSumBound) {
    using Fn = void (*)(const Int8Out&, int, size_t, const int32_t*, size_t);
    Fn fns[] = {i8_store__scalar, i8_store, NF_KERNEL_SIMD_OR_NULL(i8_store)};
    Rng rng(515);
    const double bounds[] = {1000.0, 147456.0, 5.9e6, 16777216.0, 3.3e7};
    size_t checked = 0;
    for (double bound : bounds)
        for (int row = 0; row < 200; row++) {
            float scale[1] = {std::ldexp(rng.uniform(0.5f, 1.f), (int)rng.uniform(-20.f, -4.f))};
            float bias[1] = {std::ldexp(rng.uniform(-1.f, 1.f), (int)rng.uniform(-8.f, 4.f))};
            std::vector<int32_t> sums(37);
            const int32_t mx = (int32_t)bound;
            const int32_t edge[] = {0, 1, -1, mx, -mx, mx - 1, -mx + 1, 16777217, -16777217};
            for (size_t i = 0; i < sums.size(); i++)
                sums[i] = i < 9 ? edge[i] : (int32_t)std::lround(rng.uniform(-1.f, 1.f) * (float)mx);
            if (bound < 16777217.0) {  // the sums must respect the bound they are stored under
                sums[7] = mx;
                sums[8] = -mx;
            }
            if (row == 0 && bound >= 24929.0) {  // FusedStoreHalfway's row: fma_exact_f64 refuses it
                scale[0] = 673.f;
                bias[0] = 0x1p-30f;
                sums[2] = 24929;
            }
            for (bool requant : {false, true})
                for (Fn fn : fns) {
                    if (!fn)
                        continue;
                    std::vector<float> gotf(sums.size(), -1.f);
                    std::vector<int8_t> gotq(sums.size(), 99);
                    Int8Out o;
                    o.scale_in = scale;
                    o.bias = bias;
                    o.fused_bias = true;
                    o.top_scale = 0.37f;
                    o.sum_bound = bound;
                    o.ld = sums.size();
                    if (requant)
                        o.q = gotq.data();
                    else
                        o.f = gotf.data();
                    fn(o, 0, 0, sums.data(), sums.size());
                    for (size_t i = 0; i < sums.size(); i++) {
                        const float want = std::fma((float)sums[i], scale[0], bias[0]);
                        if (requant)
                            ASSERT_EQ((int)float2int8(want * 0.37f), (int)gotq[i]) << "sum " << sums[i] << " bound " << bound;
                        else
                            ASSERT_EQ(want, gotf[i]) << "sum " << sums[i] << " scale " << scale[0] << " bias " << bias[0]
                                                     << " bound " << bound;
                        checked++;
                    }
                }
        }
    EXPECT_GT(checked, 100000u);
}

// The GEMM's store picks a form per row (int8_wasmsimd.cpp Store4): plain for an unfused or zero
// bias, fma4_exact where fma_exact_f64 holds for K * 128 * 128, the halfway-checked emulation
// otherwise, and the short float2int8 for non-negative activations. Thin K (mobilenet_v2's 1x1
// layers) and K up to the exact path's limit (1024) and past it, against the reference, with rows
// chosen to take every form: typical scales and biases, a zero and a -0 bias, biases too small for
// an exact f64 sum, huge biases, a zero scale; relu6 / relu / none / leaky; a positive, a negative
// and a zero top scale.
TEST(Int8Kernels, GemmStoreFormsPerRow) {
    uint32_t seed = 500;
    for (int K : {16, 24, 144, 160, 1024, 1025}) {
        for (int variant = 0; variant < 6; variant++) {
            const int M = 13, N = 21;
            SCOPED_TRACE("K " + std::to_string(K) + " variant " + std::to_string(variant));
            auto a = rand_codes((size_t)M * K, seed++), bm = rand_codes((size_t)K * N, seed++);
            a[0] = -127;
            std::vector<int16_t> pa(i8_packed_a_count(M, K));
            i8_pack_a(M, K, a.data(), pa.data());
            std::vector<size_t> kofs(K);
            for (int k = 0; k < K; k++)
                kofs[k] = (size_t)k * N;
            Int8BSource src;
            src.src = bm.data();
            src.kofs = kofs.data();
            src.out_w = N;
            std::vector<int8_t> pb(i8_packed_b_bytes(K, N));
            i8_pack_b(K, N, src, pb.data());
            auto scale = rand_vec(M, seed++, 1e-5f, 2e-3f);
            auto bias = rand_vec(M, seed++, -3.f, 3.f);
            bias[1] = 0.f;
            bias[2] = -0.f;
            bias[3] = 3e-9f;    // e = ulp(bias) far below ulp(scale * sum): not exact in f64
            bias[4] = -1e-12f;
            bias[5] = 6.5e5f;   // large: its ulp is coarse, the sum is exact
            scale[6] = 0.f;     // an all-zero weight channel
            scale[7] = 37.f;    // large products: the clip saturates
            bias[8] = std::nextafter(0.5f, 1.f);
            const float tops[] = {0.9f, 21.3f, -4.f, 0.f, 127.f, 3.f};
            const ActParams acts[] = {make_act(3, 0.f, 6.f), make_act(1, 0.f, 0.f), make_act(0, 0.f, 0.f),
                                      make_act(2, 0.1f, 0.f), make_act(3, 0.f, 6.f), make_act(3, -1.f, 6.f)};
            Int8Out o;
            o.scale_in = scale.data();
            o.bias = bias.data();
            o.fused_bias = variant != 5;
            o.act = acts[variant];
            o.top_scale = tops[variant];
            o.ld = (size_t)N;
            std::vector<float> wantf((size_t)M * N);
            std::vector<int> wantq((size_t)M * N);
            for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++) {
                    int32_t s = 0;
                    for (int k = 0; k < K; k++)
                        s += (int32_t)a[(size_t)m * K + k] * bm[(size_t)k * N + n];
                    const float v = ref_value(s, scale[m], bias[m], o.fused_bias, o.act);
                    wantf[(size_t)m * N + n] = v;
                    wantq[(size_t)m * N + n] = ref_code(v * o.top_scale);
                }
            GemmFn fns[] = {i8_gemm__scalar, i8_gemm, NF_KERNEL_SIMD_OR_NULL(i8_gemm)};
            for (GemmFn fn : fns) {
                if (!fn)
                    continue;
                std::vector<float> gotf((size_t)M * N, -1234.f);
                std::vector<int8_t> gotq((size_t)M * N, 99);
                Int8Out oo = o;
                oo.q = gotq.data();
                fn(M, N, K, pa.data(), pb.data(), oo);
                EXPECT_EQ(wantq, std::vector<int>(gotq.begin(), gotq.end()));
                oo.q = nullptr;
                oo.f = gotf.data();
                fn(M, N, K, pa.data(), pb.data(), oo);
                expect_same_bits(wantf.data(), gotf.data(), wantf.size(), "gemm dequantize");
            }
        }
    }
}

// The GEMM's direct codes (int8_wasmsimd.cpp direct_for: codes from (float)x * S + B in f32,
// checked against the halves) on sums placed on and next to every code boundary: K = 2 with weight
// rows (127, 1), so that a column (b0, b1) gives the sum 127 * b0 + b1, any integer up to 16000 in
// magnitude. Per case two rows (one store pair) with their own scale, bias, top scale and
// activation, and the sums nearest to (k + 0.5 - B) / S for each code k of either row: y lands
// within ulps of a half often, on exact halves for scale 0.5 (ties to even in f32 rounding, away
// from zero in float2int8), and at the clamps. Every twin of i8_gemm and of i8_store (with the
// sums' bound) against the reference.
TEST(Int8Kernels, GemmDirectCodesNearHalves) {
    const int M = 2, K = 2;
    const int8_t a[M * K] = {127, 1, 127, 1};
    std::vector<int16_t> pa(i8_packed_a_count(M, K));
    i8_pack_a(M, K, a, pa.data());
    Rng rng(9090);
    const ActParams acts[] = {make_act(0, 0.f, 0.f), make_act(1, 0.f, 0.f), make_act(3, 0.f, 6.f),
                              make_act(3, -1.f, 6.f), make_act(3, -3.f, -0.5f)};
    size_t checked = 0;
    for (int c = 0; c < 1500; c++) {
        float scale[M], bias[M];
        for (int r = 0; r < M; r++) {
            scale[r] = std::ldexp(rng.uniform(0.5f, 1.f), (int)rng.uniform(-12.f, -2.f)) *
                       (rng.uniform(0.f, 1.f) < 0.1f ? -1.f : 1.f);
            bias[r] = rng.uniform(0.f, 1.f) < 0.2f ? 0.f : rng.uniform(-4.f, 4.f);
        }
        float top = std::ldexp(rng.uniform(0.5f, 1.f), (int)rng.uniform(0.f, 8.f));
        if (c < 20) {  // exact halves: y = x / 2
            scale[0] = 0.5f;
            bias[0] = 0.f;
            top = 1.f;
        }
        if (c >= 20 && c < 60) {  // |B| at and past the direct form's limit (4096)
            bias[0] = (c % 2 ? 4096.f : 4200.f) / top * (c % 4 < 2 ? 1.f : -1.f);
        }
        Int8Out o;
        o.scale_in = scale;
        o.bias = bias;
        o.fused_bias = c % 7 != 3;  // unfused: the direct form takes only zero biases then
        o.act = acts[c % 5];
        o.top_scale = top;
        std::vector<int32_t> xs = {0, 1, -1, 16000, -16000};
        for (int r = 0; r < M; r++) {
            const double S = (double)scale[r] * top, B = (double)bias[r] * top;
            for (int k = -128; k <= 127; k++) {
                const double xk = (k + 0.5 - B) / S;
                if (std::fabs(xk) > 15990)
                    continue;
                for (int d = -1; d <= 2; d++)
                    xs.push_back((int32_t)std::floor(xk) + d);
            }
        }
        const int N = (int)xs.size();
        std::vector<int8_t> bm((size_t)K * N);  // B[k][n]
        for (int n = 0; n < N; n++) {
            const int b0 = (int)std::lround(xs[n] / 127.0);
            bm[n] = (int8_t)b0;
            bm[N + n] = (int8_t)(xs[n] - 127 * b0);
        }
        std::vector<size_t> kofs = {0, (size_t)N};
        Int8BSource src;
        src.src = bm.data();
        src.kofs = kofs.data();
        src.out_w = N;
        std::vector<int8_t> pb(i8_packed_b_bytes(K, N));
        i8_pack_b(K, N, src, pb.data());
        std::vector<int> want((size_t)M * N);
        for (int r = 0; r < M; r++)
            for (int n = 0; n < N; n++)
                want[(size_t)r * N + n] = ref_code(ref_value(xs[n], scale[r], bias[r], o.fused_bias, o.act) * top);
        GemmFn fns[] = {i8_gemm__scalar, i8_gemm, NF_KERNEL_SIMD_OR_NULL(i8_gemm)};
        for (GemmFn fn : fns) {
            if (!fn)
                continue;
            std::vector<int8_t> got((size_t)M * N, 99);
            Int8Out oo = o;
            oo.q = got.data();
            oo.ld = (size_t)N;
            fn(M, N, K, pa.data(), pb.data(), oo);
            for (size_t i = 0; i < want.size(); i++)
                ASSERT_EQ(want[i], (int)got[i]) << "case " << c << " row " << i / N << " sum " << xs[i % N] << " scale "
                                                << scale[i / N] << " bias " << bias[i / N] << " top " << top;
            checked += want.size();
        }
        // i8_store given the sums' bound (the Winograd layer's store) takes the direct form too
        using StoreFn = void (*)(const Int8Out&, int, size_t, const int32_t*, size_t);
        StoreFn sfns[] = {i8_store__scalar, i8_store, NF_KERNEL_SIMD_OR_NULL(i8_store)};
        for (StoreFn fn : sfns) {
            if (!fn)
                continue;
            std::vector<int8_t> got((size_t)M * N, 99);
            Int8Out oo = o;
            oo.q = got.data();
            oo.ld = (size_t)N;
            oo.sum_bound = 16000;
            for (int r = 0; r < M; r++)
                fn(oo, r, 0, xs.data(), (size_t)N);
            for (size_t i = 0; i < want.size(); i++)
                ASSERT_EQ(want[i], (int)got[i]) << "store: case " << c << " row " << i / N << " sum " << xs[i % N];
            checked += want.size();
        }
    }
    EXPECT_GT(checked, 500000u);
}

}  // namespace

#if NNFOLD_SIMD
// fma4_exact against std::fma on rows where fma_exact_f64 admits them, on random, extreme (+-the
// bound) and small sums: scales and biases from 2^-60 to 2^20 of both signs, subnormals and
// zeros, bounds from K = 1 to K = 1024 (2^24). Also that the predicate admits mobilenet_v2-like
// rows (so the fast path is taken) and refuses the halfway example of FusedStoreHalfway, whose f64
// sum is not exact.
TEST(Int8Kernels, FusedExactF64PathIsFma) {
    using i8simd::fma_exact_f64;
    EXPECT_TRUE(fma_exact_f64(1.9e-4f, 0.12f, 24 * 16384.0));
    EXPECT_TRUE(fma_exact_f64(1.9e-4f, -0.0301f, 960 * 16384.0));
    EXPECT_TRUE(fma_exact_f64(0.f, 0.5f, 16777216.0));
    EXPECT_FALSE(fma_exact_f64(673.f, 0x1p-30f, 24929.0));
    EXPECT_FALSE(fma_exact_f64(1e-3f, 0.1f, 16777217.0));  // (float)x would round
    EXPECT_FALSE(fma_exact_f64(INFINITY, 0.1f, 16.0));
    EXPECT_FALSE(fma_exact_f64(1e-3f, NAN, 16.0));
    auto float_bits = [](float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
    };
    Rng rng(4242);
    size_t admitted = 0, checked = 0;
    for (int row = 0; row < 20000; row++) {
        auto pick = [&](int lo, int hi) {
            const int kind = (int)rng.uniform(0.f, 20.f);
            if (kind == 0)
                return 0.f;
            if (kind == 1)
                return std::ldexp(rng.uniform(-1.f, 1.f), -140);  // subnormal
            const float m = rng.uniform(0.5f, 1.f) * (rng.uniform(-1.f, 1.f) < 0 ? -1.f : 1.f);
            return std::ldexp(m, (int)rng.uniform((float)lo, (float)hi));
        };
        const float scale = pick(-40, 12), bias = pick(-60, 20);
        const int K = 1 + (int)rng.uniform(0.f, 1023.99f);
        const double max_abs = (double)K * 16384.0;
        if (!fma_exact_f64(scale, bias, max_abs))
            continue;
        admitted++;
        const int32_t mx = (int32_t)max_abs;
        int32_t xs[16] = {0, 1, -1, mx, -mx, mx - 1, -mx + 1, 2, 16384, -16384};
        for (int i = 10; i < 16; i++)
            xs[i] = (int32_t)std::lround(rng.uniform(-1.f, 1.f) * (float)mx);
        const v128_t sc = wasm_f64x2_splat((double)scale), bi = wasm_f64x2_splat((double)bias);
        for (int i = 0; i < 16; i += 4) {
            float got[4];
            wasm_v128_store(got, i8simd::fma4_exact(wasm_v128_load(xs + i), sc, bi));
            for (int j = 0; j < 4; j++) {
                // the predicate's claim itself: the f64 product is exact (at most 48 bits) and
                // the f64 sum has no rounding error (TwoSum's error term, exact, is 0)
                const double p = (double)xs[i + j] * (double)scale, sum = p + (double)bias;
                const double bv = sum - p, err = (p - (sum - bv)) + ((double)bias - bv);
                EXPECT_EQ(0.0, err) << "x " << xs[i + j] << " scale " << scale << " bias " << bias;
                const float want = std::fma((float)xs[i + j], scale, bias);
                checked++;
                EXPECT_EQ(float_bits(want), float_bits(got[j]))
                    << "x " << xs[i + j] << " scale " << scale << " bias " << bias << " want " << want << " got "
                    << got[j];
            }
        }
    }
    EXPECT_GT(admitted, 5000u);
    EXPECT_GT(checked, 80000u);
}

// f2i8_i32_nonneg against float2int8 on non-negative floats: both zeros, subnormals, every float
// within 64 ulps of each x.5 from 0.5 to 127.5, of each integer up to 128, 127.49..128 and far
// above, +inf, and random values.
TEST(Int8Kernels, NonNegativeCodesMatchFloat2int8) {
    std::vector<float> xs = {0.f, -0.f, 0x1p-149f, 1e-40f, 0.49999997f, 0.5f, 127.f, 127.5f, 128.f, 1e6f, 3e38f, INFINITY};
    for (int k = 0; k <= 128; k++)
        for (float c : {(float)k, (float)k + 0.5f}) {
            float up = c, down = c;
            for (int i = 0; i < 64; i++) {
                up = std::nextafter(up, INFINITY);
                down = std::nextafter(down, 0.f);
                xs.push_back(up);
                xs.push_back(down);
            }
            xs.push_back(c);
        }
    Rng rng(77);
    for (int i = 0; i < 4000; i++)
        xs.push_back(rng.uniform(0.f, 140.f));
    while (xs.size() % 4)
        xs.push_back(1.f);
    for (size_t i = 0; i < xs.size(); i += 4) {
        int32_t got[4];
        wasm_v128_store(got, i8simd::f2i8_i32_nonneg(wasm_v128_load(&xs[i])));
        for (int j = 0; j < 4; j++)
            EXPECT_EQ((int)float2int8(xs[i + j]), got[j]) << "x " << xs[i + j];
    }
}
#endif

// ---- int8 Winograd F(2x2, 3x3) and its int16 GEMM

// i16_gemm (both twins) against the plain sum over an unpacked A and B, wrapping modulo 2^32: odd
// sizes around the 4x8 tile, odd K, and full-range int16 operands whose sums overflow int32.
TEST(Int8Kernels, I16GemmWrapsAsInt32) {
    using Fn = void (*)(int, int, int, const int16_t*, const int16_t*, int32_t*, size_t);
    Fn fns[] = {i16_gemm__scalar, i16_gemm, NF_KERNEL_SIMD_OR_NULL(i16_gemm)};
    uint32_t seed = 40;
    for (int M : {1, 4, 5, 11})
        for (int N : {1, 4, 8, 9, 12, 13, 23})  // 12: a last block of 4 columns, 13: of 5
            for (int K : {1, 2, 5, 34, 301}) {
                SCOPED_TRACE("M" + std::to_string(M) + " N" + std::to_string(N) + " K" + std::to_string(K));
                Rng rng(seed++);
                const bool full = K == 301;  // 301 products near 2^30 pass 2^31
                const float lim = full ? 32767.f : 1200.f;
                std::vector<int16_t> a((size_t)M * K), bm((size_t)K * N);
                for (auto& x : a)
                    x = (int16_t)std::lround(rng.uniform(-lim, lim));
                for (auto& x : bm)
                    x = (int16_t)std::lround(rng.uniform(-lim, lim));
                std::vector<int16_t> pa(i8_packed_a_count(M, K)), pb(i16_packed_b_count(K, N), 0);
                i8_pack_a(M, K, a.data(), pa.data());
                const int Kp2 = (K + 1) / 2;
                for (int k = 0; k < K; k++)
                    for (int n = 0; n < N; n++)
                        pb[((size_t)(n / 8) * Kp2 + k / 2) * 16 + (n % 8) * 2 + (k & 1)] = bm[(size_t)k * N + n];
                std::vector<int32_t> want((size_t)M * N);
                for (int m = 0; m < M; m++)
                    for (int n = 0; n < N; n++) {
                        uint32_t s = 0;
                        for (int k = 0; k < K; k++)
                            s += (uint32_t)((int32_t)a[(size_t)m * K + k] * bm[(size_t)k * N + n]);
                        want[(size_t)m * N + n] = (int32_t)s;
                    }
                for (Fn fn : fns) {
                    if (!fn)
                        continue;
                    const size_t ldc = (size_t)N + 3;  // a row stride wider than N: nothing past N written
                    std::vector<int32_t> got((size_t)M * ldc, 7);
                    fn(M, N, K, pa.data(), pb.data(), got.data(), ldc);
                    for (int m = 0; m < M; m++) {
                        for (int n = 0; n < N; n++)
                            ASSERT_EQ(want[(size_t)m * N + n], got[(size_t)m * ldc + n]) << "m " << m << " n " << n;
                        for (size_t n = (size_t)N; n < ldc; n++)
                            ASSERT_EQ(7, got[(size_t)m * ldc + n]);
                    }
                }
            }
}

// The whole Winograd pipeline (kernel transform, i8_wino_input and i8_wino_output of either twin,
// i16_gemm per position) gives the direct convolution's sums (int8_conv_sums) exactly, on odd
// and even output sizes (tiles past the plane's edges), planes wide enough for the SIMD twin's
// 8-tile path and not, blocks of tiles that start mid-grid, odd channel counts, and all-extreme
// codes at the largest input channel count the transforms keep exact.
TEST(Int8Kernels, WinogradF23MatchesDirectSums) {
    using InFn = void (*)(const Int8WinoInput&, int, int, int16_t*);
    InFn ins[] = {i8_wino_input__scalar, i8_wino_input, NF_KERNEL_SIMD_OR_NULL(i8_wino_input)};
    using OutFn = void (*)(const int32_t*, int, int, const Int8WinoOutput&);
    OutFn outs[] = {i8_wino_output__scalar, NF_KERNEL_SIMD_OR_NULL(i8_wino_output), i8_wino_output};
    struct Case {
        int inch, outch, pw, ph, block;  // padded plane; block: tiles per block (0: all)
        bool extreme;
    };
    const Case cases[] = {{1, 1, 3, 3, 0, false},    {2, 3, 4, 4, 0, false},     {3, 5, 7, 6, 3, false},
                          {5, 4, 21, 9, 0, false},   {6, 9, 20, 20, 8, false},   {16, 17, 58, 11, 29, false},
                          {7, 8, 40, 5, 5, false},   {64, 16, 15, 15, 16, false}, {kI8WinoMaxInch, 2, 4, 5, 0, true}};
    uint32_t seed = 90;
    for (const Case& c : cases) {
        SCOPED_TRACE("inch " + std::to_string(c.inch) + " outch " + std::to_string(c.outch) + " plane " +
                     std::to_string(c.pw) + "x" + std::to_string(c.ph) + " block " + std::to_string(c.block));
        const int out_w = c.pw - 2, out_h = c.ph - 2;
        auto src = rand_codes((size_t)c.inch * c.pw * c.ph, seed++);
        auto w = rand_codes((size_t)c.outch * c.inch * 9, seed++);
        if (c.extreme) {  // the largest sums: every product 127 * 127 (or its negation)
            std::fill(src.begin(), src.end(), (int8_t)127);
            for (size_t i = 0; i < w.size(); i++)
                w[i] = (i / ((size_t)c.inch * 9)) % 2 ? (int8_t)-127 : (int8_t)127;
        }
        Int8ConvShape s;
        s.inch = c.inch;
        s.outch = c.outch;
        s.padded_w = c.pw;
        s.padded_h = c.ph;
        s.out_w = out_w;
        s.out_h = out_h;
        s.maxk = 9;
        std::vector<int> ofs(9);
        for (int t = 0; t < 9; t++)
            ofs[t] = (t / 3) * c.pw + t % 3;
        std::vector<int8_t> cols(int8_conv_cols_bytes(s));
        const size_t out_plane = (size_t)out_w * out_h;
        std::vector<int32_t> want(out_plane * c.outch);
        int8_conv_sums(s, src.data(), w.data(), ofs.data(), cols.data(), want.data());

        std::vector<int16_t> u(i8_wino_u_count(c.outch, c.inch));
        i8_wino_transform_kernel(w.data(), c.outch, c.inch, u.data());
        const int tiles_w = (out_w + 1) / 2, tiles_h = (out_h + 1) / 2;
        Int8WinoInput in;
        in.src = src.data();
        in.inch = c.inch;
        in.padded_w = c.pw;
        in.padded_h = c.ph;
        in.tiles_w = tiles_w;
        // blocks must be whole tile rows for the output's row layout: round the block up to rows
        const int rows = c.block ? std::max(1, c.block / tiles_w) : tiles_h;
        for (int variant = 0; variant < 3; variant++) {
            // input twin `variant` with output twin `variant`: scalar/scalar, SIMD/SIMD, the build's
            const InFn fn = ins[variant];
            const OutFn ofn = outs[variant];
            if (!fn || !ofn)
                continue;
            std::vector<int32_t> got(out_plane * c.outch, INT_MIN);
            for (int ty0 = 0; ty0 < tiles_h; ty0 += rows) {
                const int nty = std::min(rows, tiles_h - ty0), t0 = ty0 * tiles_w, nt = nty * tiles_w;
                const size_t vb = i16_packed_b_count(c.inch, nt);
                std::vector<int16_t> v(16 * vb, 12345);  // all of it is written
                fn(in, t0, nt, v.data());
                std::vector<int32_t> m((size_t)16 * c.outch * nt);
                for (int p = 0; p < 16; p++)
                    i16_gemm(c.outch, nt, c.inch, u.data() + p * i8_packed_a_count(c.outch, c.inch), v.data() + p * vb,
                             m.data() + (size_t)p * c.outch * nt, (size_t)nt);
                Int8WinoOutput out;
                out.outch = c.outch;
                out.out_w = out_w;
                out.out_h = out_h;
                out.tiles_w = tiles_w;
                out.ld = out_plane;
                out.sums = got.data() + (size_t)ty0 * 2 * out_w;  // row 2 * ty0 of channel 0
                ofn(m.data(), t0, nt, out);
            }
            ASSERT_EQ(want, got);
        }
    }
}
