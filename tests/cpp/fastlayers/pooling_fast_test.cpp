// Pooling_fast against the reference Pooling: max/avg, 2x2 and 3x3 s1/s2 windows, every pad
// mode, explicit/asymmetric pads, count_include_pad on and off, global pooling, and the windows and
// modes that run the reference forward (adaptive, 7x7, SAME with pad params).
#include "fast_harness.h"

using namespace nnfold;
using namespace nnfold::ft;

namespace {

struct Pool {
    int type, k, s, pl, pr, pt, pb, mode, include_pad;
};

void check(const Pool& c, const Shape& in, uint32_t& next_seed) {
    const uint32_t seed = next_seed++;
    SCOPED_TRACE((c.type ? "avg" : "max") + std::string(" k") + std::to_string(c.k) + " s" + std::to_string(c.s) +
                 " pads " + std::to_string(c.pl) + "," + std::to_string(c.pr) + "," + std::to_string(c.pt) + "," +
                 std::to_string(c.pb) + " mode " + std::to_string(c.mode) + " include " + std::to_string(c.include_pad) +
                 " in " + in.str());
    ParamDict pd = params({{0, c.type}, {1, c.k}, {2, c.s}, {3, c.pl}, {14, c.pr}, {13, c.pt}, {15, c.pb}, {5, c.mode},
                           {6, c.include_pad}});
    compare("Pooling", pd, {rand_mat(in, seed)}, 0.0, seed);  // same order of operations: exact
}

}  // namespace

TEST(PoolingFast, WindowsOnEdgeShapes) {
    uint32_t seed = 1;
    for (int type : {0, 1})
        for (int C : {1, 3, 5, 17})
            for (int s : {2, 3, 7, 13}) {
                for (int mode : {0, 1, 2, 3}) {
                    check({type, 2, 2, 0, 0, 0, 0, mode, 0}, Shape::d3(s + 1, s, C), seed);
                    check({type, 2, 1, 0, 1, 1, 0, mode, (int)(seed & 1)}, Shape::d3(s, s + 1, C), seed);
                    check({type, 3, 2, 1, 1, 1, 1, mode, (int)(seed & 1)}, Shape::d3(s, s + 2, C), seed);
                    check({type, 3, 1, 1, 1, 1, 1, mode, (int)(seed & 1)}, Shape::d3(s + 3, s, C), seed);
                }
                check({type, 2, 2, 0, 1, 0, 1, 1, 0}, Shape::d3(s, s, C), seed);  // asymmetric (ShuffleNet's)
                check({type, 3, 2, 0, 2, 1, 0, 0, 0}, Shape::d3(s, s + 1, C), seed);
            }
}

TEST(PoolingFast, GlobalAndFallbacks) {
    uint32_t seed = 100;
    for (int type : {0, 1})
        for (int C : {1, 4, 17, 64})
            for (int s : {1, 3, 7, 13}) {
                ParamDict g = params({{0, type}, {4, 1}});
                compare("Pooling", g, {rand_mat(Shape::d3(s, s + 1, C), seed++)}, 1e-5);
            }
    // windows the reference computes: 7x7 average, adaptive, SAME avg with pad params, 2D input
    ParamDict a = params({{0, 1}, {1, 7}, {2, 1}});
    compare("Pooling", a, {rand_mat(Shape::d3(7, 7, 8), seed++)}, 0.0);
    ParamDict b = params({{0, 0}, {7, 1}, {8, 3}, {18, 2}});
    compare("Pooling", b, {rand_mat(Shape::d3(13, 7, 3), seed++)}, 0.0);
    ParamDict c = params({{0, 1}, {1, 3}, {2, 2}, {3, 1}, {5, 2}});
    compare("Pooling", c, {rand_mat(Shape::d3(13, 7, 3), seed++)}, 0.0);
    ParamDict d = params({{0, 0}, {1, 3}, {2, 2}});
    compare("Pooling", d, {rand_mat(Shape::d2(13, 9), seed++)}, 0.0);
}

TEST(PoolingFast, ModelSizedShapes) {
    if (test::sanitizer_build())
        GTEST_SKIP() << "large shapes run in release builds";
    uint32_t seed = 300;
    check({0, 3, 2, 0, 0, 0, 0, 0, 0}, Shape::d3(112, 112, 64), seed);  // ResNet/GoogLeNet stem (full mode)
    check({0, 3, 1, 1, 1, 1, 1, 0, 0}, Shape::d3(28, 28, 192), seed);   // GoogLeNet inception pool
    ParamDict g = params({{0, 1}, {4, 1}});
    compare("Pooling", g, {rand_mat(Shape::d3(7, 7, 1280), 302)}, 1e-5);
}
