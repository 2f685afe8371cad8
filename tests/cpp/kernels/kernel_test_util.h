// Helpers for the kernel tests: seeded random buffers and exact / tolerant comparisons.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/random.h"

namespace nnfold {
namespace kt {

inline std::vector<float> rand_vec(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    Rng rng(seed);
    std::vector<float> v(n);
    for (auto& x : v)
        x = rng.uniform(lo, hi);
    return v;
}

// Exactly the same values: no rounding difference at all. +0 and -0 count as equal (compilers may
// rewrite `v < 0 ? 0 : v` into a max that returns +0 for -0), as do NaNs of any payload.
inline void expect_same_bits(const float* want, const float* got, size_t n, const std::string& what) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bool same = want[i] == got[i] || (std::isnan(want[i]) && std::isnan(got[i]));
        if (!same && bad++ < 5)
            ADD_FAILURE() << what << ": element " << i << ": want " << want[i] << ", got " << got[i];
    }
    EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n << " elements differ";
}

// docs/numbers.md: max|a - b| / max(max|want|, 1e-6) <= tol.
inline void expect_rel(const float* want, const float* got, size_t n, double tol, const std::string& what) {
    double maxref = 0, maxdiff = 0;
    size_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (std::isnan(want[i]) != std::isnan(got[i])) {
            ADD_FAILURE() << what << ": element " << i << ": want " << want[i] << ", got " << got[i];
            return;
        }
        if (std::isnan(want[i]))
            continue;
        maxref = std::fmax(maxref, std::fabs((double)want[i]));
        double d = std::fabs((double)want[i] - got[i]);
        if (d > maxdiff) {
            maxdiff = d;
            worst = i;
        }
    }
    double err = maxdiff / std::fmax(maxref, 1e-6);
    EXPECT_LE(err, tol) << what << ": worst element " << worst << ": want " << want[worst] << ", got " << got[worst];
}

}  // namespace kt
}  // namespace nnfold
