// The kernels' activations: exp_fast against std::exp (double) over its whole range, every
// activation type against ncnn's formulas (layers/fused_activation.h, the reference), and the
// f32x4 forms against the scalar forms bit for bit (SIMD builds).
#include <cfloat>

#include "kernel_test_util.h"
#include "kernels/activation.h"
#include "layers/fused_activation.h"

using namespace nnfold;
using namespace nnfold::kernels;
using namespace nnfold::kt;

namespace {

std::vector<float> probe_values() {
    std::vector<float> v;
    for (float x = -100.f; x <= 100.f; x += 0.037f)
        v.push_back(x);
    for (float x : {0.f, -0.f, 1e-30f, -1e-30f, 20.f, 20.0001f, 19.999f, -20.f, 88.3762626647949f, -88.3762626647949f,
                    88.5f, -88.5f, 1e30f, -1e30f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY})
        v.push_back(x);
    return v;
}

}  // namespace

TEST(Activation, ExpFastIsAccurate) {
    double worst = 0;
    for (float x = kExpLo; x <= kExpHi; x += 0.0173f) {
        double want = std::exp((double)x);
        double rel = std::fabs(exp_fast(x) - want) / want;
        worst = std::fmax(worst, rel);
    }
    EXPECT_LE(worst, 3e-7);
    EXPECT_EQ(exp_fast(0.f), 1.f);
    // clamped outside the normal range, never inf or 0
    EXPECT_TRUE(std::isfinite(exp_fast(1000.f)));
    EXPECT_GT(exp_fast(-1000.f), 0.f);
    EXPECT_TRUE(std::isnan(exp_fast(NAN)));
}

TEST(Activation, MatchesNcnnFormulas) {
    struct P {
        int type;
        std::vector<float> params;
    };
    for (const P& p : {P{0, {}}, P{1, {}}, P{2, {0.1f}}, P{3, {-0.5f, 0.7f}}, P{4, {}}, P{5, {}}, P{6, {0.2f, 0.5f}},
                       P{6, {1.f / 6, 0.5f}}}) {
        FusedActivation ref;
        ASSERT_TRUE(ref.set(p.type, p.params).is_ok());
        ActParams a = make_act(p.type, ref.p0, ref.p1);
        for (float x : probe_values()) {
            float want = ref.apply(x), got = act_scalar(x, a);
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << "type " << p.type << " x " << x;
                continue;
            }
            if (got == want)
                continue;
            ASSERT_TRUE(p.type == 4 || p.type == 5) << "type " << p.type << " x " << x << " want " << want << " got " << got;
            // the exp-based ones: within 1e-6 of ncnn's float formula in the docs/numbers.md measure
            // (ncnn's own float log(1 + e^x) is 0 below x = -16.6, so mish is compared absolutely)...
            EXPECT_LE(std::fabs((double)got - want), 1e-6 * std::fmax(1.0, std::fabs(want)))
                << "type " << p.type << " x " << x << " want " << want << " got " << got;
            // ...and within 1e-6 relative of the exact value (double precision) down to 1e-30
            double xd = x, exact;
            if (p.type == 4) {
                xd = std::fmin(std::fmax(xd, -88.3762626647949), 88.3762626647949);
                exact = 1.0 / (1.0 + std::exp(-xd));
            } else {
                exact = xd > 20 ? xd : xd * std::tanh(std::log1p(std::exp(xd)));
            }
            EXPECT_LE(std::fabs(got - exact), 1e-6 * std::fabs(exact) + 1e-30)
                << "type " << p.type << " x " << x << " exact " << exact << " got " << got;
        }
    }
}

#if NNFOLD_SIMD
TEST(Activation, SimdMatchesScalarTwin) {
    auto xs = probe_values();
    xs.push_back(NAN);
    while (xs.size() % 4)
        xs.push_back(0.5f);
    for (int type = 0; type <= 6; type++) {
        ActParams a = make_act(type, type == 3 ? -0.5f : 0.2f, type == 3 ? 0.7f : 0.5f);
        std::vector<float> s(xs.size()), v(xs.size());
        for (size_t i = 0; i < xs.size(); i++)
            s[i] = act_scalar(xs[i], a);
        for (size_t i = 0; i < xs.size(); i += 4)
            simd::store(&v[i], act_v(simd::load(&xs[i]), a));
        expect_same_bits(s.data(), v.data(), xs.size(), "activation " + std::to_string(type));
    }
    std::vector<float> e(xs.size()), ev(xs.size());
    for (size_t i = 0; i < xs.size(); i++)
        e[i] = exp_fast(xs[i]);
    for (size_t i = 0; i < xs.size(); i += 4)
        simd::store(&ev[i], exp_v(simd::load(&xs[i])));
    expect_same_bits(e.data(), ev.data(), xs.size(), "exp");
}
#endif

// The fused residual Add (f32_add_act_inplace): y = act(y + r) for every activation type, on sizes
// around its 8- and 4-wide steps; the build's kernel against the formula, bit for bit (the SIMD
// form against its scalar twin in SIMD builds).
TEST(Activation, AddActMatchesFormula) {
    for (int type = 0; type <= 6; type++) {
        const ActParams a = make_act(type, type == 3 ? -0.5f : 0.2f, type == 3 ? 0.7f : 0.5f);
        for (size_t n : {0, 1, 3, 4, 5, 7, 8, 9, 12, 17, 33}) {
            const std::vector<float> y0 = rand_vec(n, 11 + (uint32_t)n, -3.f, 3.f), r = rand_vec(n, 29, -3.f, 3.f);
            std::vector<float> want(n), got = y0, twin = y0;
            for (size_t i = 0; i < n; i++)
                want[i] = act_scalar(y0[i] + r[i], a);
            f32_add_act_inplace(got.data(), r.data(), n, a);
            f32_add_act_inplace__scalar(twin.data(), r.data(), n, a);
            const std::string what = "add+act " + std::to_string(type) + " n=" + std::to_string(n);
            expect_same_bits(want.data(), got.data(), n, what);
            expect_same_bits(want.data(), twin.data(), n, what + " (scalar twin)");
        }
    }
}
