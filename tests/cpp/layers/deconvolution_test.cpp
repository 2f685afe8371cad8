// Deconvolution against a gather-form transposed convolution written from the definition
// (out[y][x] sums in[i][j] * w[ki][kj] over y = i*stride + ki*dilation), then the activation, then
// ncnn's cut: explicit pads, or output_w/output_h with SAME_UPPER/SAME_LOWER (hand-computed splits),
// output_pad_right/bottom; errors.
#include "layers/deconvolution.h"

#include "layer_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// Full transposed convolution (before any cut), grouped, [O][FH][FW].
struct DeconvRef {
    DeconvRef(int C_, int H_, int W_, int O_, int k_) : C(C_), H(H_), W(W_), O(O_), kh(k_), kw(k_) {}
    int C, H, W, O, kh, kw, dh = 1, dw = 1, sh = 1, sw = 1, oph = 0, opw = 0, group = 1, act = 0;
    std::vector<float> act_params;
    int FH = 0, FW = 0;
    std::vector<float> full(const std::vector<float>& in, const std::vector<float>& wt, const std::vector<float>& bias) {
        FH = (H - 1) * sh + dh * (kh - 1) + 1 + oph;
        FW = (W - 1) * sw + dw * (kw - 1) + 1 + opw;
        const int icg = C / group, ocg = O / group;
        std::vector<float> out((size_t)O * FH * FW);
        for (int o = 0; o < O; o++) {
            const int g = o / ocg;
            for (int y = 0; y < FH; y++)
                for (int x = 0; x < FW; x++) {
                    double acc = bias.empty() ? 0.0 : bias[o];
                    for (int c = 0; c < icg; c++)
                        for (int ki = 0; ki < kh; ki++)
                            for (int kj = 0; kj < kw; kj++) {
                                int yy = y - ki * dh, xx = x - kj * dw;
                                if (yy < 0 || xx < 0 || yy % sh || xx % sw)
                                    continue;
                                int i = yy / sh, j = xx / sw;
                                if (i >= H || j >= W)
                                    continue;
                                acc += (double)in[((size_t)(g * icg + c) * H + i) * W + j] *
                                       wt[(((size_t)o * icg + c) * kh + ki) * kw + kj];
                            }
                    out[((size_t)o * FH + y) * FW + x] = act_ref(act, (float)acc, act_params);
                }
        }
        return out;
    }
    std::vector<float> cut(const std::vector<float>& full, int top, int bottom, int left, int right) const {
        std::vector<float> out;
        for (int o = 0; o < O; o++)
            for (int y = top; y < FH - bottom; y++)
                for (int x = left; x < FW - right; x++)
                    out.push_back(full[((size_t)o * FH + y) * FW + x]);
        return out;
    }
};

struct DeCase {
    int C, H, W, O, group, k, d, s;
    int p4;                // pad param (all sides), may be -233/-234
    int op, ow, oh;        // output_pad_right (=bottom), output_w, output_h
    int ct, cb, cl, cr;    // expected cut by hand
    int act;
};

void check_deconv(const char* type, const DeCase& c, uint32_t seed) {
    SCOPED_TRACE(std::string(type) + " C" + std::to_string(c.C) + " O" + std::to_string(c.O) + " group " +
                 std::to_string(c.group) + " k" + std::to_string(c.k) + " d" + std::to_string(c.d) + " s" +
                 std::to_string(c.s) + " pad " + std::to_string(c.p4) + " output " + std::to_string(c.ow) + "x" +
                 std::to_string(c.oh) + " act " + std::to_string(c.act));
    const int wsize = c.k * c.k * (c.C / c.group) * c.O;
    ParamDict pd = params({{0, c.O}, {1, c.k}, {2, c.d}, {3, c.s}, {4, c.p4}, {5, 1}, {6, wsize}, {9, c.act},
                           {18, c.op}, {20, c.ow}, {21, c.oh}});
    if (std::string(type) == "DeconvolutionDepthWise")
        pd.set_int(7, c.group);
    auto ap = act_params_for(c.act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    auto w = random_weights(type, pd, seed);
    Built b = build(type, pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d3(c.W, c.H, c.C), seed + 1);
    Mat out = run1(*b.layer, {in});
    DeconvRef r(c.C, c.H, c.W, c.O, c.k);
    r.dh = r.dw = c.d;
    r.sh = r.sw = c.s;
    r.oph = r.opw = c.op;
    r.group = c.group;
    r.act = c.act;
    r.act_params = ap;
    auto full = r.full(vec(in), w[0], w[1]);
    auto want = r.cut(full, c.ct, c.cb, c.cl, c.cr);
    ASSERT_EQ(out.shape(), Shape::d3(r.FW - c.cl - c.cr, r.FH - c.ct - c.cb, c.O));
    expect_near(want, out, 1e-5f, 2e-5f);
}

}  // namespace

