// Reduction: every operation over every subset of axes of 1D-4D inputs, with and without keepdims,
// against a reference written on outermost-first lists (numpy's view: drop the reduced axes, or
// keep them as 1); output shapes of ncnn's rule checked by hand for the subtle cases; coeff,
// negative axes, reduce_all, the fixbug0 requirement and out-of-range axes.
#include <cfloat>
#include <cmath>

#include "elementwise_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

enum { SUM, ASUM, SUMSQ, MEAN, MAX, MIN, PROD, L1, L2, LOGSUM, LOGSUMEXP };

// `red[i]`: reduce list axis i (outermost first). Returns the output list shape.
std::vector<int> ref_reduce(const Mat& in, int op, std::vector<bool> red, bool keepdims, float coeff,
                            std::vector<float>& out) {
    std::vector<int> l = in.shape().to_list();
    const size_t n = l.size();
    if (n == 1)
        red[0] = true;  // a 1D blob is always reduced whole
    std::vector<int> ol;      // output list
    std::vector<int> ostride(n, 0);  // output stride per input axis (0 when reduced)
    for (size_t i = 0; i < n; i++)
        if (keepdims || !red[i])
            ol.push_back(red[i] ? 1 : l[i]);
    size_t stride = 1;
    for (int i = (int)n - 1; i >= 0; i--) {
        if (!red[i]) {
            ostride[i] = (int)stride;
            stride *= l[i];
        }
    }
    const size_t nout = stride;
    std::vector<double> acc(nout, op == PROD ? 1.0 : op == MAX ? -INFINITY : op == MIN ? INFINITY : 0.0);
    size_t count = in.total_floats() / nout;
    std::vector<int> idx(n, 0);
    for (size_t k = 0; k < in.total_floats(); k++) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++)
            o += (size_t)idx[i] * ostride[i];
        double x = in.data[k];
        switch (op) {
        case ASUM:
        case L1: acc[o] += std::fabs(x); break;
        case SUMSQ:
        case L2: acc[o] += x * x; break;
        case MAX: acc[o] = std::max(acc[o], x); break;
        case MIN: acc[o] = std::min(acc[o], x); break;
        case PROD: acc[o] *= x; break;
        case LOGSUMEXP: acc[o] += std::exp(x); break;
        default: acc[o] += x; break;
        }
        for (int i = (int)n - 1; i >= 0; i--) {
            if (++idx[i] < l[i])
                break;
            idx[i] = 0;
        }
    }
    out.clear();
    for (double v : acc) {
        if (op == MEAN)
            v /= count;
        if (op == L2)
            v = std::sqrt(v);
        if (op == LOGSUM || op == LOGSUMEXP)
            v = std::log(v);
        out.push_back((float)(v * coeff));
    }
    if (ol.empty())
        ol.push_back(1);
    return ol;
}

ParamDict rparams(int op, const std::vector<int>& axes, int keepdims, float coeff = 1.f) {
    ParamDict pd = params({{0, op}, {1, 0}, {4, keepdims}, {5, 1}});
    pd.set_ints(3, axes);
    pd.set_float(2, coeff);
    return pd;
}

Shape reduced_shape(const Shape& in, const ParamDict& pd) {
    Built b = build("Reduction", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Shape> tops(1);
    Status st = b->infer_shape({in}, tops);
    EXPECT_TRUE(st.is_ok()) << st.message();
    Mat out = run1(*b.layer, {rand_mat(in, 1, 0.5f, 1.f)});
    EXPECT_EQ(out.shape(), tops[0]);
    return tops[0];
}

}  // namespace

