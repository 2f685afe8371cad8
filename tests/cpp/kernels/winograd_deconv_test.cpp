// Winograd F(4,3) / F(6,3) pieces and the transposed-convolution kernels:
//   - kernel + input transforms + per-position GEMMs + output transform against a direct 3x3
//     convolution written here (docs/numbers.md's Winograd budget 1e-3; in practice ~1e-6 for
//     F(4,3), ~5e-6 for F(6,3)), on tile grids with ragged edges and blocks that start mid-row,
//     and the block driver (winograd_conv_block) giving the same bits as the pieces;
//   - in SIMD builds the SIMD input/output transforms against their scalar twins, bit for bit;
//   - col2im and the depthwise deconvolution plane kernel against loops written here;
//   - the in-place activation kernel against act_scalar.
#include "kernel_test_util.h"
#include "kernels/deconv.h"
#include "kernels/gemm.h"
#include "kernels/winograd.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

// 3x3 stride-1 convolution of inch planes of (oh + 2) x (ow + 2) (already padded).
std::vector<float> direct3x3(const std::vector<float>& in, int inch, int ow, int oh, const std::vector<float>& w,
                             int outch, const std::vector<float>& bias) {
    const int iw = ow + 2, ih = oh + 2;
    std::vector<float> out((size_t)outch * ow * oh);
    for (int o = 0; o < outch; o++)
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                double s = bias[o];
                for (int q = 0; q < inch; q++)
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            s += (double)in[((size_t)q * ih + y + i) * iw + x + j] * w[(((size_t)o * inch + q) * 3 + i) * 3 + j];
                out[((size_t)o * oh + y) * ow + x] = (float)s;
            }
    return out;
}