TEST(Deconvolution, MatchesGatherFormAndNcnnCuts) {
    const DeCase cases[] = {
        // C  H  W  O grp k d s  p4    op ow oh   ct cb cl cr act
        {1, 3, 4, 1, 1, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {3, 4, 5, 5, 1, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1},
        {5, 3, 3, 3, 1, 4, 1, 2, 1, 0, 0, 0, 1, 1, 1, 1, 2},   // explicit pad 1 cut from each side
        {2, 5, 4, 17, 1, 3, 2, 2, 0, 1, 0, 0, 0, 0, 0, 0, 3},  // dilation 2, output_pad 1
        {4, 3, 3, 2, 1, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 4},
        {3, 2, 3, 3, 1, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 5},
        {3, 3, 2, 4, 1, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 6},
        // full = (3-1)*2 + 3 = 7; output 6x6 with SAME_UPPER: cut 1 -> 0 before, 1 after
        {3, 3, 3, 2, 1, 3, 1, 2, -233, 0, 6, 6, 0, 1, 0, 1, 0},
        // SAME_LOWER: the odd pixel is cut first
        {3, 3, 3, 2, 1, 3, 1, 2, -234, 0, 6, 6, 1, 0, 1, 0, 0},
        // output_pad 1: full 8, output 6x5 -> w cut 2 (1/1), h cut 3 (1/2 upper)
        {2, 3, 3, 2, 1, 3, 1, 2, -233, 1, 6, 5, 1, 2, 1, 1, 1},
        {2, 3, 3, 2, 1, 3, 1, 2, -234, 1, 6, 5, 2, 1, 1, 1, 1},
        // SAME marker without output_w/h: nothing is cut
        {2, 3, 3, 2, 1, 3, 1, 2, -233, 0, 0, 0, 0, 0, 0, 0, 0},
    };
    uint32_t seed = 500;
    for (const DeCase& c : cases)
        check_deconv("Deconvolution", c, seed += 10);
}

TEST(Deconvolution, AsymmetricPadsAreCutPerSide) {
    ParamDict pd = params({{0, 2}, {1, 3}, {3, 2}, {4, 1}, {15, 2}, {14, 0}, {16, 3}, {5, 1}, {6, 2 * 3 * 9}});
    auto w = random_weights("Deconvolution", pd, 9);
    Built b = build("Deconvolution", pd, w);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    Mat in = rand_mat(Shape::d3(4, 4, 3), 10);
    Mat out = run1(*b.layer, {in});
    DeconvRef r(3, 4, 4, 2, 3);
    r.sh = r.sw = 2;
    auto full = r.full(vec(in), w[0], w[1]);  // 9x9
    expect_near(r.cut(full, 0, 3, 1, 2), out, 1e-5f, 2e-5f);
    EXPECT_EQ(out.shape(), Shape::d3(6, 6, 2));
}

TEST(Deconvolution, BadParamsAndShapesAreErrors) {
    auto load = [](ParamDict pd) { return create_layer("Deconvolution", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 2}, {1, 3}, {6, 17}})), ErrorCode::InvalidModel, "weight_data_size");
    LT_EXPECT_ERROR(load(params({{0, 2}, {1, 3}, {6, 18}, {4, -1}})), ErrorCode::InvalidModel, "pads");
    LT_EXPECT_ERROR(load(params({{0, 2}, {1, 3}, {6, 18}, {4, 1}, {15, -233}})), ErrorCode::InvalidModel, "pads");
    LT_EXPECT_ERROR(load(params({{0, 2}, {1, 3}, {6, 18}, {18, -1}})), ErrorCode::InvalidModel, "output_pad");
    // group is DeconvolutionDepthWise's param: Deconvolution ignores 7 as ncnn does
    EXPECT_TRUE(load(params({{0, 2}, {1, 3}, {6, 18}, {7, 2}})).is_ok());

    std::vector<Mat> out;
    Built b = build("Deconvolution", params({{0, 2}, {1, 3}, {3, 2}, {6, 18}, {20, 6}}));
    ASSERT_TRUE(b.st.is_ok());
    // output_w/h without SAME pads: ncnn's forward gives no output
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(3, 3, 1), 1)}, out), ErrorCode::ShapeMismatch, "output_w");
    Built b2 = build("Deconvolution", params({{0, 2}, {1, 3}, {3, 2}, {4, -233}, {6, 18}, {20, 9}}));
    ASSERT_TRUE(b2.st.is_ok());
    LT_EXPECT_ERROR(run(*b2.layer, {rand_mat(Shape::d3(3, 3, 1), 1)}, out), ErrorCode::ShapeMismatch, "larger");
    Built b3 = build("Deconvolution", params({{0, 2}, {1, 3}, {4, 2}, {6, 18}}));
    ASSERT_TRUE(b3.st.is_ok());
    LT_EXPECT_ERROR(run(*b3.layer, {rand_mat(Shape::d3(1, 1, 1), 1)}, out), ErrorCode::ShapeMismatch, "cut away");
    LT_EXPECT_ERROR(run(*b3.layer, {rand_mat(Shape::d3(3, 3, 2), 1)}, out), ErrorCode::ShapeMismatch, "channel");
    auto dyn = create_layer("Deconvolution", false);
    ASSERT_TRUE(dyn->load_param(params({{0, 2}, {1, 3}, {28, 1}})).is_ok());
    EXPECT_FALSE(dyn->one_blob_only);
    LT_EXPECT_ERROR(dyn->load_model({}), ErrorCode::Unsupported, "dynamic_weight");
}