TEST(Reduction, EveryOpEveryAxisSubset) {
    const Shape shapes[] = {Shape::d1(5), Shape::d2(4, 3), Shape::d3(5, 3, 2), Shape::d3(1, 4, 3), Shape::d4(3, 2, 4, 2),
                            Shape::d4(2, 1, 3, 5)};
    uint32_t seed = 1;
    int runs = 0;
    for (const Shape& s : shapes) {
        const int n = s.dims;
        for (int op = 0; op <= LOGSUMEXP; op++)
            for (int mask = 0; mask < (1 << n); mask++)
                for (int keep = 0; keep < 2; keep++) {
                    std::vector<int> axes;
                    std::vector<bool> red(n, false);
                    for (int i = 0; i < n; i++)
                        if (mask & (1 << i)) {
                            // alternate positive and negative spellings of the same axis
                            axes.push_back(i % 2 ? i - n : i);
                            red[i] = true;
                        }
                    const float coeff = op % 3 == 0 ? 1.f : -0.75f;
                    SCOPED_TRACE("op " + std::to_string(op) + " on " + s.str() + " mask " + std::to_string(mask) +
                                 (keep ? " keepdims" : ""));
                    Mat in = rand_mat(s, ++seed, op == LOGSUM || op == PROD ? 0.2f : -1.5f, 1.5f);
                    std::vector<float> want;
                    std::vector<int> wshape = ref_reduce(in, op, red, keep, coeff, want);
                    Built b = build("Reduction", rparams(op, axes, keep, coeff));
                    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
                    Mat got = run1(*b.layer, {in});
                    EXPECT_EQ(got.shape().to_list(), wshape);
                    expect_near(want, got, 2e-5f, 2e-6f);
                    runs++;
                }
    }
    EXPECT_EQ(runs, 11 * 2 * (2 + 4 + 8 + 8 + 16 + 16));
}

TEST(Reduction, ReduceAll) {
    uint32_t seed = 900;
    for (const Shape& s : odd_shapes())
        for (int op = 0; op <= LOGSUMEXP; op++)
            for (int keep = 0; keep < 2; keep++) {
                SCOPED_TRACE("op " + std::to_string(op) + " on " + s.str());
                ParamDict pd = params({{0, op}, {4, keep}});  // reduce_all defaults to 1
                pd.set_float(2, 2.f);
                Mat in = rand_mat(s, ++seed, op == LOGSUM ? 0.1f : -1.f, 1.f);
                std::vector<float> want;
                std::vector<int> wshape = ref_reduce(in, op, std::vector<bool>(s.dims, true), keep, 2.f, want);
                Built b = build("Reduction", pd);
                ASSERT_TRUE(b.st.is_ok()) << b.st.message();
                Mat got = run1(*b.layer, {in});
                EXPECT_EQ(got.shape().to_list(), wshape);
                expect_near(want, got, 2e-5f, 1e-6f);
            }
    // reduce_all ignores axes entirely, even ones out of range
    ParamDict pd = params({{0, SUM}, {1, 1}, {5, 1}});
    pd.set_ints(3, {7});
    EXPECT_EQ(reduced_shape(Shape::d3(2, 3, 4), pd), Shape::d1(1));
}

TEST(Reduction, OutputShapesByHand) {
    // ncnn notation: Shape::d3(w, h, c); axes are outermost first (3D: 0 = c, 1 = h, 2 = w)
    const Shape s3 = Shape::d3(4, 3, 2), s4 = Shape::d4(5, 4, 3, 2);
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {1}, 0)), Shape::d2(4, 2));     // [w,c] as a 2D blob
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {0}, 0)), Shape::d2(4, 3));
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {2}, 0)), Shape::d2(3, 2));
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {0, 2}, 0)), Shape::d1(3));
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {0, 1, 2}, 0)), Shape::d1(1));
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {1}, 1)), Shape::d3(4, 1, 2));
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {-1, -3}, 1)), Shape::d3(1, 3, 1));
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {2}, 0)), Shape::d3(5, 3, 2));  // [w,d,c]: d becomes h
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {1}, 0)), Shape::d3(5, 4, 2));
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {0}, 0)), Shape::d3(5, 4, 3));  // [w,h,d]: d becomes c
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {0, 1}, 0)), Shape::d2(5, 4));
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {1, 3}, 0)), Shape::d2(4, 2));
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {0, 1, 2}, 0)), Shape::d1(5));
    EXPECT_EQ(reduced_shape(s4, rparams(SUM, {3}, 1)), Shape::d4(1, 4, 3, 2));
    EXPECT_EQ(reduced_shape(Shape::d2(6, 7), rparams(SUM, {-1}, 0)), Shape::d1(7));
    EXPECT_EQ(reduced_shape(Shape::d2(6, 7), rparams(SUM, {0}, 1)), Shape::d2(6, 1));
    // 1D: always reduced whole, whatever the axes say
    EXPECT_EQ(reduced_shape(Shape::d1(9), rparams(SUM, {0}, 0)), Shape::d1(1));
    EXPECT_EQ(reduced_shape(Shape::d1(9), rparams(SUM, {}, 1)), Shape::d1(1));
    // no axis listed and reduce_all 0: nothing reduced, the input's shape
    EXPECT_EQ(reduced_shape(s3, rparams(SUM, {}, 0)), s3);
    // reduce_all with keepdims keeps the rank
    EXPECT_EQ(reduced_shape(s4, params({{4, 1}})), Shape::d4(1, 1, 1, 1));
}

