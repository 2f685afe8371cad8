// Deconvolution_fast (GEMM + col2im) and DeconvolutionDepthWise_fast (direct depthwise, grouped
// GEMM + col2im) against the reference layers: kernels, strides, dilations, output pads, explicit
// and SAME cuts with output_w/h, every fused activation. Each output sums its terms tap by tap
// instead of the reference's input-pixel order: docs/numbers.md's 1e-4.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

struct Deconv {
    int C, H, W, O, group, k, s, d, pad, opad, ow, act;
};

void check(const char* type, const Deconv& c, uint32_t seed) {
    SCOPED_TRACE(std::string(type) + " C" + std::to_string(c.C) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) +
                 " O" + std::to_string(c.O) + " g" + std::to_string(c.group) + " k" + std::to_string(c.k) + " s" +
                 std::to_string(c.s) + " d" + std::to_string(c.d) + " pad " + std::to_string(c.pad) + " opad " +
                 std::to_string(c.opad) + " ow " + std::to_string(c.ow) + " act " + std::to_string(c.act));
    ParamDict pd = params({{0, c.O}, {1, c.k}, {3, c.s}, {2, c.d}, {4, c.pad}, {18, c.opad}, {5, 1},
                           {6, c.O * (c.C / c.group) * c.k * c.k}, {9, c.act}});
    if (std::string(type) == "DeconvolutionDepthWise")
        pd.set_int(7, c.group);
    if (c.ow)
        pd.set_int(20, c.ow);
    auto ap = act_params_for(c.act);
    if (!ap.empty())
        pd.set_floats(10, ap);
    compare(type, pd, {rand_mat(Shape::d3(c.W, c.H, c.C), seed)}, 1e-4, seed + 1);
}

}  // namespace

TEST(DeconvolutionFast, EdgeShapes) {
    uint32_t seed = 1;
    for (int C : {1, 3, 4, 17})
        for (int s : {1, 2, 3, 7})
            for (int k : {1, 2, 3, 4})
                for (int st : {1, 2}) {
                    check("Deconvolution", {C, s, s + 1, 5, 1, k, st, 1, 0, 0, 0, (int)(seed % 7)}, seed);
                    seed++;
                }
    check("Deconvolution", {4, 5, 6, 3, 1, 3, 2, 2, 1, 1, 0, 1}, seed++);             // dilation, pads, output pad
    check("Deconvolution", {4, 5, 6, 3, 1, 4, 2, 1, -233, 0, 12, 2}, seed++);          // SAME_UPPER to output_w
    check("Deconvolution", {4, 5, 6, 3, 1, 4, 2, 1, -234, 0, 11, 0}, seed++);          // SAME_LOWER to output_w
    check("Deconvolution", {64, 13, 13, 32, 1, 4, 2, 1, 1, 0, 0, 1}, seed++);
}

TEST(DeconvolutionDepthWiseFast, DepthwiseAndGroups) {
    uint32_t seed = 100;
    for (int C : {1, 3, 4, 17})
        for (int s : {1, 2, 7, 13})
            for (int k : {2, 3, 4})
                for (int st : {1, 2}) {
                    check("DeconvolutionDepthWise", {C, s, s + 2, C, C, k, st, 1, 0, 0, 0, (int)(seed % 7)}, seed);
                    seed++;
                }
    check("DeconvolutionDepthWise", {8, 5, 7, 8, 8, 3, 2, 2, 1, 1, 0, 1}, seed++);
    check("DeconvolutionDepthWise", {8, 5, 7, 8, 2, 3, 2, 1, 1, 0, 0, 4}, seed++);    // groups of 4
    check("DeconvolutionDepthWise", {6, 5, 7, 12, 3, 4, 2, 1, 0, 0, 0, 5}, seed++);   // 2 in, 4 out per group
    check("DeconvolutionDepthWise", {4, 6, 6, 8, 4, 3, 1, 1, -233, 0, 6, 1}, seed++); // multiplier 2, SAME
}
