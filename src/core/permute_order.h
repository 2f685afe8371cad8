// ncnn's Permute orders, shared by the Permute layer (layers/permute.cpp) and the passes that move
// Permutes (passes/permute_sinking.cpp). layers/permute.cpp lists what each order_type means.
#pragma once

namespace nnfold {

// Input axis for each output axis, innermost first. Axis numbers: 3D w=0 h=1 c=2; 4D w=0 h=1
// d=2 c=3.
constexpr int kPermuteOrder3[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
constexpr int kPermuteOrder4[24][4] = {
    {0, 1, 2, 3}, {1, 0, 2, 3}, {0, 2, 1, 3}, {2, 0, 1, 3}, {1, 2, 0, 3}, {2, 1, 0, 3},
    {0, 1, 3, 2}, {1, 0, 3, 2}, {0, 3, 1, 2}, {3, 0, 1, 2}, {1, 3, 0, 2}, {3, 1, 0, 2},
    {0, 2, 3, 1}, {2, 0, 3, 1}, {0, 3, 2, 1}, {3, 0, 2, 1}, {2, 3, 0, 1}, {3, 2, 0, 1},
    {1, 2, 3, 0}, {2, 1, 3, 0}, {1, 3, 2, 0}, {3, 1, 2, 0}, {2, 3, 1, 0}, {3, 2, 1, 0},
};

// The permutation of order `t` for `dims` axes (1D-4D), innermost first, in p[0..dims); false when
// ncnn does not define that order for that many axes (1D: 0, 2D: 0-1, 3D: 0-5, 4D: 0-23).
inline bool permute_order(int dims, int t, int p[4]) {
    if (t < 0)
        return false;
    switch (dims) {
    case 1: if (t != 0) return false; p[0] = 0; return true;
    case 2: if (t > 1) return false; p[0] = t; p[1] = 1 - t; return true;
    case 3: if (t > 5) return false; for (int k = 0; k < 3; k++) p[k] = kPermuteOrder3[t][k]; return true;
    case 4: if (t > 23) return false; for (int k = 0; k < 4; k++) p[k] = kPermuteOrder4[t][k]; return true;
    default: return false;
    }
}

}  // namespace nnfold
