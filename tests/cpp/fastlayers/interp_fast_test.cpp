// Interp_fast against the reference Interp: nearest and bilinear on odd sizes, upsampling and
// downsampling by scales and by output sizes, align_corner on and off, the same bits (tolerance 0:
// the same operations per value); bicubic, 2D and 1D inputs take the reference path and are
// compared too.
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

ParamDict interp(int type, float hs, float ws, int oh = 0, int ow = 0, int align = 0) {
    ParamDict pd = params({{0, type}, {3, oh}, {4, ow}, {6, align}});
    pd.set_float(1, hs);
    pd.set_float(2, ws);
    return pd;
}

}  // namespace

TEST(InterpFast, NearestAndBilinearOnOddSizes) {
    uint32_t seed = 70;
    for (int type : {1, 2, 3})
        for (int C : {1, 3, 17})
            for (int W : {1, 2, 5, 13}) {
                const int H = W % 4 + 2;
                const Shape s = Shape::d3(W, H, C);
                for (auto pd : {interp(type, 2.f, 2.f), interp(type, 3.f, 1.5f), interp(type, 0.5f, 0.75f),
                                interp(type, 1.f, 1.f, 7, 11), interp(type, 1.f, 1.f, 3, 2, 1),
                                interp(type, 2.f, 2.f, 0, 0, 1)}) {
                    if (type == 3 && (W < 2 || H < 2))
                        continue;  // bicubic needs two samples per axis (the reference refuses)
                    if (W < 2 && pd.get_float(2, 1.f) < 1.f)
                        continue;  // int(1 * 0.75) = 0 columns: an empty output (refused)
                    SCOPED_TRACE("type " + std::to_string(type) + " " + s.str() + " scales " +
                                 std::to_string(pd.get_float(1, 1.f)) + "," + std::to_string(pd.get_float(2, 1.f)) +
                                 " size " + std::to_string(pd.get_int(3, 0)) + "x" + std::to_string(pd.get_int(4, 0)));
                    compare("Interp", pd, {rand_mat(s, seed++)}, 0.0);
                }
            }
}

TEST(InterpFast, OtherRanksTakeTheReference) {
    uint32_t seed = 900;
    compare("Interp", interp(2, 1.f, 2.5f), {rand_mat(Shape::d2(7, 4), seed++)}, 0.0);
    compare("Interp", interp(1, 2.f, 2.f, 3, 5), {rand_mat(Shape::d1(6), seed++)}, 0.0);
    compare("Interp", interp(1, 1.f, 1.f), {rand_mat(Shape::d3(5, 4, 3), seed++)}, 0.0);  // same size
}
