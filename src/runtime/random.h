// nnfold's random weights and inputs (docs/numbers.md). One PRNG, documented so that native,
// wasm and JavaScript produce the same bytes:
//
//   mulberry32: state is a uint32 (the seed). Each draw:
//     state += 0x6D2B79F5; t = state;
//     t = (t ^ (t >> 15)) * (t | 1);  t ^= t + (t ^ (t >> 7)) * (t | 61);  r = t ^ (t >> 14)
//   (all arithmetic mod 2^32). A uniform float in [0, 1) is (r >> 8) * 2^-24 (exact in float).
//   uniform(a, b) = a + (b - a) * u, evaluated in float32 (b - a rounded to float first).
//
// Random weights: one stream seeded with the seed, consumed in .bin order (layer by layer, array by
// array, element by element). Per array role: Weight U(-k, k) with k = float(sqrt(3 / fan_in));
// Bias, Mean, Beta U(-0.1, 0.1); Gamma U(0.9, 1.1); Variance U(0.5, 1.5); Slope U(0, 0.25);
// Data U(-1, 1). Arrays are stored as raw fp32 (tag 0 for tagged arrays).
// Random inputs: one stream seeded with the seed, inputs in the model's input order, U(-1, 1).
#pragma once

#include <cstdint>

#include "core/mat.h"
#include "core/status.h"
#include "model/graph.h"

namespace nnfold {

class Rng {
public:
    explicit Rng(uint32_t seed) : state_(seed) {}
    uint32_t next_u32() {
        state_ += 0x6D2B79F5u;
        uint32_t t = state_;
        t = (t ^ (t >> 15)) * (t | 1u);
        t ^= t + (t ^ (t >> 7)) * (t | 61u);
        return t ^ (t >> 14);
    }
    float uniform01() { return (float)(next_u32() >> 8) * (1.0f / 16777216.0f); }
    float uniform(float a, float b) {
        float range = b - a;
        float u = uniform01();
        float scaled = range * u;
        return a + scaled;
    }

private:
    uint32_t state_;
};

// Replaces every layer's weights with random values drawn per its weight_specs.
Status randomize_weights(Graph& g, uint32_t seed);

// Fills a tensor with U(-1, 1) from `rng`.
void fill_uniform(Mat& m, Rng& rng);

}  // namespace nnfold
