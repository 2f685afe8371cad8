// Tensor shapes as ncnn sees them: dims 1..4 with w (innermost), h, d, c (outermost).
// API and JSON list shapes outermost first (docs/shapes-and-files.md): [c, d, h, w] / [c, h, w] / [h, w] / [w].
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nnfold {

struct Shape {
    int dims = 0;  // 0 = unknown
    int w = 1, h = 1, d = 1, c = 1;
    // Data-dependent extents (detection heads: the number of boxes found). infer_shape sets dims and
    // the extents it knows (0 for the data-dependent ones); the runtime accepts any produced shape
    // with these dims, including an empty tensor, and consumers of it have unknown shapes.
    bool dynamic = false;

    static Shape dynamic_shape(int dims, int w, int h = 0, int c = 0) {
        Shape s{dims, w, h, 1, c};
        s.dynamic = true;
        return s;
    }

    static Shape d1(int w) { return Shape{1, w, 1, 1, 1}; }
    static Shape d2(int w, int h) { return Shape{2, w, h, 1, 1}; }
    static Shape d3(int w, int h, int c) { return Shape{3, w, h, 1, c}; }
    static Shape d4(int w, int h, int d, int c) { return Shape{4, w, h, d, c}; }

    bool known() const { return dims > 0 && !dynamic; }
    // Element count; 0 for an unknown shape. Uses 64-bit math; see checked_total for overflow checks.
    uint64_t total() const;
    // False when a dimension is not positive or the product overflows.
    bool valid() const;

    bool operator==(const Shape& o) const;
    bool operator!=(const Shape& o) const { return !(*this == o); }

    // Outermost first, e.g. [3, 224, 224].
    std::vector<int> to_list() const;
    // From an outermost-first list of 1..4 entries; dims=0 when the list is empty or too long.
    static Shape from_list(const std::vector<int>& list);
    // "[3,224,224]"
    std::string str() const;
};

}  // namespace nnfold
