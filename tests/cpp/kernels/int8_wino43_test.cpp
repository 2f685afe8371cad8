// int8 Winograd F(4x4, 3x3) (kernels/int8_wino43.h): the whole pipeline (kernel transform, input
// transform of either twin, i16_gemm per position, output transform of either twin) against the
// direct convolution's sums (int8_conv_sums), exactly; and the exactness bound, at its edge and
// one step past it, for F(4,3) and for F(2,3) with the code -128 (a border of (int8)pad_value).
#include <climits>

#include "kernel_test_util.h"
#include "kernels/int8.h"
#include "kernels/int8_wino43.h"

using namespace nnfold;
using namespace nnfold::kernels;

namespace {

std::vector<int8_t> w43_codes(size_t n, uint32_t seed) {
    Rng rng(seed);
    std::vector<int8_t> v(n);
    for (auto& x : v)
        x = (int8_t)std::lround(rng.uniform(-127.49f, 127.49f));
    return v;
}

std::vector<int32_t> w43_direct(const std::vector<int8_t>& src, const std::vector<int8_t>& w, int inch, int outch,
                                int pw, int ph) {
    Int8ConvShape s;
    s.inch = inch;
    s.outch = outch;
    s.padded_w = pw;
    s.padded_h = ph;
    s.out_w = pw - 2;
    s.out_h = ph - 2;
    s.maxk = 9;
    std::vector<int> ofs(9);
    for (int t = 0; t < 9; t++)
        ofs[t] = (t / 3) * pw + t % 3;
    std::vector<int8_t> cols(int8_conv_cols_bytes(s));
    std::vector<int32_t> want((size_t)s.out_w * s.out_h * outch);
    int8_conv_sums(s, src.data(), w.data(), ofs.data(), cols.data(), want.data());
    return want;
}

using InFn = void (*)(const Int8WinoInput&, int, int, int16_t*);
using OutFn = void (*)(const int32_t*, int, int, const Int8WinoOutput&);

// The layer's pipeline with output tile m (2: F(2,3), 4: F(4,3)) in blocks of `rows` tile rows.
std::vector<int32_t> w43_winograd(int m, InFn fin, OutFn fout, const std::vector<int8_t>& src,
                                  const std::vector<int8_t>& w, int inch, int outch, int pw, int ph, int rows) {
    const int out_w = pw - 2, out_h = ph - 2, P = (m + 2) * (m + 2);
    const size_t out_plane = (size_t)out_w * out_h;
    std::vector<int16_t> u(P * i8_packed_a_count(outch, inch));
    if (m == 4)
        i8_wino43_transform_kernel(w.data(), outch, inch, u.data());
    else
        i8_wino_transform_kernel(w.data(), outch, inch, u.data());
    const int tiles_w = (out_w + m - 1) / m, tiles_h = (out_h + m - 1) / m;
    Int8WinoInput in;
    in.src = src.data();
    in.inch = inch;
    in.padded_w = pw;
    in.padded_h = ph;
    in.tiles_w = tiles_w;
    if (rows <= 0)
        rows = tiles_h;
    std::vector<int32_t> got(out_plane * outch, INT_MIN);
    for (int ty0 = 0; ty0 < tiles_h; ty0 += rows) {
        const int nty = std::min(rows, tiles_h - ty0), t0 = ty0 * tiles_w, nt = nty * tiles_w;
        const size_t vb = i16_packed_b_count(inch, nt);
        std::vector<int16_t> v(P * vb, 12345);  // all of it is written
        fin(in, t0, nt, v.data());
        std::vector<int32_t> mm((size_t)P * outch * nt);
        for (int p = 0; p < P; p++)
            i16_gemm(outch, nt, inch, u.data() + p * i8_packed_a_count(outch, inch), v.data() + p * vb,
                     mm.data() + (size_t)p * outch * nt, (size_t)nt);
        Int8WinoOutput out;
        out.outch = outch;
        out.out_w = out_w;
        out.out_h = out_h;
        out.tiles_w = tiles_w;
        out.ld = out_plane;
        out.sums = got.data() + (size_t)ty0 * m * out_w;  // row m * ty0 of channel 0
        fout(mm.data(), t0, nt, out);
    }
    return got;
}

struct W43Twins {
    InFn in;
    OutFn out;
    const char* name;
};
// scalar/scalar, SIMD/SIMD (SIMD builds), SIMD input with scalar output and the reverse, the build's
const W43Twins kW43Twins[] = {{i8_wino43_input__scalar, i8_wino43_output__scalar, "scalar"},
                              {NF_KERNEL_SIMD_OR_NULL(i8_wino43_input), NF_KERNEL_SIMD_OR_NULL(i8_wino43_output), "simd"},
                              {NF_KERNEL_SIMD_OR_NULL(i8_wino43_input), i8_wino43_output__scalar, "simd in"},
                              {i8_wino43_input__scalar, NF_KERNEL_SIMD_OR_NULL(i8_wino43_output), "simd out"},
                              {i8_wino43_input, i8_wino43_output, "build"}};

// 3x3 weights of outch channels whose absolute sum per channel is total: 127s, then the rest.
// Even channels are negative (against -128 codes their sum is +128 * total), odd ones positive.
std::vector<int8_t> weights_with_abs_sum(int outch, int inch, int64_t total) {
    std::vector<int8_t> w((size_t)outch * inch * 9, 0);
    for (int o = 0; o < outch; o++) {
        int64_t left = total;
        for (size_t i = 0; i < (size_t)inch * 9 && left > 0; i++) {
            const int a = (int)std::min<int64_t>(127, left);
            w[(size_t)o * inch * 9 + i] = (int8_t)(o % 2 ? a : -a);
            left -= a;
        }
    }
    return w;
}

}  // namespace