void winograd_case(Winograd f, int inch, int outch, int ow, int oh, int block, uint32_t seed) {
    const int mt = winograd_m(f), P = winograd_positions(f);
    SCOPED_TRACE(std::string(f == Winograd::F63 ? "F(6,3)" : "F(4,3)") + " inch " + std::to_string(inch) + " outch " +
                 std::to_string(outch) + " out " + std::to_string(oh) + "x" + std::to_string(ow) + " block " +
                 std::to_string(block));
    const int tiles_w = (ow + mt - 1) / mt, tiles_h = (oh + mt - 1) / mt, ntiles = tiles_w * tiles_h;
    // the padded input the tile grid covers (tiles * m + 2); the conv only sees (oh + 2) x (ow + 2)
    const int sw = tiles_w * mt + 2, sh = tiles_h * mt + 2;
    auto in = rand_vec((size_t)inch * (oh + 2) * (ow + 2), seed);
    std::vector<float> src((size_t)inch * sw * sh, 0.f);
    for (int q = 0; q < inch; q++)
        for (int y = 0; y < oh + 2; y++)
            for (int x = 0; x < ow + 2; x++)
                src[((size_t)q * sh + y) * sw + x] = in[((size_t)q * (oh + 2) + y) * (ow + 2) + x];
    auto w = rand_vec((size_t)outch * inch * 9, seed + 1);
    auto bias = rand_vec((size_t)outch, seed + 2);
    std::vector<float> u(winograd_u_floats(f, outch, inch));
    winograd_transform_kernel(f, w.data(), outch, inch, u.data());
    auto transform_input = f == Winograd::F63 ? winograd63_transform_input : winograd43_transform_input;
    auto transform_output = f == Winograd::F63 ? winograd63_transform_output : winograd43_transform_output;
#if NNFOLD_SIMD
    auto transform_input_scalar =
        f == Winograd::F63 ? winograd63_transform_input__scalar : winograd43_transform_input__scalar;
    auto transform_output_scalar =
        f == Winograd::F63 ? winograd63_transform_output__scalar : winograd43_transform_output__scalar;
#endif

    WinogradInput wi;
    wi.src = src.data();
    wi.in_w = sw;
    wi.in_plane = (size_t)sw * sh;
    wi.inch = inch;
    wi.tiles_w = tiles_w;
    std::vector<float> out((size_t)outch * ow * oh, 777.f), out_driver = out;
    WinogradOutput wo;
    wo.dst = out.data();
    wo.out_w = ow;
    wo.out_h = oh;
    wo.outch = outch;
    wo.tiles_w = tiles_w;
    wo.bias = bias.data();
    WinogradOutput wo_driver = wo;
    wo_driver.dst = out_driver.data();
    std::vector<float> ws(winograd_block_floats(f, inch, outch, block));
    const size_t u_stride = packed_a_floats(outch, inch);
    for (int t0 = 0; t0 < ntiles; t0 += block) {
        const int nt = std::min(block, ntiles - t0);
        const size_t v_stride = packed_b_floats(inch, nt);
        std::vector<float> v(P * v_stride, -1.f), m((size_t)P * outch * nt);
        transform_input(wi, t0, nt, v.data());
#if NNFOLD_SIMD
        std::vector<float> vs(v.size(), -1.f);
        transform_input_scalar(wi, t0, nt, vs.data());
        expect_same_bits(vs.data(), v.data(), v.size(), "input transform SIMD vs scalar");
#endif
        for (int p = 0; p < P; p++) {
            GemmB b;
            b.kind = GemmB::Packed;
            b.data = v.data() + p * v_stride;
            f32_gemm(outch, nt, inch, u.data() + p * u_stride, b, m.data() + (size_t)p * outch * nt, nt, GemmEpilogue(),
                     false, nullptr);
        }
#if NNFOLD_SIMD
        std::vector<float> o2 = out;
        WinogradOutput wo2 = wo;
        wo2.dst = o2.data();
        transform_output_scalar(m.data(), nt, wo2, t0, nt);
        transform_output(m.data(), nt, wo, t0, nt);
        expect_same_bits(o2.data(), out.data(), out.size(), "output transform SIMD vs scalar");
#else
        transform_output(m.data(), nt, wo, t0, nt);
#endif
        winograd_conv_block(f, u.data(), wi, wo_driver, t0, nt, ws.data());
    }
    expect_same_bits(out.data(), out_driver.data(), out.size(), "winograd_conv_block vs the pieces");
    auto want = direct3x3(in, inch, ow, oh, w, outch, bias);
    expect_rel(want.data(), out.data(), out.size(), 1e-4, "winograd vs direct");
}

}  // namespace

TEST(Winograd, MatchesDirectConvolution) {
    uint32_t seed = 1;
    for (Winograd f : {Winograd::F43, Winograd::F63}) {
        for (int ow : {1, 3, 4, 5, 6, 7, 8, 13, 17, 25})
            for (int oh : {1, 4, 6, 7})
                winograd_case(f, 3, 5, ow, oh, 8, seed++);
        // blocks of tiles that start mid-row, several panels, ragged last block
        winograd_case(f, 17, 9, 23, 11, 8, seed++);
        winograd_case(f, 16, 16, 29, 9, 16, seed++);
        winograd_case(f, 5, 4, 13, 13, 24, seed++);
        winograd_case(f, 33, 19, 31, 14, 40, seed++);
    }
}

// The tile block: a multiple of 8, never past the tiles, wide for a large U.
TEST(Winograd, TileBlock) {
    for (Winograd f : {Winograd::F43, Winograd::F63})
        for (int c : {16, 64, 512})
            for (int nt : {1, 9, 49, 400}) {
                const int tb = winograd_tile_block(f, c, c, nt);
                EXPECT_EQ(tb % 8, 0);
                EXPECT_GE(tb, 8);
                EXPECT_LE(tb, (nt + 7) / 8 * 8);
            }
    EXPECT_EQ(winograd_tile_block(Winograd::F63, 512, 512, 49), 56);   // U 67 MB: every tile in one block
    EXPECT_EQ(winograd_tile_block(Winograd::F43, 512, 512, 400), 64);  // a 128 KB V slice
}