TEST(Reduction, HandValues) {
    Mat m = mat_of(Shape::d2(3, 2), {1.f, -2.f, 3.f, 4.f, 5.f, -6.f});
    auto red = [&](int op, std::vector<int> axes, float coeff = 1.f) {
        Built b = build("Reduction", rparams(op, axes, 0, coeff));
        EXPECT_TRUE(b.st.is_ok()) << b.st.message();
        return vec(run1(*b.layer, {m}));
    };
    expect_same_floats({2.f, 3.f}, red(SUM, {1}));
    expect_same_floats({5.f, 3.f, -3.f}, red(SUM, {0}));
    expect_same_floats({6.f, 15.f}, red(ASUM, {1}));
    expect_same_floats({14.f, 77.f}, red(SUMSQ, {1}));
    expect_same_floats({2.5f, 1.5f, -1.5f}, red(MEAN, {0}));
    expect_same_floats({3.f, 5.f}, red(MAX, {1}));
    expect_same_floats({-2.f, -6.f}, red(MIN, {1}));
    expect_same_floats({-6.f, -120.f}, red(PROD, {1}));
    expect_same_floats({6.f, 15.f}, red(L1, {1}));
    auto l2 = red(L2, {1});
    EXPECT_NEAR(l2[0], std::sqrt(14.0), 1e-6);
    EXPECT_NEAR(l2[1], std::sqrt(77.0), 1e-5);
    // coeff multiplies every operation in current ncnn (mean: coeff / count)
    expect_same_floats({4.f, 6.f}, red(SUM, {1}, 2.f));
    auto mean = red(MEAN, {1}, 0.6f);
    ASSERT_EQ(mean.size(), 2u);
    EXPECT_NEAR(mean[0], 0.4f, 1e-7);
    EXPECT_NEAR(mean[1], 0.6f, 1e-7);
    expect_same_floats({-12.f, -30.f}, red(L1, {1}, -2.f));
    // max of an all -inf slice is ncnn's starting value -FLT_MAX
    Mat ninf = mat_of(Shape::d1(2), {-INFINITY, -INFINITY});
    Built mx = build("Reduction", params({{0, MAX}}));
    expect_same_floats({-FLT_MAX}, vec(run1(*mx.layer, {ninf})));
    // l2 of a subnormal sum is 0 (ncnn flushes below FLT_MIN before sqrt)
    Built l2b = build("Reduction", params({{0, L2}}));
    expect_same_floats({0.f}, vec(run1(*l2b.layer, {mat_of(Shape::d1(1), {1e-20f})})));
    // nothing reduced: each value is the operation on one element
    Built sq = build("Reduction", rparams(SUMSQ, {}, 0));
    expect_same_floats({1.f, 4.f, 9.f, 16.f, 25.f, 36.f}, vec(run1(*sq.layer, {m})));
}

TEST(Reduction, ParamsAndErrors) {
    auto load = [](ParamDict pd) { return create_layer("Reduction", false)->load_param(pd); };
    LT_EXPECT_ERROR(load(params({{0, 11}})), ErrorCode::InvalidModel, "operation");
    LT_EXPECT_ERROR(load(params({{0, -1}})), ErrorCode::InvalidModel, "operation");
    ParamDict old = params({{1, 0}});
    old.set_ints(3, {1});
    LT_EXPECT_ERROR(load(old), ErrorCode::InvalidModel, "fixbug0");
    std::vector<Mat> out;
    for (int axis : {3, -4, 100}) {
        Built b = build("Reduction", rparams(SUM, {axis}, 0));
        ASSERT_TRUE(b.st.is_ok()) << b.st.message();
        LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch,
                        "axis " + std::to_string(axis));
    }
    Built b = build("Reduction", rparams(SUM, {1}, 0));
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d1(4), 1)}, out), ErrorCode::ShapeMismatch, "out of range");
}