// Odd and even output sizes (tiles past the plane's edges), planes narrower and wider than the
// SIMD twins' 8-tile and 4-tile groups, blocks that end mid tile row, odd channel counts.
TEST(Int8Wino43, MatchesDirectSums) {
    struct Case {
        int inch, outch, pw, ph, rows;  // padded plane; rows: tile rows per block (0: all)
    };
    const Case cases[] = {{1, 1, 3, 3, 0},   {2, 3, 4, 4, 0},     {3, 5, 7, 6, 1},   {5, 4, 21, 9, 0},
                          {6, 9, 20, 20, 2}, {16, 17, 58, 11, 1}, {7, 8, 40, 5, 0},  {64, 16, 15, 15, 1},
                          {9, 6, 30, 30, 3}, {33, 12, 16, 16, 0}, {4, 20, 38, 7, 0}, {17, 5, 9, 23, 2}};
    uint32_t seed = 4300;
    for (const Case& c : cases) {
        SCOPED_TRACE("inch " + std::to_string(c.inch) + " outch " + std::to_string(c.outch) + " plane " +
                     std::to_string(c.pw) + "x" + std::to_string(c.ph) + " rows " + std::to_string(c.rows));
        auto src = w43_codes((size_t)c.inch * c.pw * c.ph, seed++);
        auto w = w43_codes((size_t)c.outch * c.inch * 9, seed++);
        src[0] = -128;  // a border code
        const auto want = w43_direct(src, w, c.inch, c.outch, c.pw, c.ph);
        for (const W43Twins& tw : kW43Twins) {
            if (!tw.in || !tw.out)
                continue;
            SCOPED_TRACE(tw.name);
            ASSERT_EQ(want, w43_winograd(4, tw.in, tw.out, src, w, c.inch, c.outch, c.pw, c.ph, c.rows));
        }
    }
}

// Weights whose absolute sum is exactly the bound, against codes of -128 (the largest |code|): the
// sums reach 128 * kI8Wino43MaxAbsSum = 2^25 - 128 and -(2^25 - 128) and stay exact. One more unit
// of weight makes 2^25, which the transforms cannot tell from -2^25: the bound is the true one.
TEST(Int8Wino43, ExactUpToTheWeightBound) {
    const int inch = 230, outch = 4, pw = 7, ph = 6;  // 230 * 9 * 127 > 262143
    for (int64_t total : {kI8Wino43MaxAbsSum, kI8Wino43MaxAbsSum + 1}) {
        SCOPED_TRACE("sum |w| " + std::to_string(total));
        const std::vector<int8_t> w = weights_with_abs_sum(outch, inch, total);
        ASSERT_EQ(total, i8_max_abs_weight_sum(w.data(), outch, inch));
        std::vector<int8_t> src((size_t)inch * pw * ph, (int8_t)-128);
        const auto want = w43_direct(src, w, inch, outch, pw, ph);
        ASSERT_EQ(128 * total, want[0]);
        ASSERT_EQ(-128 * total, want[(size_t)(pw - 2) * (ph - 2)]);
        for (const W43Twins& tw : kW43Twins) {
            if (!tw.in || !tw.out)
                continue;
            SCOPED_TRACE(tw.name);
            const auto got = w43_winograd(4, tw.in, tw.out, src, w, inch, outch, pw, ph, 0);
            if (total <= kI8Wino43MaxAbsSum) {
                ASSERT_EQ(want, got);
            } else {
                ASSERT_NE(want[0], got[0]);  // 2^25 came back as -2^25
                ASSERT_EQ(-want[0], got[0]);
            }
        }
    }
}

// F(2,3)'s bound by weights (kI8Wino23MaxAbsSum), with -128 codes, which its older bound by input
// channels (kI8WinoMaxInch, derived for |code| <= 127) did not cover.
TEST(Int8Wino43, F23ExactUpToTheWeightBound) {
    const int inch = 3700, outch = 2, pw = 4, ph = 4;
    for (int64_t total : {kI8Wino23MaxAbsSum, kI8Wino23MaxAbsSum + 1}) {
        SCOPED_TRACE("sum |w| " + std::to_string(total));
        const std::vector<int8_t> w = weights_with_abs_sum(outch, inch, total);
        ASSERT_EQ(total, i8_max_abs_weight_sum(w.data(), outch, inch));
        std::vector<int8_t> src((size_t)inch * pw * ph, (int8_t)-128);
        const auto want = w43_direct(src, w, inch, outch, pw, ph);
        const auto got = w43_winograd(2, i8_wino_input, i8_wino_output, src, w, inch, outch, pw, ph, 0);
        if (total <= kI8Wino23MaxAbsSum) {
            ASSERT_EQ(want, got);
        } else {
            ASSERT_NE(want[0], got[0]);
        }
    }
}