TEST(Deconv, Col2imMatchesScatterLoop) {
    // 2 input rows x 5 columns, 3x2 kernel, stride (2, 3), dilation (1, 2), pixels 3..9
    DeconvWindow w;
    w.in_w = 5;
    w.kernel_w = 3, w.kernel_h = 2, w.stride_w = 2, w.stride_h = 3, w.dilation_w = 1, w.dilation_h = 2;
    const int in_h = 2, full_w = (w.in_w - 1) * 2 + 3, full_h = (in_h - 1) * 3 + 3;
    w.out_w = full_w;
    const int pix0 = 3, npix = 7, maxk = 6;
    auto col = rand_vec((size_t)maxk * npix, 5);
    std::vector<float> out((size_t)full_w * full_h, 0.5f), want = out;
    f32_col2im_add(col.data(), npix, pix0, npix, w, out.data());
    for (int k = 0; k < maxk; k++)
        for (int t = 0; t < npix; t++) {
            const int p = pix0 + t, i = p / w.in_w, j = p % w.in_w, ki = k / 3, kj = k % 3;
            want[(size_t)(i * 3 + ki * 2) * full_w + j * 2 + kj] += col[(size_t)k * npix + t];
        }
    expect_same_bits(want.data(), out.data(), out.size(), "col2im");
}

TEST(Deconv, DepthwisePlaneMatchesScatterLoop) {
    uint32_t seed = 50;
    for (int in_w : {1, 3, 4, 7, 13})
        for (int s : {1, 2, 3})
            for (int k : {1, 3, 4}) {
                DeconvWindow w;
                w.in_w = in_w;
                w.kernel_w = w.kernel_h = k;
                w.stride_w = w.stride_h = s;
                w.dilation_w = w.dilation_h = 1 + (seed % 2);
                const int in_h = 3;
                w.out_w = (in_w - 1) * s + (k - 1) * w.dilation_w + 1;
                const int out_h = (in_h - 1) * s + (k - 1) * w.dilation_h + 1;
                auto src = rand_vec((size_t)in_w * in_h, seed++);
                auto ker = rand_vec((size_t)k * k, seed++);
                std::vector<float> want((size_t)w.out_w * out_h, 0.25f), a = want, b = want;
                for (int ki = 0; ki < k; ki++)
                    for (int kj = 0; kj < k; kj++)
                        for (int i = 0; i < in_h; i++)
                            for (int j = 0; j < in_w; j++)
                                want[(size_t)(i * s + ki * w.dilation_h) * w.out_w + j * s + kj * w.dilation_w] +=
                                    src[(size_t)i * in_w + j] * ker[ki * k + kj];
                f32_deconvdw_plane__scalar(src.data(), in_h, ker.data(), w, a.data());
                expect_same_bits(want.data(), a.data(), a.size(), "scalar");
                f32_deconvdw_plane(src.data(), in_h, ker.data(), w, b.data());
                expect_same_bits(want.data(), b.data(), b.size(), "dispatched");
            }
}

TEST(Activation, InPlaceKernelMatchesScalar) {
    for (int type = 0; type <= 6; type++)
        for (size_t n : {0, 1, 3, 4, 5, 17}) {
            auto v = rand_vec(n + 1, (uint32_t)(type * 100 + n), -5.f, 5.f);
            std::vector<float> want = v, got = v;
            ActParams a = make_act(type, type == 3 ? -0.5f : 0.2f, type == 3 ? 0.7f : 0.5f);
            for (size_t i = 0; i < n; i++)
                want[i] = act_scalar(want[i], a);
            f32_act_inplace(got.data(), n, a);
            expect_same_bits(want.data(), got.data(), n + 1, "activation " + std::to_string(type));
        }
}
